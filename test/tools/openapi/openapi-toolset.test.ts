import { describe, expect, it } from 'vitest';
import { OpenApiError } from '../../../src/tools/openapi/openapi-error.ts';
import { OpenApiToolset } from '../../../src/tools/openapi/openapi-toolset.ts';
import type { IncomingResponse, OutgoingRequest, SendFunction } from '../../../src/tools/openapi/openapi-types.ts';
import { THINGS_YAML } from './openapi-test-docs.ts';

/** A `send` that records requests and answers with a fixed response. */
function recorder(answer: Partial<IncomingResponse> = {}): { send: SendFunction; sent: OutgoingRequest[] } {
  const sent: OutgoingRequest[] = [];
  return {
    sent,
    send: async (request) => {
      sent.push(request);
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: Buffer.from('{}'),
        truncated: false,
        ...answer,
      };
    },
  };
}

describe('OpenApiToolset', () => {
  it('lists tool definitions and calls through the injected send with auth merged', async () => {
    const toolset = await OpenApiToolset.fromText(THINGS_YAML, { url: 'https://staging.example/api/' });
    expect(toolset.tools.map((tool) => Object.keys(tool))).toEqual([
      ['name', 'description', 'parameters'],
      ['name', 'description', 'parameters'],
    ]);
    const { send, sent } = recorder({ body: Buffer.from('{"name":"lamp","internal":1}') });
    const output = await toolset.call(
      'getThing',
      { thingId: 't1', 'X-Trace': 'abc', fields: ['a', 'b'] },
      { send, auth: { query: { key: 'k' } } },
    );
    expect(output).toEqual({ isError: false, text: '{"name":"lamp","internal":1}' });
    expect(sent).toEqual([
      {
        method: 'GET',
        url: 'https://staging.example/api/things/t1?fields=a&fields=b&key=k',
        headers: { accept: 'application/json, */*;q=0.8', 'x-trace': 'abc' },
        // Named, so that a redirect to another origin drops them.
        credentials: { headers: [], query: ['key'] },
      },
    ]);
  });

  it('drops unknown response fields when created with ignoreUnknownFields', async () => {
    const toolset = await OpenApiToolset.fromText(THINGS_YAML, { ignoreUnknownFields: true });
    const { send } = recorder({
      body: Buffer.from('{"id":"t1","name":"lamp","internal":1,"parts":[{"label":"x","cost":3}]}'),
    });
    expect((await toolset.call('getThing', { thingId: 't1', 'X-Trace': 'abc' }, { send })).text).toBe(
      '{"id":"t1","name":"lamp","parts":[{"label":"x"}]}',
    );
  });

  it('keeps only the selected tools', async () => {
    const toolset = await OpenApiToolset.fromText(THINGS_YAML, { toolIds: ['putThing'] });
    expect(toolset.tools.map((tool) => tool.name)).toEqual(['putThing']);
    expect((await toolset.call('getThing', {}, recorder())).text).toBe(
      "unknown tool 'getThing'; this toolset has putThing",
    );
  });

  it('returns error results, never throws, for bad arguments and network failures', async () => {
    const toolset = await OpenApiToolset.fromText(THINGS_YAML);
    const { send, sent } = recorder();
    expect(await toolset.call('getThing', { thingId: 1 }, { send })).toEqual({
      isError: true,
      text: "invalid arguments for getThing: the arguments must have required property 'X-Trace'; 'thingId' must be string",
    });
    expect(sent).toHaveLength(0);

    const failing: SendFunction = async () => {
      throw new Error('connect ECONNREFUSED');
    };
    const output = await toolset.call(
      'getThing',
      { thingId: 't', 'X-Trace': 'x' },
      { send: failing, auth: { query: { api_key: 'SECRET' } } },
    );
    expect(output).toEqual({
      isError: true,
      text: 'GET https://eu.things.example/api/things/t failed: connect ECONNREFUSED',
    });
  });

  it('is not created from a document it cannot serve', async () => {
    await expect(
      OpenApiToolset.fromText('openapi: 3.0.0\ninfo: {title: x, version: "1"}\nservers: [{url: /v1}]\npaths: {}'),
    ).rejects.toThrow(/relative: set the url field/);
    await expect(OpenApiToolset.fromText(THINGS_YAML, { toolIds: ['nope'] })).rejects.toThrow(OpenApiError);
  });
});
