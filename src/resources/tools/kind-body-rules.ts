import { DURATION_RANGES } from '../../domain/duration-ranges.ts';
import type { JsonObject } from '../../domain/records.ts';
import type { ToolKindRegistry } from '../tool-kinds/registry.ts';
import {
  checkDuration,
  checkIdempotent,
  checkRequireApproval,
  checkToolFakeConfig,
  type RuleContext,
} from './common-rules.ts';

/** Settings every Tool and Toolset has, whatever its kind: mutable, and filterable in lists. */
export const COMMON_SETTINGS = ['executionType', 'timeout', 'toolFakeConfig', 'requireApproval', 'idempotent'] as const;

/** Fields the server sets on every Tool and Toolset: filterable, never written by a client. */
export const SERVER_STAMPS = ['createTime', 'updateTime', 'etag'] as const;

/**
 * The rest of a Tool or Toolset body once its oneof holds one kind: the settings every tool has
 * (timeout, fake, approval), then `collectionRules` (what only this collection checks), then the
 * kind's own member. Returns the body to store, with the member as the kind stores it.
 */
export async function checkKindBody(
  context: RuleContext,
  body: JsonObject,
  kinds: ToolKindRegistry,
  resource: { collection: 'tools' | 'toolsets'; singular: 'tool' | 'toolset' },
  collectionRules: () => Promise<void> = async () => {},
): Promise<JsonObject> {
  const { collection, singular } = resource;
  const found = kinds.memberOf(collection, body);
  // A client function's timeout is its pending call's deadline (a person may answer); a tool Baton
  // runs holds a connection for as long as its timeout says, so it gets a much shorter bound.
  if (found?.kind.executor === 'client')
    checkDuration(body.timeout, `${singular}.timeout`, DURATION_RANGES.pendingCall, "the pending call's deadline");
  else checkDuration(body.timeout, `${singular}.timeout`, DURATION_RANGES.serverToolRun, 'how long one call may run');
  checkToolFakeConfig(body.toolFakeConfig, `${singular}.toolFakeConfig`);
  checkRequireApproval(body, `${singular}.requireApproval`, found?.kind);
  checkIdempotent(body, `${singular}.idempotent`, found?.kind);
  await collectionRules();
  if (!found) return body;
  return {
    ...body,
    [found.kind.key]: await found.kind.validate(context, found.member, `${singular}.${found.kind.key}`),
  };
}
