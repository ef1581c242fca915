import type { JsonObject } from '../../domain/records.ts';
import type { ToolKindRegistry } from '../tool-kinds/registry.ts';
import { checkDuration, checkRequireApproval, checkToolFakeConfig, type RuleContext } from './common-rules.ts';

/** Settings every Tool and Toolset has, whatever its kind: mutable, and filterable in lists. */
export const COMMON_SETTINGS = ['executionType', 'timeout', 'toolFakeConfig', 'requireApproval'] as const;

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
  checkDuration(body.timeout, `${singular}.timeout`);
  checkToolFakeConfig(body.toolFakeConfig, `${singular}.toolFakeConfig`);
  const found = kinds.memberOf(collection, body);
  checkRequireApproval(body, `${singular}.requireApproval`, found?.kind);
  await collectionRules();
  if (!found) return body;
  return {
    ...body,
    [found.kind.key]: await found.kind.validate(context, found.member, `${singular}.${found.kind.key}`),
  };
}
