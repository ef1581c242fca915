import { ADMIN_OPERATIONS } from '../../faces/admin/admin-operations.ts';
import { AGENT_OPERATIONS } from '../../faces/agents/agent-operations.ts';
import { cesOperations } from '../../faces/ces/ces-operations.ts';
import { CHAT_OPERATIONS } from '../../faces/chat/chat-operations.ts';
import type { ApiOperation } from '../../faces/kit/api-operation.ts';
import { LEDGER_OPERATIONS } from '../../faces/ledger/ledger-operations.ts';
import { LIFECYCLE_OPERATIONS } from '../../faces/lifecycle/lifecycle-operations.ts';
import { MCP_OPERATIONS } from '../../faces/mcp/mcp-operations.ts';
import { RESPONSE_OPERATIONS } from '../../faces/responses/response-operations.ts';
import { THREAD_OPERATIONS } from '../../faces/threads/thread-operations.ts';
import { WEBHOOK_OPERATIONS } from '../../faces/webhooks/webhook-operations.ts';
import type { Resources } from '../../resources/index.ts';
import { SERVER_OPERATIONS } from './server-operations.ts';

/** Every operation the faces and the server list, in the order the reference page shows their groups. */
export function apiOperations(resources: Resources): ApiOperation[] {
  return [
    ...THREAD_OPERATIONS,
    ...LEDGER_OPERATIONS,
    ...AGENT_OPERATIONS,
    ...ADMIN_OPERATIONS,
    ...WEBHOOK_OPERATIONS,
    ...LIFECYCLE_OPERATIONS,
    ...RESPONSE_OPERATIONS,
    ...CHAT_OPERATIONS,
    ...cesOperations(resources),
    ...MCP_OPERATIONS,
    ...SERVER_OPERATIONS,
  ];
}
