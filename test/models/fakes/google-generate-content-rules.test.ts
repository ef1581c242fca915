import { describe, expect, it } from 'vitest';
import { closedAfterEach } from './fake-test-kit.ts';
import { post, recordOneCallLoop } from './google-fake-test-kit.ts';
import { googleErrorMessages, startGoogleGenerateContentFake } from './google-generate-content-fake.ts';

// The AI SDK loop and the wire shape are tested in google-generate-content-fake.test.ts.

const start = closedAfterEach(startGoogleGenerateContentFake);

function expectGoogleError(result: { status: number; json: any }, status: number, code: string, message: string) {
  expect(result.status).toBe(status);
  expect(result.json).toEqual({ error: expect.objectContaining({ code: status, status: code, message }) });
}

describe('Gemini generateContent fake: rule violations are refused with Google wording', () => {
  it('refuses the follow-up when the call signature is missing, altered, dummy or moved', async () => {
    const { fake, followUp } = await recordOneCallLoop(start);
    const signature: string = followUp.contents[1].parts[1].thoughtSignature;
    expect(typeof signature).toBe('string');
    const withSignature = (value: string | undefined) => {
      const body = structuredClone(followUp);
      const part = body.contents[1].parts.find((p: any) => p.functionCall);
      if (value === undefined) delete part.thoughtSignature;
      else part.thoughtSignature = value;
      return body;
    };

    // The genuine follow-up, replayed, is accepted.
    expect((await post(fake, followUp)).status).toBe(200);

    const missing = googleErrorMessages.missingThoughtSignature('get_weather', 2);
    expectGoogleError(await post(fake, withSignature(undefined)), 400, 'INVALID_ARGUMENT', missing);
    expect(missing).toBe(
      'Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing ' +
        'thought_signature may lead to degraded model performance. Additional data, function call `default_api:get_weather` , position 2. ' +
        'Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.',
    );
    const altered = signature.slice(0, 10) + (signature[10] === 'A' ? 'B' : 'A') + signature.slice(11);
    expectGoogleError(
      await post(fake, withSignature(altered)),
      400,
      'INVALID_ARGUMENT',
      'Corrupted thought signature.',
    );
    // Stricter than Google on purpose: a dummy does not replace a real signature this fake issued.
    for (const dummy of ['skip_thought_signature_validator', 'context_engineering_is_the_way_to_go']) {
      expectGoogleError(await post(fake, withSignature(dummy)), 400, 'INVALID_ARGUMENT', missing);
    }
    // The signature bound to another call's arguments is corrupted there.
    const moved = withSignature(signature);
    moved.contents[1].parts[1].functionCall.args = { city: 'Lyon' };
    moved.contents[2].parts[0].functionResponse.response.content = 'Lyon: rain';
    expectGoogleError(await post(fake, moved), 400, 'INVALID_ARGUMENT', 'Corrupted thought signature.');
    // Signatures are per model.
    expectGoogleError(
      await post(fake, followUp, { model: 'gemini-3-pro-preview' }),
      400,
      'INVALID_ARGUMENT',
      'Corrupted thought signature.',
    );
    expect(fake.rejections.map((r) => r.status)).toEqual([400, 400, 400, 400, 400, 400]);
  });

  it('accepts dummies only on calls it never issued, and checks signatures only in the current turn', async () => {
    const { fake, followUp } = await recordOneCallLoop(start);
    const foreign = (signature?: string) => ({
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Oslo?' }] },
        {
          role: 'model',
          parts: [
            {
              functionCall: { name: 'get_weather', args: { city: 'Oslo' } },
              ...(signature ? { thoughtSignature: signature } : {}),
            },
          ],
        },
        {
          role: 'user',
          parts: [{ functionResponse: { name: 'get_weather', response: { name: 'get_weather', content: 'snow' } } }],
        },
      ],
    });
    expect((await post(fake, foreign('skip_thought_signature_validator'))).status).toBe(200);
    expect((await post(fake, foreign('context_engineering_is_the_way_to_go'))).status).toBe(200);
    expectGoogleError(
      await post(fake, foreign()),
      400,
      'INVALID_ARGUMENT',
      googleErrorMessages.missingThoughtSignature('get_weather', 2),
    );
    expectGoogleError(
      await post(fake, foreign('Zm9yZWlnbg==')),
      400,
      'INVALID_ARGUMENT',
      'Corrupted thought signature.',
    );

    // Once a new user message starts a new turn, the old loop is history: no signature required.
    const history = structuredClone(followUp);
    delete history.contents[1].parts[1].thoughtSignature;
    history.contents.push(
      { role: 'model', parts: [{ text: 'It is sunny.' }] },
      { role: 'user', parts: [{ text: 'Thanks!' }] },
    );
    expect((await post(fake, history)).status).toBe(200);
    // Older models do not require signatures at all.
    const old = structuredClone(followUp);
    delete old.contents[1].parts[1].thoughtSignature;
    expect((await post(fake, old, { model: 'gemini-2.5-flash' })).status).toBe(200);
  });

  it('refuses parallel results split across turns, a call without its result, and an orphan result', async () => {
    const fake = await start(() => ({ text: 'ok' }));
    const user = { role: 'user', parts: [{ text: 'Weather in Paris and Tokyo?' }] };
    const twoCalls = {
      role: 'model',
      parts: [
        {
          functionCall: { name: 'get_weather', args: { city: 'Paris' } },
          thoughtSignature: 'skip_thought_signature_validator',
        },
        { functionCall: { name: 'get_weather', args: { city: 'Tokyo' } } },
      ],
    };
    const result = (city: string) => ({
      functionResponse: { name: 'get_weather', response: { name: 'get_weather', content: `${city}: sunny` } },
    });
    const count = googleErrorMessages.functionResponseCount;
    expect(count).toBe(
      'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.',
    );

    expect(
      (await post(fake, { contents: [user, twoCalls, { role: 'user', parts: [result('Paris'), result('Tokyo')] }] }))
        .status,
    ).toBe(200);
    const split = {
      contents: [
        user,
        twoCalls,
        { role: 'user', parts: [result('Paris')] },
        { role: 'user', parts: [result('Tokyo')] },
      ],
    };
    expectGoogleError(await post(fake, split), 400, 'INVALID_ARGUMENT', count);
    const unanswered = { contents: [user, twoCalls, { role: 'user', parts: [{ text: 'never mind' }] }] };
    expectGoogleError(await post(fake, unanswered), 400, 'INVALID_ARGUMENT', count);
    const wrongName = {
      contents: [
        user,
        twoCalls,
        {
          role: 'user',
          parts: [result('Paris'), { functionResponse: { name: 'get_time', response: { content: '12:00' } } }],
        },
      ],
    };
    expectGoogleError(await post(fake, wrongName), 400, 'INVALID_ARGUMENT', count);
    const orphan = { contents: [user, { role: 'user', parts: [result('Paris')] }] };
    expectGoogleError(await post(fake, orphan), 400, 'INVALID_ARGUMENT', googleErrorMessages.functionResponseTurnOrder);
    const callFirst = { contents: [twoCalls, { role: 'user', parts: [result('Paris'), result('Tokyo')] }] };
    expectGoogleError(await post(fake, callFirst), 400, 'INVALID_ARGUMENT', googleErrorMessages.functionCallTurnOrder);
  });

  it('validates key, model and request shape', async () => {
    const fake = await start(() => ({ text: 'ok' }), { apiKey: 'right-key' });
    const hello = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };

    expectGoogleError(
      await post(fake, hello, { key: null }),
      403,
      'PERMISSION_DENIED',
      googleErrorMessages.missingApiKey,
    );
    const badKey = await post(fake, hello, { key: 'wrong' });
    expectGoogleError(badKey, 400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.');
    expect(badKey.json.error.details[0].reason).toBe('API_KEY_INVALID');
    expect((await post(fake, hello, { key: 'right-key' })).status).toBe(200);
    expectGoogleError(
      await post(fake, hello, { key: 'right-key', model: 'gpt-4o' }),
      404,
      'NOT_FOUND',
      'models/gpt-4o is not found for API version v1beta, or is not supported for streamGenerateContent. Call ListModels to see the list ' +
        'of available models and their supported methods.',
    );
    const ok = { key: 'right-key' };
    expectGoogleError(
      await post(fake, { contents: [] }, ok),
      400,
      'INVALID_ARGUMENT',
      googleErrorMessages.contentsNotSpecified,
    );
    expectGoogleError(
      await post(fake, { contents: [{ role: 'assistant', parts: [{ text: 'hi' }] }] }, ok),
      400,
      'INVALID_ARGUMENT',
      'Please use a valid role: user, model.',
    );
    expectGoogleError(
      await post(fake, { contents: [{ role: 'user', parts: [] }] }, ok),
      400,
      'INVALID_ARGUMENT',
      googleErrorMessages.partsEmpty(0),
    );
    expectGoogleError(
      await post(fake, { contents: [{ role: 'user', parts: [{ text: 'hi', function_call: {} }] }] }, ok),
      400,
      'INVALID_ARGUMENT',
      `Invalid JSON payload received. Unknown name "function_call" at 'contents[0].parts[0]': Cannot find field.`,
    );
    expectGoogleError(
      await post(
        fake,
        { ...hello, generationConfig: { thinkingConfig: { thinkingBudget: 10, thinkingLevel: 'low' } } },
        ok,
      ),
      400,
      'INVALID_ARGUMENT',
      'You can only set only one of thinking budget and thinking level.',
    );
    expect(fake.rejections).toHaveLength(8);
    expect(fake.requests).toHaveLength(9);
  });
});
