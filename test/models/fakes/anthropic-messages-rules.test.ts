import { describe, expect, it } from 'vitest';
import { BASE, HEADERS, QUESTION, TOOLS, runLoop, weatherScript } from './anthropic-fake-test-kit.ts';
import { startAnthropicMessagesFake } from './anthropic-messages-fake.ts';
import type { AnthropicMessagesFake } from './anthropic-messages-fake.ts';
import { closedAfterEach, postJson } from './fake-test-kit.ts';
import type { ModelScript } from './provider-fake.ts';

// Raw requests: each rule violation gets Anthropic's status, envelope and wording. (The AI SDK loop
// and the wire shape are tested in anthropic-messages-fake.test.ts.)

const THINKING_DOCS = 'https://docs.claude.com/en/docs/build-with-claude/extended-thinking';

const start = closedAfterEach(startAnthropicMessagesFake);

function post(fake: AnthropicMessagesFake, body: unknown, headers: Record<string, string> = HEADERS) {
  return postJson(fake.url, body, headers);
}

function invalidRequest(message: string) {
  return { type: 'error', error: { type: 'invalid_request_error', message } };
}

/** A fake plus a first raw exchange: the assistant's thinking + two parallel tool_use blocks. */
async function firstExchange() {
  const fake = await start(weatherScript(['Paris', 'London']));
  const first = await post(fake, { ...BASE, messages: [QUESTION] });
  expect(first.status).toBe(200);
  const content: any[] = first.body.content;
  const [thinking, text, useA, useB] = content;
  const results = [
    { type: 'tool_result', tool_use_id: useA.id, content: '{"city":"Paris","forecast":"sunny"}' },
    { type: 'tool_result', tool_use_id: useB.id, content: '{"city":"London","forecast":"rainy"}' },
  ];
  const followUp = (assistantContent: unknown[], userContent: unknown[]) => ({
    ...BASE,
    messages: [QUESTION, { role: 'assistant', content: assistantContent }, { role: 'user', content: userContent }],
  });
  return { fake, content, thinking, text, useA, useB, results, followUp };
}

