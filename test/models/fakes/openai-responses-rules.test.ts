import { describe, expect, it } from 'vitest';
import { closedAfterEach, postJson } from './fake-test-kit.ts';
import { startOpenAIResponsesFake } from './openai-responses-fake.ts';
import type { OpenAIResponsesFake } from './openai-responses-fake.ts';

// The AI SDK loop and the wire shape are tested in openai-responses-fake.test.ts.

const start = closedAfterEach(startOpenAIResponsesFake);
/** The fake the running test started; `post` talks to it. */
let fake: OpenAIResponsesFake | undefined;

function post(body: unknown, headers: Record<string, string> = { authorization: 'Bearer test' }) {
  return postJson(`${fake!.baseURL}/responses`, body, headers);
}

/** One stored (or unstored) non-streaming turn that reasons, writes text, and calls a tool. */
async function firstTurn(extra: Record<string, unknown> = {}) {
  const { status, body } = await post({
    model: 'gpt-5-mini',
    input: [{ role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] }],
    tools: [{ type: 'function', name: 'weather', parameters: { type: 'object', properties: {} }, strict: false }],
    reasoning: { effort: 'low', summary: 'auto' },
    ...extra,
  });
  expect(status).toBe(200);
  const [reasoning, message, call] = body.output as any[];
  expect([reasoning.type, message.type, call.type]).toEqual(['reasoning', 'message', 'function_call']);
  return { reasoning, message, call };
}

const user = { role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] };

