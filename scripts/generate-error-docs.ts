/**
 * Writes docs/errors.md from the error catalogue (src/domain/errors/error-catalogue.ts):
 * `npm run docs:errors`. test/domain/error-catalogue.test.ts fails when the page differs from what
 * `renderErrorDocs()` returns, so a catalogue change and its page land together.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BatonError } from '../src/domain/errors/baton-error.ts';
import { ERROR_CATALOGUE, type ErrorCode, type ErrorEntry } from '../src/domain/errors/error-catalogue.ts';
import { googleErrorBody } from '../src/faces/ces/ces-errors.ts';

export const ERROR_DOCS_PATH = fileURLToPath(new URL('../docs/errors.md', import.meta.url));

const INTRO = `# Errors

<!-- Generated from src/domain/errors/error-catalogue.ts by \`npm run docs:errors\`; do not edit by hand. -->

Every error Baton answers with carries a stable \`code\` from the catalogue below. The code fixes the
HTTP status of the native and Responses APIs and the google.rpc status of the CES API; the message
names the field or id at fault and what to do next. Each face renders the same error in its own
format.

## Error bodies

### Native API (Threads, ledger, agents, admin)

\`/v1/threads\`, \`/v1/tool-calls\`, \`/v1/agents\`, \`/v1/apps\`, \`/v1/api-keys\` and \`/v1/me\` (and
unknown URLs outside the other faces' prefixes) answer with the HTTP status of the table and:

\`\`\`json
{
  "error": {
    "type": "conflict_error",
    "code": "tool_calls_pending",
    "message": "Thread 'thread_…' is waiting for the results of tool calls call_…. …",
    "param": null,
    "pending_tool_call_ids": ["call_…"]
  }
}
\`\`\`

\`type\` follows from the status: \`invalid_request_error\` (400, 413, 415, 422, 501),
\`authentication_error\` (401), \`permission_error\` (403), \`not_found_error\` (404), \`conflict_error\`
(409), \`model_error\` (502), \`api_error\` (429, 500, 503). \`param\` is the request field at fault, as a
path such as \`content[1].tool_call_id\`, or \`null\`; machine-readable details (pending call ids, the
referrers of a resource…) sit beside it. A turn that fails is answered as an error too, with
\`thread_id\` and \`turn_id\`; a streamed request that fails after its stream opened ends with an
\`error\` event carrying the same body.

### Responses API (OpenAI)

\`/v1/responses\` answers as OpenAI does, so the \`openai\` SDKs raise their usual exceptions:

\`\`\`json
{
  "error": {
    "message": "No tool output found for function call call_….",
    "type": "invalid_request_error",
    "param": "input",
    "code": "tool_call_without_output"
  }
}
\`\`\`

\`type\` is \`invalid_request_error\` for 4xx, \`rate_limit_error\` for 429 and \`server_error\` for 5xx.
The engine's rules are reworded in OpenAI's terms: \`invalid_tool_call_id\` becomes
\`tool_output_without_call\`, \`missing_tool_results\` becomes \`tool_call_without_output\`,
\`agent_not_found\` becomes \`model_not_found\`, and a \`param\` ending in \`tool_call_id\` ends in \`call_id\`.
On the WebSocket (\`GET /v1/responses\` upgraded) the same body arrives as \`{"type": "error", "status",
"error": {…}}\`. A response whose turn fails is not an HTTP error: it has \`status: "failed"\` and
\`error: {code, message}\`, with codes such as \`model_error\`, \`interrupted\` or \`tool_call_expired\`
(streamed as an \`error\` event, then \`response.failed\`).

### CES API (google.rpc.Status)

\`/v1/projects/…\` answers with a google.rpc.Status, whose HTTP code is that of the google.rpc status
(413 and 415 keep their own):

\`\`\`json
{
  "error": {
    "code": 400,
    "message": "app.displayName is required.",
    "status": "INVALID_ARGUMENT",
    "details": [
      {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": "REQUIRED_FIELD",
        "domain": "baton",
        "metadata": {}
      },
      {
        "@type": "type.googleapis.com/google.rpc.BadRequest",
        "fieldViolations": [{ "field": "app.displayName", "description": "app.displayName is required." }]
      }
    ]
  }
}
\`\`\`

\`ErrorInfo.reason\` is the code in upper case; its \`metadata\` holds the details as strings (keys in
camelCase, lists joined with commas, e.g. \`"pendingToolCallIds": "call_1,call_2"\`). \`BadRequest\` is
present when a field is at fault. A
\`streamRunSession\` that fails after its stream opened sends the same body as its last event.

### MCP (\`/mcp\`)

A failing \`tools/call\` is a tool result with \`isError: true\` whose text is the google.rpc.Status body
above, so the model reads what to fix. Errors that stop a request before the MCP server sees it
(authentication, malformed JSON, a body that is not JSON-RPC, body size, content type, idempotency)
are JSON-RPC errors with the HTTP status of the table:

\`\`\`json
{
  "jsonrpc": "2.0",
  "error": {
    "code": -32001,
    "message": "Missing API key: …",
    "data": { "error": { "code": 401, "status": "UNAUTHENTICATED", "…": "…" } }
  },
  "id": null
}
\`\`\`

The JSON-RPC code is -32700 for \`invalid_json\`, -32600 for the other 400, 413 and 415 errors, -32001
for 401, -32603 for 500 and -32000 for the rest; \`data\` is the google.rpc.Status body.

## Codes

Faces: \`threads\` /v1/threads, \`responses\` /v1/responses, \`ces\` /v1/projects/…, \`mcp\` /mcp,
\`ledger\` /v1/tool-calls, \`agents\` /v1/agents, \`admin\` /v1/apps, /v1/api-keys and /v1/me; \`all\`
any request. The google.rpc column is what the CES face and the MCP server answer with, and the HTTP
code that goes with it there.
`;

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function row(code: ErrorCode): string {
  const entry: ErrorEntry = ERROR_CATALOGUE[code];
  // Rendered by the CES face itself, so the column cannot drift from what it answers.
  const google = googleErrorBody(new BatonError(code, code));
  const grpc = (google.body as { error: { status: string } }).error.status;
  return `| \`${code}\` | ${entry.status} | \`${grpc}\` (${google.status}) | ${entry.faces.join(', ')} | ${cell(entry.meaning)} |`;
}

/** The whole page, as `npm run docs:errors` writes it. */
export function renderErrorDocs(): string {
  const codes = Object.keys(ERROR_CATALOGUE) as ErrorCode[];
  const table = [
    '| Code | HTTP | google.rpc (CES) | Faces | Meaning |',
    '| --- | --- | --- | --- | --- |',
    ...codes.map(row),
  ];
  return `${INTRO}\n${table.join('\n')}\n`;
}

function isMain(): boolean {
  const entry = process.argv[1];
  return entry !== undefined && resolve(entry) === fileURLToPath(import.meta.url);
}

if (isMain()) {
  writeFileSync(ERROR_DOCS_PATH, renderErrorDocs());
  console.log(`Wrote ${ERROR_DOCS_PATH} (${Object.keys(ERROR_CATALOGUE).length} codes).`);
}
