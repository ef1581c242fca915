import { z } from 'zod';
import { agentWireSchema } from '../../resources/agents/agent-config-form.ts';
import type { ApiOperation } from '../kit/api-operation.ts';
import { NATIVE_ERRORS } from '../kit/error-body-schemas.ts';
import { listEnvelopeSchema } from '../kit/list-envelope-schema.ts';
import { pageQuerySchema } from '../kit/page-query.ts';
import { replaceAgentBody } from './agent-routes.ts';
import { agentSchema } from './agent-view-schemas.ts';

const tag = 'Agents';
const agentName = { name: "The agent's name." };

/** `/v1/agents` (agent-routes.ts), for the API document. */
export const AGENT_OPERATIONS: readonly ApiOperation[] = [
  {
    method: 'POST',
    route: '/v1/agents',
    operationId: 'createAgent',
    summary: 'Create an agent',
    description: 'The same snake_case form as `agents:` in baton.yaml.',
    tag,
    body: { schema: agentWireSchema },
    responses: { 201: { description: 'The agent, at version 1.', schema: agentSchema } },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'GET',
    route: '/v1/agents',
    operationId: 'listAgents',
    summary: 'List agents',
    tag,
    query: pageQuerySchema,
    responses: { 200: { description: 'A page of agents.', schema: listEnvelopeSchema(agentSchema) } },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'GET',
    route: '/v1/agents/:name',
    operationId: 'getAgent',
    summary: 'Get an agent',
    tag,
    pathParams: agentName,
    responses: { 200: { description: 'The agent.', schema: agentSchema } },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'PUT',
    route: '/v1/agents/:name',
    operationId: 'replaceAgent',
    summary: 'Replace an agent',
    description:
      'A new version of the whole definition; turns paused on the old version finish on it. `expected_version` ' +
      'makes the replace conditional (409 `agent_version_mismatch` when another update came first).',
    tag,
    pathParams: agentName,
    body: { schema: replaceAgentBody },
    responses: { 200: { description: 'The agent at its new version.', schema: agentSchema } },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'DELETE',
    route: '/v1/agents/:name',
    operationId: 'deleteAgent',
    summary: 'Delete an agent',
    tag,
    pathParams: agentName,
    responses: {
      200: {
        description: 'Deleted.',
        schema: z.object({ object: z.literal('agent.deleted'), name: z.string(), deleted: z.literal(true) }),
      },
    },
    errors: NATIVE_ERRORS,
  },
];
