import { createInterface } from 'node:readline/promises';
import { stdin, stdout } from 'node:process';

interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

interface MessageResponse {
  choices: { message: { content: string | null; tool_calls?: ToolCall[] }; finish_reason: string }[];
}

class ApiError extends Error {}

async function call(baseUrl: string, apiKey: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const data = (await response.json()) as { error?: { message?: string } };
  if (!response.ok) throw new ApiError(data.error?.message ?? `HTTP ${response.status}`);
  return data;
}

/**
 * `baton chat AGENT`: a person talks to the agent and answers each client-executed call at a
 * prompt — the seeds' "human approval" case, for real. Answers are sent all together, in one
 * message, as the seeds require. Type `!` before an answer to send it as an error.
 */
export async function runChat(args: string[]): Promise<number> {
  const agent = args[0];
  if (!agent) {
    console.error('Usage: baton chat AGENT');
    return 1;
  }
  const baseUrl = (process.env.BATON_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');
  const apiKey = process.env.BATON_API_KEY ?? process.env.BATON_ADMIN_KEY;
  if (!apiKey) {
    console.error('Set BATON_API_KEY to an API key of the server (the first admin key is printed at its first start).');
    return 1;
  }
  const prompt = createInterface({ input: stdin, output: stdout });
  try {
    const thread = (await call(baseUrl, apiKey, 'POST', '/v1/threads', { agent })) as { id: string };
    console.log(`Thread ${thread.id} with agent ${agent}. Type a message; an empty line or Ctrl+D quits.`);
    for (;;) {
      const line = await prompt.question('you> ').catch(() => '');
      if (line.trim() === '') return 0;
      let response = (await call(baseUrl, apiKey, 'POST', `/v1/threads/${thread.id}/messages`, { role: 'user', content: line })) as MessageResponse;
      for (;;) {
        const choice = response.choices[0];
        if (!choice) break;
        if (choice.message.content) console.log(`${agent}> ${choice.message.content}`);
        if (choice.finish_reason !== 'tool_use' || !choice.message.tool_calls) break;
        const results = [];
        for (const toolCall of choice.message.tool_calls) {
          console.log(`\n[tool call ${toolCall.id}] ${toolCall.name} ${JSON.stringify(toolCall.input, null, 2)}`);
          const answer = await prompt.question(`result for ${toolCall.name} (text or JSON; prefix ! for an error)> `);
          const isError = answer.startsWith('!');
          results.push({ type: 'tool_result', tool_call_id: toolCall.id, content: isError ? answer.slice(1).trim() : answer, ...(isError ? { is_error: true } : {}) });
        }
        response = (await call(baseUrl, apiKey, 'POST', `/v1/threads/${thread.id}/messages`, { role: 'user', content: results })) as MessageResponse;
      }
    }
  } catch (error) {
    console.error(error instanceof ApiError ? `Baton: ${error.message}` : error);
    return 1;
  } finally {
    prompt.close();
  }
}
