import { z } from 'zod';
import { unsupportedMember } from '../tools/common-schemas.ts';
import { listRequestFields } from '../aip/list-resources.ts';

/** The CES Agent message as Baton accepts it, and the request messages of its five methods. */

const outputOnly = (what: string) => z.string().optional().describe(`Output only: ${what}. Ignored on input.`);
// Baton keeps these and returns them unchanged, but does not act on them yet.
const keptAsIs = (what: string) =>
  z
    .array(z.record(z.string(), z.unknown()))
    .optional()
    .describe(`${what}. Stored and returned; Baton does not run them yet.`);

/** Agent fields Baton stores in `definition.extras` and returns unchanged. */
export const AGENT_EXTRA_FIELDS = [
  'childAgents',
  'beforeAgentCallbacks',
  'afterAgentCallbacks',
  'beforeModelCallbacks',
  'afterModelCallbacks',
  'beforeToolCallbacks',
  'afterToolCallbacks',
  'guardrails',
  'transferRules',
] as const;

export const agentSchema = z.strictObject({
  name: z
    .string()
    .optional()
    .describe('projects/{p}/locations/{l}/apps/{a}/agents/{agent}. Ignored on create; identifies the agent on update.'),
  displayName: z.string().optional().describe('Required.'),
  description: z.string().optional(),
  instruction: z.string().optional().describe("The agent's instructions (system prompt)."),
  modelSettings: z
    .strictObject({
      model: z
        .string()
        .optional()
        .describe(
          'Baton model id, e.g. "openai:gpt-4o-mini" or "scripted:auto". Default: the app\'s modelSettings.model, else "scripted:auto".',
        ),
      temperature: z.number().optional().describe('0 to 2.'),
      providerOptions: z
        .record(z.string(), z.record(z.string(), z.unknown()))
        .optional()
        .describe(
          'Options passed to the provider, by namespace, e.g. {"anthropic": {"thinking": {"type": "enabled", "budgetTokens": 4000}}}. See ' +
            'docs/provider-options.md.',
        ),
    })
    .optional(),
  tools: z
    .array(z.string())
    .optional()
    .describe('Tools of this app the agent may call: projects/{p}/locations/{l}/apps/{a}/tools/{tool}.'),
  toolsets: z
    .array(
      z.strictObject({
        toolset: z.string().optional().describe('Required. projects/{p}/locations/{l}/apps/{a}/toolsets/{toolset}.'),
        toolIds: z.array(z.string()).optional().describe('Only these tools of the toolset; all when empty.'),
      }),
    )
    .optional(),
  llmAgent: z.strictObject({}).optional().describe('One of agent_type (the default): a model-driven agent.'),
  remoteDialogflowAgent: unsupportedMember('Dialogflow CX is a Google Cloud service; use llmAgent.'),
  childAgents: z
    .array(z.string())
    .optional()
    .describe('Agents of this app this agent may transfer to. Stored and returned; Baton does not transfer yet.'),
  beforeAgentCallbacks: keptAsIs('Callbacks'),
  afterAgentCallbacks: keptAsIs('Callbacks'),
  beforeModelCallbacks: keptAsIs('Callbacks'),
  afterModelCallbacks: keptAsIs('Callbacks'),
  beforeToolCallbacks: keptAsIs('Callbacks'),
  afterToolCallbacks: keptAsIs('Callbacks'),
  guardrails: z
    .array(z.string())
    .optional()
    .describe('Guardrail names. Stored and returned; Baton does not enforce them yet.'),
  transferRules: keptAsIs('Transfer rules'),
  createTime: outputOnly('RFC 3339 creation time'),
  updateTime: outputOnly('RFC 3339 time of the last update'),
  etag: z
    .string()
    .optional()
    .describe('On update: the etag you read. A stale one is ABORTED; empty means the last write wins.'),
  generatedSummary: outputOnly('a summary of the agent'),
  validationErrors: z.array(z.unknown()).optional().describe('Output only. Ignored on input.'),
});

export const createAgentRequestSchema = z.strictObject({
  parent: z.string().describe('The app: projects/{p}/locations/{l}/apps/{a}.'),
  agentId: z
    .string()
    .optional()
    .describe('^[a-zA-Z0-9_-]{1,64}$; generated when absent. Also the model name to use in the Responses API.'),
  agent: agentSchema,
});

export const getAgentRequestSchema = z.strictObject({
  name: z.string().describe('projects/{p}/locations/{l}/apps/{a}/agents/{agent}.'),
});

export const listAgentsRequestSchema = z.strictObject({
  parent: z.string().describe('The app: projects/{p}/locations/{l}/apps/{a}.'),
  ...listRequestFields,
});

export const updateAgentRequestSchema = z.strictObject({
  agent: agentSchema.describe('The agent; `name` says which one.'),
  updateMask: z
    .string()
    .optional()
    .describe(
      'Comma-separated camelCase paths, e.g. "instruction,modelSettings.temperature". Absent or "*" replaces every field.',
    ),
});

export const deleteAgentRequestSchema = z.strictObject({
  name: z.string().describe('projects/{p}/locations/{l}/apps/{a}/agents/{agent}.'),
  force: z
    .boolean()
    .optional()
    .describe("Also clear the app's rootAgent and other agents' childAgents that refer to it."),
  etag: z.string().optional().describe('Delete only if the agent still has this etag.'),
});
