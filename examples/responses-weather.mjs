// The seed's "function calling" example (Responses API), run against Baton with the official
// `openai` client. Start Baton first (`npm start`), then:
//   BATON_API_KEY=$KEY node examples/responses-weather.mjs
// MODEL may name a Baton agent (e.g. refund-desk) or a provider model; scripted:auto needs no API key.
import OpenAI from 'openai';

const client = new OpenAI({
  baseURL: process.env.BATON_URL ?? 'http://127.0.0.1:8080/v1',
  apiKey: process.env.BATON_API_KEY,
});
const model = process.env.MODEL ?? 'scripted:auto';

async function getWeather(city, unit = 'celsius') {
  return { city, temperature: 18, unit, conditions: 'partly cloudy', humidity: 65 };
}

const tools = [
  {
    type: 'function',
    name: 'get_weather',
    description: 'Get current weather for a city',
    parameters: {
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City name' },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'], description: 'Temperature unit' },
      },
      required: ['city'],
    },
  },
];

/** Calls the model is waiting for: function_call items of this response without an output. */
function pendingCalls(response) {
  const answered = new Set(
    response.output.filter((item) => item.type === 'function_call_output').map((item) => item.call_id),
  );
  return response.output.filter((item) => item.type === 'function_call' && !answered.has(item.call_id));
}

async function chatWithTools(userMessage) {
  let response = await client.responses.create({ model, input: userMessage, tools });
  // The seed loops on `status === 'requires_action'`; on the wire a paused response is
  // `completed` with function_call items (as on OpenAI), and Baton adds `baton_run.status`.
  while (response.baton_run?.status === 'requires_action') {
    const toolResults = [];
    for (const item of pendingCalls(response)) {
      const args = JSON.parse(item.arguments);
      console.log(`Calling ${item.name}(${JSON.stringify(args)})`);
      const result =
        item.name === 'get_weather'
          ? await getWeather(args.city, args.unit)
          : { error: `Unknown function: ${item.name}` };
      toolResults.push({ type: 'function_call_output', call_id: item.call_id, output: JSON.stringify(result) });
    }
    response = await client.responses.create({ model, previous_response_id: response.id, input: toolResults });
  }
  return response.output_text;
}

console.log(await chatWithTools('What is the weather in Paris right now?'));
