/**
 * The resources' one public entry: what faces and the server use. Apps, keys, agents, tools,
 * toolsets and secrets, their rules, and the tool-kind registry live behind it.
 */
export { Resources, type ResourcesOptions } from './resources.ts';
export { appResourceName } from './apps/app-access.ts';
export { bootstrapAdminKey, hashApiKey } from './keys/api-keys.ts';
export { ensureDefaultApp } from './apps/app-records.ts';
export type { ApiKeyCache } from './keys/api-key-cache.ts';
export { serverKeys, type ServerKeys } from './keys/server-keys.ts';
export { AgentService } from './agents/agent-service.ts';
export type { AgentInput } from './agents/agent-definition.ts';
export type { ResourceRequestSchemas } from './app-resources/app-resource-service.ts';
export { isJsonObject } from './json-objects.ts';
export type { ServerTools } from './tools/server-tools.ts';
export type { ToolSources } from './tools/app-tool-catalog.ts';
export { TOOL_KINDS, ToolKindRegistry } from './tool-kinds/registry.ts';
export type { ToolKind } from './tool-kinds/tool-kind.ts';
export { WebhookDelivery } from './webhooks/webhook-delivery.ts';
export { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from './webhooks/webhook-settings.ts';
export type { IssuedEndpoint } from './webhooks/webhook-service.ts';