describe('Anthropic Messages fake: rules', () => {
  it('answers a well-formed non-streaming first request and follow-up as Anthropic JSON', async () => {
    const { fake, content, thinking, useA, results, followUp } = await firstExchange();
    expect(content.map((block) => block.type)).toEqual(['thinking', 'text', 'tool_use', 'tool_use']);
    expect(thinking.signature).toBe(fake.issuedThinking[0]!.signature);
    expect(useA.id).toMatch(/^toolu_/);

    const second = await post(fake, followUp(content, results));
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'Paris is sunny, London is rainy.' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
    });
    expect(second.body.id).toMatch(/^msg_01/);
    expect(Object.keys(second.body.usage)).toEqual(
      expect.arrayContaining([
        'input_tokens',
        'output_tokens',
        'cache_read_input_tokens',
        'cache_creation_input_tokens',
      ]),
    );
    expect(fake.rejections).toEqual([]);
  });

  it('refuses a tool-use follow-up whose assistant message lost its thinking block', async () => {
    const { fake, content, results, followUp } = await firstExchange();
    const refused = await post(fake, followUp(content.slice(1), results));
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject(
      invalidRequest(
        'messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`. When `thinking` is enabled, a final ' +
          '`assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We ' +
          'recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our ' +
          'documentation at ' +
          THINKING_DOCS,
      ),
    );
    const onlyCalls = await post(fake, followUp(content.slice(2), results));
    expect(onlyCalls.body.error.message).toMatch(/^messages\.1\.content\.0\.type: Expected .* but found `tool_use`\./);
    expect(fake.rejections.map((rejection) => rejection.status)).toEqual([400, 400]);
    expect(fake.rejections[0]!.body).toEqual(refused.body);
  });

  it('refuses a thinking block whose signature or text was altered, or whose signature is missing', async () => {
    const { fake, content, thinking, results, followUp } = await firstExchange();
    const rest = content.slice(1);
    const flipped = (thinking.signature[0] === 'A' ? 'B' : 'A') + thinking.signature.slice(1);
    const invalidSignature = invalidRequest('messages.1.content.0: Invalid `signature` in `thinking` block');

    const alteredSignature = await post(fake, followUp([{ ...thinking, signature: flipped }, ...rest], results));
    expect(alteredSignature).toMatchObject({ status: 400, body: invalidSignature });

    const alteredText = await post(
      fake,
      followUp([{ ...thinking, thinking: `${thinking.thinking} ` }, ...rest], results),
    );
    expect(alteredText).toMatchObject({ status: 400, body: invalidSignature });

    const forged = await post(fake, followUp([{ ...thinking, signature: 'EqQBCkgIARABGAIiQL' }, ...rest], results));
    expect(forged).toMatchObject({ status: 400, body: invalidSignature });

    const { signature: _dropped, ...unsigned } = thinking;
    const missing = await post(fake, followUp([unsigned, ...rest], results));
    expect(missing).toMatchObject({
      status: 400,
      body: invalidRequest('messages.1.content.0.thinking.signature: Field required'),
    });
    expect(fake.rejections).toHaveLength(4);
  });

  it('refuses tool_use blocks whose results are missing, split across turns, or not first', async () => {
    const { fake, content, useB, results, followUp } = await firstExchange();
    const missingB = (index: number, ids: string) =>
      invalidRequest(
        `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${ids}. Each \`tool_use\` block ` +
          `must have a corresponding \`tool_result\` block in the next message.`,
      );

    const oneResult = await post(fake, followUp(content, [results[0]]));
    expect(oneResult).toMatchObject({ status: 400, body: missingB(1, useB.id) });

    const noResults = await post(fake, followUp(content, [{ type: 'text', text: 'Never mind.' }]));
    expect(noResults).toMatchObject({ status: 400, body: missingB(1, `${content[2].id}, ${useB.id}`) });

    const split = await post(fake, {
      ...BASE,
      messages: [
        QUESTION,
        { role: 'assistant', content },
        { role: 'user', content: [results[0]] },
        { role: 'assistant', content: [{ type: 'text', text: 'Waiting for London.' }] },
        { role: 'user', content: [results[1]] },
      ],
    });
    expect(split).toMatchObject({ status: 400, body: missingB(1, useB.id) });

    const textFirst = await post(fake, followUp(content, [{ type: 'text', text: 'Here you go.' }, ...results]));
    expect(textFirst).toMatchObject({ status: 400, body: missingB(1, `${content[2].id}, ${useB.id}`) });
    expect(fake.rejections).toHaveLength(4);
  });

  it('refuses a tool_result that answers no tool_use of the previous message', async () => {
    const { fake, content, results, followUp } = await firstExchange();
    const stray = { type: 'tool_result', tool_use_id: 'toolu_01StrayStrayStrayStray01', content: 'x' };
    const refused = await post(fake, followUp(content, [...results, stray]));
    expect(refused).toMatchObject({
      status: 400,
      body: invalidRequest(
        'messages.2.content.2: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01StrayStrayStrayStray01. Each `tool_result` ' +
          'block must have a corresponding `tool_use` block in the previous message.',
      ),
    });
    const opening = await post(fake, { ...BASE, messages: [{ role: 'user', content: [stray] }] });
    expect(opening.body.error.message).toMatch(/^messages\.0\.content\.0: unexpected `tool_use_id`/);
  });

  it('checks thinking at the start of the turn in progress: later steps of the loop need none', async () => {
    const { fake, content, useA, useB, results } = await firstExchange();
    const stepTwo = [
      { type: 'tool_use', id: 'toolu_01SecondStepSecondStep01', name: 'get_weather', input: { city: 'Rome' } },
    ];
    const stepTwoResult = [
      {
        type: 'tool_result',
        tool_use_id: 'toolu_01SecondStepSecondStep01',
        content: '{"city":"Rome","forecast":"warm"}',
      },
    ];
    const messages = (opening: unknown[]) => [
      QUESTION,
      { role: 'assistant', content: opening },
      { role: 'user', content: results },
      { role: 'assistant', content: stepTwo },
      { role: 'user', content: stepTwoResult },
    ];
    const accepted = await post(fake, { ...BASE, messages: messages(content) });
    expect(accepted.status).toBe(200);

    const refused = await post(fake, { ...BASE, messages: messages([useA, useB]) });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/^messages\.1\.content\.0\.type: Expected .* but found `tool_use`\./);

    // A new user turn starts a new assistant turn: earlier thinking is no longer required.
    const newTurn = await post(fake, {
      ...BASE,
      messages: [
        QUESTION,
        { role: 'assistant', content: [useA, useB] },
        { role: 'user', content: results },
        { role: 'assistant', content: [{ type: 'text', text: 'Paris is sunny, London is rainy.' }] },
        { role: 'user', content: 'Thanks! And Paris again?' },
      ],
    });
    expect(newTurn.status).toBe(200);
    expect(fake.rejections).toHaveLength(1);
  });

  it('thinks first on a new turn even when the script gives no reasoning, unless told not to', async () => {
    const callOnly: ModelScript = (view) =>
      view.toolResults.length === 0
        ? { calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }
        : { text: 'Done.' };
    const thinking = await start(callOnly);
    const { result, errors } = runLoop(thinking, 'Paris?');
    expect(await result.text).toBe('Done.');
    expect(errors).toEqual([]);
    expect(thinking.rejections).toEqual([]);
    expect(thinking.requests[1]!.body.messages[1].content[0].type).toBe('thinking');

    const silent = await start(callOnly, { defaultThinking: false });
    const first = await post(silent, { ...BASE, messages: [QUESTION] });
    expect(first.body.content.map((block: any) => block.type)).toEqual(['tool_use']);
    const [use] = first.body.content;
    const followUp = await post(silent, {
      ...BASE,
      messages: [
        QUESTION,
        { role: 'assistant', content: first.body.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sunny' }] },
      ],
    });
    expect(followUp.status).toBe(400);
    expect(followUp.body.error.message).toMatch(/^messages\.1\.content\.0\.type: Expected .* but found `tool_use`\./);
  });

  it('refuses a redacted_thinking block whose data the fake did not issue', async () => {
    const fake = await start(weatherScript(['Paris']), { redactThinking: true });
    const first = await post(fake, { ...BASE, messages: [{ role: 'user', content: 'Paris?' }] });
    const [redacted, text, use] = first.body.content;
    expect(redacted).toEqual({ type: 'redacted_thinking', data: fake.issuedRedactedThinking[0]!.data });
    const result = [{ type: 'tool_result', tool_use_id: use.id, content: '{"city":"Paris","forecast":"sunny"}' }];
    const send = (block: unknown) =>
      post(fake, {
        ...BASE,
        messages: [
          { role: 'user', content: 'Paris?' },
          { role: 'assistant', content: [block, text, use] },
          { role: 'user', content: result },
        ],
      });
    expect((await send(redacted)).status).toBe(200);
    const tampered = await send({ ...redacted, data: `${redacted.data.slice(0, -4)}AAA=` });
    expect(tampered).toMatchObject({
      status: 400,
      body: invalidRequest('messages.1.content.0: Invalid `data` in `redacted_thinking` block'),
    });
  });

  it('refuses bad headers and basic body mistakes with Anthropic wording', async () => {
    const fake = await start(() => ({ text: 'ok' }));
    const ok = { model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] };

    const { 'x-api-key': _key, ...noKey } = HEADERS;
    expect(await post(fake, ok, noKey)).toMatchObject({
      status: 401,
      body: { type: 'error', error: { type: 'authentication_error', message: 'x-api-key header is required' } },
    });
    const { 'anthropic-version': _version, ...noVersion } = HEADERS;
    expect(await post(fake, ok, noVersion)).toMatchObject({
      status: 400,
      body: invalidRequest('anthropic-version: header is required'),
    });

    const cases: Array<[unknown, string]> = [
      [{ ...ok, max_tokens: undefined }, 'max_tokens: Field required'],
      [{ ...ok, model: undefined }, 'model: Field required'],
      [{ ...ok, messages: [] }, 'messages: at least one message is required'],
      [
        {
          ...ok,
          messages: [
            { role: 'assistant', content: 'Hello' },
            { role: 'user', content: 'Hi' },
          ],
        },
        'messages: first message must use the "user" role',
      ],
      [
        {
          ...ok,
          messages: [
            { role: 'user', content: 'Hi' },
            { role: 'user', content: 'Hello?' },
          ],
        },
        'messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row',
      ],
      [
        {
          ...ok,
          messages: [
            { role: 'user', content: 'Hi' },
            { role: 'assistant', content: [] },
            { role: 'user', content: 'Hm' },
          ],
        },
        'messages.1: all messages must have non-empty content except for the optional final assistant message',
      ],
      [
        { ...ok, messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] },
        'messages: text content blocks must be non-empty',
      ],
      [
        { ...ok, thinking: { type: 'enabled', budget_tokens: 512 } },
        'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024',
      ],
      [
        { ...ok, max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 2048 } },
        `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. Please consult our documentation at ` +
          `${THINKING_DOCS}#max-tokens-and-context-window-size`,
      ],
      [
        {
          ...ok,
          max_tokens: 4096,
          thinking: { type: 'enabled', budget_tokens: 2048 },
          tools: TOOLS,
          tool_choice: { type: 'any' },
        },
        'Thinking may not be enabled when tool_choice forces tool use.',
      ],
    ];
    for (const [body, message] of cases) {
      const refused = await post(fake, body);
      expect({ status: refused.status, body: refused.body }, message).toMatchObject({
        status: 400,
        body: invalidRequest(message),
      });
    }
    expect(fake.rejections).toHaveLength(cases.length + 2);
    expect(fake.requests).toHaveLength(cases.length + 2);
  });

  it('refuses a final assistant message holding thinking when thinking is off', async () => {
    const { fake, thinking } = await firstExchange();
    const refused = await post(fake, {
      model: 'claude-sonnet-4-5',
      max_tokens: 256,
      messages: [QUESTION, { role: 'assistant', content: [thinking, { type: 'text', text: 'Partly' }] }],
    });
    expect(refused).toMatchObject({
      status: 400,
      body: invalidRequest(
        'messages.1.content.0: When thinking is disabled, an `assistant` message in the final position cannot contain `thinking`. To use ' +
          'thinking blocks, enable `thinking` in your request.',
      ),
    });
  });
});
