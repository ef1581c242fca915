import { OPEN_RESPONSES_DOCS } from '../../faces/responses/response-operations.ts';
import type { ApiTag } from './openapi-document.ts';

/** The groups of the reference page, in its order. */
export const API_TAGS: readonly ApiTag[] = [
  {
    name: 'Threads',
    description:
      'The SipPulse dialect: threads and messages. A turn that needs client tools answers `finish_reason: "tool_use"` ' +
      'with `tool_calls`; send their results as `tool_result` blocks and it resumes.',
  },
  {
    name: 'Ledger',
    description:
      'Every client-executed call and approval as a record with its own state: list them across conversations, ' +
      'answer one at a time, decide approvals, follow changes live.',
  },
  {
    name: 'Agents',
    description: 'Native agent definitions, versioned: a paused turn keeps the version it started with.',
  },
  {
    name: 'Apps and keys',
    description: 'Apps (tenants) and their API keys, with roles reader < member < admin < operator.',
  },
  {
    name: 'Webhooks',
    description:
      'Endpoints the app is told of pending calls, decisions and finished turns: signed as Standard Webhooks says, ' +
      'written to an outbox with the change, retried with backoff, listed per delivery.',
  },
  {
    name: 'Data lifecycle',
    description:
      "Exports and the audit trail: an app's conversations as NDJSON, and its deletions, exports, retention runs and purges.",
  },
  {
    name: 'Responses',
    description:
      'OpenAI-compatible Open Responses: the `openai` client works unchanged. Objects and events are the ' +
      "specification's, linked rather than repeated here.",
    externalDocs: OPEN_RESPONSES_DOCS,
  },
  {
    name: 'Responses (Nodexa dialect)',
    description:
      'The Responses API under `/nodexa/v1`, where a response waiting for client tools is `requires_action`.',
    externalDocs: OPEN_RESPONSES_DOCS,
  },
  {
    name: 'Chat Completions',
    description: "OpenAI's Chat Completions over Baton agents, and the models a request may name.",
  },
  { name: 'CES apps', description: 'Google CES resources (AIP): apps. Errors are google.rpc.Status bodies.' },
  { name: 'CES agents', description: 'CES agents of an app.' },
  { name: 'CES tools', description: 'CES tools: client functions, OpenAPI tools, JavaScript functions.' },
  { name: 'CES toolsets', description: 'CES toolsets: MCP servers and OpenAPI documents.' },
  { name: 'CES secrets', description: 'Encrypted secrets toolsets authenticate with; their values are never shown.' },
  {
    name: 'CES sessions',
    description: '`runSession` with `toolCalls` / `toolResponses`, and the conversations sessions leave.',
  },
  { name: 'MCP', description: 'The management MCP server (Streamable HTTP, stateless).' },
  { name: 'Operations', description: 'Probes, metrics and this document: no key needed unless stated.' },
];