describe('OpenAI Responses fake: rule violations', () => {
  it('refuses a request without a bearer key, and a wrong key when one is configured', async () => {
    fake = await start(() => ({ text: 'hi' }), { apiKey: 'sk-right-key-1234' });
    const missing = await post({ model: 'gpt-5-mini', input: 'hi' }, {});
    expect(missing.status).toBe(401);
    expect(missing.body.error.message).toMatch(/^You didn't provide an API key\./);
    expect(missing.body.error.type).toBe('invalid_request_error');

    const wrong = await post({ model: 'gpt-5-mini', input: 'hi' }, { authorization: 'Bearer sk-wrong-key-9999' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('invalid_api_key');
    expect(wrong.body.error.message).toMatch(/^Incorrect API key provided: sk-\*+9999\./);
    expect(fake.rejections).toHaveLength(2);
  });

  it('refuses a request without model or input', async () => {
    fake = await start(() => ({ text: 'hi' }));
    const noModel = await post({ input: 'hi' });
    expect(noModel.status).toBe(400);
    expect(noModel.body.error).toEqual({
      message: "Missing required parameter: 'model'.",
      type: 'invalid_request_error',
      param: 'model',
      code: 'missing_required_parameter',
    });
    const noInput = await post({ model: 'gpt-5-mini' });
    expect(noInput.status).toBe(400);
    expect(noInput.body.error.message).toBe("Missing required parameter: 'input'.");
  });

  it('refuses a function call without its output, and an output without its call', async () => {
    fake = await start(() => ({ text: 'hi' }));
    const call = { type: 'function_call', call_id: 'call_abc', name: 'weather', arguments: '{}' };
    const noOutput = await post({ model: 'gpt-4.1', input: [user, call] });
    expect(noOutput.status).toBe(400);
    expect(noOutput.body.error).toEqual({
      message: 'No tool output found for function call call_abc.',
      type: 'invalid_request_error',
      param: 'input',
      code: null,
    });

    const orphan = { type: 'function_call_output', call_id: 'call_xyz', output: 'sunny' };
    const noCall = await post({ model: 'gpt-4.1', input: [user, orphan] });
    expect(noCall.status).toBe(400);
    expect(noCall.body.error.message).toBe('No tool call found for function call output with call_id call_xyz.');

    // Parallel calls: answering only one of them is refused too.
    const second = { ...call, call_id: 'call_def' };
    const partial = await post({
      model: 'gpt-4.1',
      input: [user, call, second, { type: 'function_call_output', call_id: 'call_abc', output: 'x' }],
    });
    expect(partial.status).toBe(400);
    expect(partial.body.error.message).toBe('No tool output found for function call call_def.');
  });

  it('refuses a reasoning item without its following item, and a call by id without its reasoning', async () => {
    fake = await start(() => ({
      reasoning: 'think',
      text: 'Checking.',
      calls: [{ name: 'weather', arguments: { city: 'Paris' } }],
    }));
    const { reasoning, message, call } = await firstTurn();
    const output = { type: 'function_call_output', call_id: call.call_id, output: 'rain' };

    const valid = await post({
      model: 'gpt-5-mini',
      input: [
        user,
        { type: 'item_reference', id: reasoning.id },
        { type: 'item_reference', id: message.id },
        { type: 'item_reference', id: call.id },
        output,
      ],
    });
    expect(valid.status).toBe(200);

    const lonelyReasoning = await post({
      model: 'gpt-5-mini',
      input: [user, { type: 'item_reference', id: reasoning.id }, { role: 'user', content: 'and Rome?' }],
    });
    expect(lonelyReasoning.status).toBe(400);
    expect(lonelyReasoning.body.error).toEqual({
      message: `Item '${reasoning.id}' of type 'reasoning' was provided without its required following item.`,
      type: 'invalid_request_error',
      param: 'input',
      code: null,
    });

    const messageWithoutReasoning = await post({
      model: 'gpt-5-mini',
      input: [user, { type: 'item_reference', id: message.id }, { type: 'item_reference', id: call.id }, output],
    });
    expect(messageWithoutReasoning.status).toBe(400);
    expect(messageWithoutReasoning.body.error.message).toBe(
      `Item '${message.id}' of type 'message' was provided without its required 'reasoning' item: '${reasoning.id}'.`,
    );
  });

  it('refuses a function_call sent by id without the reasoning item it followed', async () => {
    fake = await start(() => ({
      reasoning: 'think',
      calls: [{ name: 'weather', arguments: { city: 'Paris' } }],
    }));
    const { status, body } = await post({ model: 'o4-mini', input: 'Weather in Paris?' });
    expect(status).toBe(200);
    const [reasoning, call] = body.output as any[];
    const output = { type: 'function_call_output', call_id: call.call_id, output: 'rain' };

    const missing = await post({ model: 'o4-mini', input: [user, { type: 'item_reference', id: call.id }, output] });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toBe(
      `Item '${call.id}' of type 'function_call' was provided without its required 'reasoning' item: '${reasoning.id}'.`,
    );
    const byValueWithId = await post({ model: 'o4-mini', input: [user, call, output] });
    expect(byValueWithId.status).toBe(400);
    expect(byValueWithId.body.error.message).toContain("without its required 'reasoning' item");
  });

  it('refuses references to unknown items, and to items of an unstored response', async () => {
    fake = await start(() => ({ reasoning: 'think', text: 'Rain.' }));
    const unknown = await post({ model: 'gpt-5-mini', input: [user, { type: 'item_reference', id: 'rs_nope' }] });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toEqual({
      message: "Item with id 'rs_nope' not found.",
      type: 'invalid_request_error',
      param: 'input',
      code: null,
    });

    const { status, body } = await post({ model: 'gpt-5-mini', input: 'hi', store: false });
    expect(status).toBe(200);
    const [reasoning, message] = body.output as any[];
    expect(reasoning.encrypted_content).toBeUndefined();
    const notPersisted = await post({
      model: 'gpt-5-mini',
      store: false,
      input: [user, { type: 'item_reference', id: reasoning.id }, { type: 'item_reference', id: message.id }],
    });
    expect(notPersisted.status).toBe(404);
    expect(notPersisted.body.error.message).toBe(
      `Item with id '${reasoning.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to ` +
        `true, or remove this item from your input.`,
    );

    // By value but without encrypted content, the reasoning item is a reference in disguise.
    const byIdOnly = await post({
      model: 'gpt-5-mini',
      store: false,
      input: [user, { type: 'reasoning', id: reasoning.id, summary: [] }, { role: 'assistant', content: 'Rain.' }],
    });
    expect(byIdOnly.status).toBe(404);
    expect(byIdOnly.body.error.message).toContain('Items are not persisted');
  });

  it('refuses encrypted reasoning content it did not mint, or that was altered', async () => {
    fake = await start(() => ({
      reasoning: 'secret plan',
      calls: [{ name: 'weather', arguments: { city: 'Paris' } }],
    }));
    const { status, body } = await post({
      model: 'gpt-5-mini',
      input: 'Weather in Paris?',
      store: false,
      include: ['reasoning.encrypted_content'],
    });
    expect(status).toBe(200);
    const [reasoning, call] = body.output as any[];
    expect(reasoning.encrypted_content).toMatch(/^gAAAAA/);
    expect(fake.issuedEncryptedContent()).toEqual([
      { itemId: reasoning.id, encryptedContent: reasoning.encrypted_content, reasoning: 'secret plan' },
    ]);
    const followUp = (reasoningItem: unknown) =>
      post({
        model: 'gpt-5-mini',
        store: false,
        include: ['reasoning.encrypted_content'],
        input: [
          user,
          reasoningItem,
          { type: 'function_call', call_id: call.call_id, name: 'weather', arguments: call.arguments },
          { type: 'function_call_output', call_id: call.call_id, output: 'rain' },
        ],
      });

    const ok = await followUp({
      type: 'reasoning',
      id: reasoning.id,
      encrypted_content: reasoning.encrypted_content,
      summary: [],
    });
    expect(ok.status).toBe(200);

    const token = reasoning.encrypted_content as string;
    const altered = token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA');
    const tampered = await followUp({ type: 'reasoning', id: reasoning.id, encrypted_content: altered, summary: [] });
    expect(tampered.status).toBe(400);
    expect(tampered.body.error).toEqual({
      message: `The encrypted content for item ${reasoning.id} could not be verified. Reason: Encrypted content could not be decrypted or parsed.`,
      type: 'invalid_request_error',
      param: null,
      code: 'invalid_encrypted_content',
    });

    const anonymous = await followUp({ type: 'reasoning', encrypted_content: altered, summary: [] });
    expect(anonymous.status).toBe(400);
    expect(anonymous.body.error.message).toBe(
      `The encrypted content ${altered.slice(0, 4)}...${altered.slice(-4)} could not be verified.`,
    );

    // Genuine content under another item's id does not verify either.
    const swapped = await followUp({ type: 'reasoning', id: 'rs_other', encrypted_content: token, summary: [] });
    expect(swapped.status).toBe(400);
    expect(swapped.body.error.code).toBe('invalid_encrypted_content');
  });

  it('refuses sampling parameters on reasoning models, and reasoning on other models', async () => {
    fake = await start(() => ({ text: 'hi' }));
    const temperature = await post({ model: 'gpt-5-mini', input: 'hi', temperature: 0.2 });
    expect(temperature.status).toBe(400);
    expect(temperature.body.error).toEqual({
      message: "Unsupported parameter: 'temperature' is not supported with this model.",
      type: 'invalid_request_error',
      param: 'temperature',
      code: null,
    });
    const reasoning = await post({ model: 'gpt-4.1', input: 'hi', reasoning: { effort: 'low' } });
    expect(reasoning.status).toBe(400);
    expect(reasoning.body.error.message).toBe(
      "Unsupported parameter: 'reasoning.effort' is not supported with this model.",
    );
  });

  it('follows previous_response_id chains and refuses unknown ones', async () => {
    fake = await start((view) =>
      view.toolResults.length > 0
        ? { text: 'It rains.' }
        : { reasoning: 'r', calls: [{ name: 'weather', arguments: {} }] },
    );
    const first = await post({ model: 'gpt-5-mini', input: 'Weather?' });
    const call = (first.body.output as any[])[1];
    const next = await post({
      model: 'gpt-5-mini',
      previous_response_id: first.body.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'rain' }],
    });
    expect(next.status).toBe(200);
    expect(next.body.output[0].content[0].text).toBe('It rains.');

    const unanswered = await post({ model: 'gpt-5-mini', previous_response_id: first.body.id, input: 'and now?' });
    expect(unanswered.status).toBe(400);
    expect(unanswered.body.error.message).toBe(`No tool output found for function call ${call.call_id}.`);

    const missing = await post({ model: 'gpt-5-mini', previous_response_id: 'resp_gone', input: 'hi' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({
      message: "Previous response with id 'resp_gone' not found.",
      param: 'previous_response_id',
      code: 'previous_response_not_found',
    });
  });
});
