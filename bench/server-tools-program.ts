/**
 * The scripted model of the server-tools phase (bench/server-tools.ts), given to Baton's child
 * in its config (BENCH_SERVER_TOOLS=1). `price` makes one call of the OpenAPI tool's
 * `lookup_price`, which Baton runs itself; its result gives a second model step, `Done: …`.
 * Any other message is answered `ok` in one step.
 */
export const SERVER_TOOLS_PROGRAM_NAME = 'bench-tools';
export const TOOL_TEXT = 'price';
export const PLAIN_TEXT = 'hello';
export const SERVER_TOOLS_PROGRAM = {
  rules: [
    { when: { user: TOOL_TEXT }, call: { tool: 'lookup_price', arguments: { sku: 'A-1' } } },
    { when: { tool_result: true }, say: 'Done: {{result}}' },
    { say: 'ok' },
  ],
};
