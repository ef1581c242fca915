import { BatonError } from '../domain/errors/baton-error.ts';
import type { ClientToolDefinition } from '../domain/records.ts';
import { parseAllowedOrigin } from '../faces/mcp/mcp-origins.ts';
import { validateModelId, type ModelRegistryOptions } from '../models/model-registry.ts';
import type { ScriptedProgram } from '../models/scripted/scripted-program-contract.ts';
import { parseScriptedProgram } from '../models/scripted/scripted-program.ts';
import { agentFromWire, agentWireSchema, toolFromWire, toolWireSchema } from '../resources/agents/agent-config-form.ts';
import { buildAgentDefinition } from '../resources/agents/agent-definition.ts';
import { compileEgressPolicy } from '../tools/http/address-policy.ts';
import type { ConfigProblem } from './config-issues.ts';

/**
 * The rules of baton.yaml beyond its shape, checked when the file is read rather than when the
 * server first needs them: the ones the resources and models apply (agent and tool names, tool
 * schemas, model ids), egress entries and MCP origins. Each is checked on its own, so one broken
 * entry does not hide another.
 */
export interface ConfigRuleInputs {
  /** `agents:` as written; an agent whose shape is wrong (reported already) is skipped. */
  agents: unknown;
  /** `scripted:` as written: programs as mappings (their shape is the file's) or as YAML text. */
  scripted: unknown;
  /** The providers model ids are checked against; null when `providers:` has problems of its own (ids go unchecked). */
  providers: ModelRegistryOptions['providers'] | null;
  /** The egress allow-list and where it came from (`egress.allow`, or the environment's `BATON_EGRESS_ALLOW`). */
  egressAllow: { entries: readonly string[]; at: readonly PropertyKey[] };
  /** `mcp.allowed_origins` as written. */
  mcpAllowedOrigins: unknown;
}

export function configRuleProblems(inputs: ConfigRuleInputs): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const { programs, broken } = scriptedPrograms(inputs.scripted, problems);
  const models = inputs.providers === null ? null : { providers: inputs.providers, scriptedPrograms: programs };
  checkAgents(inputs.agents, models, broken, problems);
  inputs.egressAllow.entries.forEach((entry, index) => {
    try {
      compileEgressPolicy({ allow: [entry] });
    } catch (error) {
      // The policy names the entry by its place in a list of one; the path says where it is.
      const message = (error as Error).message.replace(/^\S+\[\d+\] /, '');
      problems.push({ at: [...inputs.egressAllow.at, index], message });
    }
  });
  if (Array.isArray(inputs.mcpAllowedOrigins)) {
    inputs.mcpAllowedOrigins.forEach((origin: unknown, index) => {
      if (typeof origin !== 'string') return;
      try {
        parseAllowedOrigin(origin);
      } catch (error) {
        problems.push({ at: ['mcp', 'allowed_origins', index], message: (error as Error).message });
      }
    });
  }
  return problems;
}

/**
 * The programs model ids may name. A program written as text is parsed here (its problems
 * reported); a broken one is remembered, so an agent naming it is not also told it does not exist.
 */
function scriptedPrograms(
  scripted: unknown,
  problems: ConfigProblem[],
): { programs: Record<string, ScriptedProgram>; broken: Set<string> } {
  const programs: Record<string, ScriptedProgram> = {};
  const broken = new Set<string>();
  if (typeof scripted !== 'object' || scripted === null || Array.isArray(scripted)) return { programs, broken };
  for (const [name, source] of Object.entries(scripted)) {
    try {
      programs[name] = parseScriptedProgram(source, name);
    } catch (error) {
      broken.add(name);
      // A mapping's problems were reported with the file's shape, field by field.
      if (typeof source === 'string') problems.push({ at: ['scripted', name], message: (error as Error).message });
    }
  }
  return { programs, broken };
}

/**
 * Each agent's rules, as the server applies them when it creates the agent: its own settings
 * (after a bad name, the rest too), then each tool alone, so that every bad tool is named, then the
 * tools together (duplicate names, how many). A part whose shape is wrong (reported already) is
 * skipped, not the whole agent.
 */
function checkAgents(
  agents: unknown,
  models: ModelRegistryOptions | null,
  brokenPrograms: ReadonlySet<string>,
  problems: ConfigProblem[],
): void {
  if (!Array.isArray(agents)) return;
  agents.forEach((raw: unknown, index) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return;
    const rawTools: unknown = (raw as { tools?: unknown }).tools;
    const report = (error: BatonError | null, toolIndex?: number): boolean => {
      if (error === null) return false;
      let param = error.param ?? '';
      let message = error.message;
      if (toolIndex !== undefined) {
        // The tool was checked alone, as tools[0]: put it back in its place.
        param = param.replace(/^tools\[0\]/, `tools[${toolIndex}]`);
        message = message.replaceAll('tools[0]', `tools[${toolIndex}]`);
      }
      // The rule's message may repeat where it is ("… at tools[0].name: …"); the path says it once.
      if (param !== '') message = message.replace(` at ${param}`, '');
      problems.push({ at: ['agents', index, ...paramSegments(param)], message });
      return true;
    };

    const settings = agentWireSchema.safeParse({ ...raw, tools: [] });
    if (settings.success) {
      const input = agentFromWire(settings.data);
      const program = input.model.startsWith('scripted:') ? input.model.slice('scripted:'.length) : null;
      const checkModel = (modelId: string): void => {
        // Unchecked when the providers are unknown, or the program it names is broken (reported already).
        if (models === null || (program !== null && brokenPrograms.has(program))) return;
        validateModelId(modelId, models);
      };
      const own = attempt(() => buildAgentDefinition(input, checkModel));
      report(own);
      if (own?.param === 'name') report(attempt(() => buildAgentDefinition({ ...input, name: 'agent' }, checkModel)));
    }

    if (!Array.isArray(rawTools)) return;
    const tools = rawTools.map((tool: unknown) => toolWireSchema.safeParse(tool));
    let allValid = true;
    tools.forEach((tool, toolIndex) => {
      if (!tool.success) allValid = false;
      else if (
        report(
          attempt(() => buildToolAlone(toolFromWire(tool.data))),
          toolIndex,
        )
      )
        allValid = false;
    });
    if (allValid) {
      const definitions = tools.flatMap((tool) => (tool.success ? [toolFromWire(tool.data)] : []));
      report(
        attempt(() => buildAgentDefinition({ name: 'agent', model: 'scripted:auto', tools: definitions }, () => {})),
      );
    }
  });
}

/** A tool's rules, checked in an agent that has no other. */
function buildToolAlone(tool: ClientToolDefinition): void {
  buildAgentDefinition({ name: 'agent', model: 'scripted:auto', tools: [tool] }, () => {});
}

/** The rule a check breaks, or null. */
function attempt(check: () => unknown): BatonError | null {
  try {
    check();
    return null;
  } catch (error) {
    if (error instanceof BatonError) return error;
    throw error;
  }
}

/** `tools[0].name` → `['tools', 0, 'name']`. */
function paramSegments(param: string): PropertyKey[] {
  const segments: PropertyKey[] = [];
  for (const [, index, key] of param.matchAll(/\[(\d+)\]|([^.[\]]+)/g)) {
    if (index !== undefined) segments.push(Number(index));
    else if (key !== undefined) segments.push(key);
  }
  return segments;
}
