import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpToolsetClients, type McpServerTarget } from '../../../src/tools/mcp/mcp-toolset-client.ts';
import { startEverything, type Everything } from '../../helpers/server-everything.ts';
import { freePort } from '../../reliability/baton-process.ts';

describe('MCP toolsets: the SDK client against server-everything over Streamable HTTP', () => {
  let everything: Everything;
  let target: McpServerTarget;
  const clients = new McpToolsetClients();

  beforeAll(async () => {
    everything = await startEverything();
    // Loopback is refused by default; the test allows it explicitly, as an operator would.
    target = { serverAddress: everything.url, policy: { allow: ['127.0.0.0/8'] } };
  }, 30_000);
  afterAll(async () => {
    await clients.close();
    await everything?.stop();
  });

  it('lists the tools with their descriptions and input schemas', async () => {
    const tools = await clients.listTools(target);
    const echo = tools.find((tool) => tool.name === 'echo');
    expect(echo?.description).toBeTruthy();
    expect(echo?.inputSchema).toMatchObject({ type: 'object', properties: { message: expect.any(Object) } });
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['get-sum', 'get-tiny-image']));
  });

  it('maps text, image and structured results, reusing one connection', async () => {
    const signal = new AbortController().signal;
    expect(await clients.callTool(target, undefined, 'echo', { message: 'hi' }, signal)).toEqual({
      output: [{ type: 'text', text: 'Echo: hi' }],
      isError: false,
    });
    const sum = await clients.callTool(target, undefined, 'get-sum', { a: 2, b: 3 }, signal);
    expect(sum.output[0]).toMatchObject({ type: 'text', text: expect.stringContaining('5') });
    const image = await clients.callTool(target, undefined, 'get-tiny-image', {}, signal);
    expect(
      image.output.some((part) => part.type === 'image' && part.mediaType === 'image/png' && part.data.length > 0),
    ).toBe(true);
  });

  it('reports an unknown tool as an error result or a thrown protocol error, never a hang', async () => {
    const outcome = await clients.callTool(target, undefined, 'no-such-tool', {}, new AbortController().signal).then(
      (result) => result.isError,
      (error: Error) => error.message,
    );
    expect(outcome === true || /no-such-tool|not found/i.test(String(outcome))).toBe(true);
  });

  it('refuses loopback when the egress policy does not allow it', async () => {
    await expect(clients.listTools({ ...target, policy: { allow: [] } })).rejects.toThrow(
      /127\.0\.0\.1|loopback|egress/i,
    );
  });

  it('fails clearly when the server is down', async () => {
    const port = await freePort();
    await expect(clients.listTools({ ...target, serverAddress: `http://127.0.0.1:${port}/mcp` })).rejects.toThrow();
  });
});
