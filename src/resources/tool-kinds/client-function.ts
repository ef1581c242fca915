import { z } from 'zod';
import { BatonError } from '../../domain/errors/baton-error.ts';
import type { ClientToolDefinition } from '../../domain/records.ts';
import { asObject } from '../json-objects.ts';
import { toJsonSchema } from '../tools/ces-schema.ts';
import { toolSchemaObject } from '../tools/common-schemas.ts';
import { DURATION_RANGES } from '../../domain/duration-ranges.ts';
import { storedDurationSeconds } from '../tools/duration.ts';
import { checkFunction, declaredFunction, functionName } from './function-declaration.ts';
import type { ClientToolKind } from './tool-kind.ts';

/**
 * `clientFunction`: a function the calling application runs. The turn pauses until the client
 * sends the result (an ASYNCHRONOUS one goes on and the result arrives later); the Tool's timeout
 * is the pending call's deadline.
 */
export const clientFunctionKind: ClientToolKind = {
  key: 'clientFunction',
  collection: 'tools',
  executor: 'client',
  description: 'One of tool_type: a function the client runs; the turn pauses until it answers.',
  schema: z.strictObject({
    name: z.string().optional().describe('Required. ^[a-zA-Z0-9_-]{1,64}$; the name the model calls.'),
    description: z.string().optional(),
    parameters: toolSchemaObject.optional(),
    response: toolSchemaObject.optional(),
    enforceResponseSchema: z
      .boolean()
      .optional()
      .describe('Baton: refuse a result that is not JSON valid against `response` (400 INVALID_ARGUMENT).'),
    executor: z
      .enum(['CLIENT', 'WORKER'])
      .optional()
      .describe(
        'Baton: WORKER offers its calls to tool workers, which claim them (docs/tool-workers.md). Default CLIENT.',
      ),
    maxAttempts: z
      .number()
      .int()
      .min(1)
      .max(100)
      .optional()
      .describe(
        'Baton: for a WORKER function, how many worker leases may lapse on one call before its deadline policy applies (default 3).',
      ),
  }),
  async validate(_context, member, prefix) {
    checkFunction(member, prefix);
    if (member.enforceResponseSchema === true && asObject(member.response) === undefined) {
      throw new BatonError(
        'invalid_tool_response_schema',
        `${prefix}.enforceResponseSchema needs ${prefix}.response, the schema results are checked against: add it, or leave enforceResponseSchema out.`,
        { param: `${prefix}.enforceResponseSchema` },
      );
    }
    if (member.maxAttempts !== undefined && member.executor !== 'WORKER') {
      throw new BatonError(
        'invalid_tool_executor',
        `${prefix}.maxAttempts applies to WORKER functions only: set ${prefix}.executor to "WORKER", or leave maxAttempts out.`,
        { param: `${prefix}.maxAttempts` },
      );
    }
    return member;
  },
  displayName: functionName,
  definition({ record, member }) {
    const declared = declaredFunction(member);
    if (!declared) return undefined;
    const { body } = record;
    const definition: ClientToolDefinition = declared;
    const response = asObject(member.response);
    if (response) definition.responseSchema = toJsonSchema(response);
    if (response && member.enforceResponseSchema === true) definition.enforceResponseSchema = true;
    const timeout = storedDurationSeconds(body.timeout, DURATION_RANGES.pendingCall);
    if (timeout !== undefined) definition.timeoutSeconds = timeout;
    if (body.executionType === 'ASYNCHRONOUS') definition.asynchronous = true;
    if (member.executor === 'WORKER') definition.executor = 'worker';
    if (typeof member.maxAttempts === 'number') definition.maxAttempts = member.maxAttempts;
    if (asObject(body.toolFakeConfig)?.enableFakeMode === true)
      definition.fake = { collection: 'tools', resourceId: record.id };
    return definition;
  },
};
