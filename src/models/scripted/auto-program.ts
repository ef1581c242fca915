import type { LanguageModelV3FunctionTool } from '@ai-sdk/provider';
import { buildArguments, findFanOut } from './auto-arguments.ts';
import type { JsonSchema } from './json-schema.ts';
import type { ScriptedDecision, ScriptedProgram, ScriptedToolCallPlan } from './scripted-program-contract.ts';
import type { ScriptedToolResult, ScriptedTurn } from './scripted-turn.ts';
import type { Clause, FoundValue } from './text-analysis.ts';
import {
  asksForSeveral,
  contentWords,
  splitClauses,
  splitIdentifier,
  STOP_WORDS,
  truncate,
  stem,
  stemsMatch,
} from './text-analysis.ts';

/**
 * `scripted:auto`: a rule-free program that behaves like a cooperative model, so any agent can be
 * demoed or tested without writing a script.
 *
 * - User message + tools (toolChoice not `none`): call the tool toolChoice names, else the tool
 *   whose name/description best overlaps the message, else the first tool. Several calls when the
 *   message asks for several things and parallel calls are allowed (see `planCalls`).
 * - Tool results arrived: a text summary, one line per result, errors called out explicitly.
 *   Under toolChoice `required`/`tool` a tool is called again instead, as a real model must.
 * - No tools or toolChoice `none`: a deterministic acknowledgement.
 */
export const autoProgram: ScriptedProgram = {
  name: 'auto',
  decide(turn: ScriptedTurn): ScriptedDecision {
    const canCall = turn.tools.length > 0 && turn.toolChoice.type !== 'none';
    const mustCall = canCall && (turn.toolChoice.type === 'required' || turn.toolChoice.type === 'tool');

    if (turn.lastRole === 'tool' && !mustCall) return { kind: 'text', text: summariseResults(turn.toolResults) };
    if (turn.lastRole === 'user' || mustCall) {
      const text = turn.lastUserText ?? '';
      if (canCall) return { kind: 'tool-calls', calls: planCalls(turn, text) };
      return { kind: 'text', text: acknowledge(text, turn.tools.length > 0) };
    }
    return {
      kind: 'text',
      text:
        turn.lastRole === 'assistant'
          ? 'Is there anything else I can help you with?'
          : "Hello! I'm the scripted auto model. Send me a message and I'll respond.",
    };
  },
};

/**
 * Chooses the calls for a request:
 * 1. toolChoice `{ type: 'tool' }` fixes the tool; otherwise the best-scoring tool, else the first.
 * 2. If parallel calls are allowed and the message has several clauses ("… and …") that each match
 *    a different tool, one call per distinct tool, with arguments taken from its clause.
 * 3. Else, if the message lists several values of one kind for the chosen tool ("Paris and
 *    Lisbon"), one call per value.
 * 4. Else a single call.
 */
function planCalls(turn: ScriptedTurn, text: string): ScriptedToolCallPlan[] {
  const named = turn.toolChoice.type === 'tool' ? turn.toolChoice.toolName : undefined;
  const forced = named === undefined ? undefined : turn.tools.find((tool) => tool.name === named);
  const primary = forced ?? bestTool(turn.tools, text) ?? turn.tools[0];
  if (primary === undefined) return [];

  if (turn.parallelToolCalls && asksForSeveral(text)) {
    const clauses = splitClauses(text);
    if (forced === undefined) {
      const perClause: Array<{ tool: LanguageModelV3FunctionTool; clause: Clause }> = [];
      for (const clause of clauses) {
        const tool = bestTool(turn.tools, clause.text);
        if (tool !== undefined && !perClause.some((entry) => entry.tool.name === tool.name)) {
          perClause.push({ tool, clause });
        }
      }
      if (perClause.length >= 2) {
        return perClause.map(({ tool, clause }) => ({ toolName: tool.name, input: argumentsFor(tool, text, clause) }));
      }
    }

    const fanOut = findFanOut(inputSchema(primary), { text, vocabulary: vocabularyOf(primary) });
    if (fanOut !== undefined) {
      // Each value gets the other arguments from its own clause when the values sit in different
      // clauses ("a refund of $20 and a discount of $5"), else from the whole message.
      const clauseOf = (value: FoundValue<unknown>): Clause | undefined =>
        clauses.find((clause) => value.start >= clause.start && value.end <= clause.start + clause.text.length);
      const owners = fanOut.values.map(clauseOf);
      const distinctClauses = new Set(owners).size === owners.length && !owners.includes(undefined);
      return fanOut.values.map((value, index) => ({
        toolName: primary.name,
        input: argumentsFor(primary, text, distinctClauses ? owners[index] : undefined, {
          property: fanOut.property,
          value,
        }),
      }));
    }
  }
  return [{ toolName: primary.name, input: argumentsFor(primary, text, undefined) }];
}

/**
 * Arguments from the whole message, overlaid with what the clause itself says: the clause is the
 * more precise source, the message fills what the clause lacks (and free-text fields).
 */
function argumentsFor(
  tool: LanguageModelV3FunctionTool,
  text: string,
  clause: Clause | undefined,
  preset?: { property: string; value: FoundValue<unknown> },
): Record<string, unknown> {
  const schema = inputSchema(tool);
  const vocabulary = vocabularyOf(tool);
  const whole = buildArguments(schema, { text, vocabulary }, { preset });
  if (clause === undefined || clause.text === text) return whole;
  const shifted =
    preset === undefined
      ? undefined
      : {
          property: preset.property,
          value: { ...preset.value, start: preset.value.start - clause.start, end: preset.value.end - clause.start },
        };
  const local = buildArguments(schema, { text: clause.text, vocabulary }, { preset: shifted, foundOnly: true });
  return { ...whole, ...local };
}

/**
 * Word-overlap score: 3 per tool-name word, 1 per description, parameter-name or enum-value word
 * found in the message (each tool word counted once, stop words ignored). Ties go to the earlier tool.
 */
export function scoreTool(tool: LanguageModelV3FunctionTool, text: string): number {
  const stems = contentWords(text).map(stem);
  const mentioned = (toolStem: string): boolean => stems.some((candidate) => stemsMatch(candidate, toolStem));
  const { nameStems, otherStems } = toolWordsOf(tool);
  let score = 0;
  for (const word of nameStems) if (mentioned(word)) score += 3;
  for (const word of otherStems) if (mentioned(word)) score += 1;
  return score;
}

interface ToolWords {
  /** Stems of the tool name's words. */
  nameStems: readonly string[];
  /** Stems of the description's, parameter names' and enum values' words not in the name. */
  otherStems: readonly string[];
}

/**
 * A tool's words, made once per tool definition: the engine hands the same schema object to every
 * step of an agent version, and the name and description are part of the key.
 */
const toolWords = new WeakMap<object, Map<string, ToolWords>>();

function toolWordsOf(tool: LanguageModelV3FunctionTool): ToolWords {
  const schema = inputSchema(tool);
  const key = `${tool.name}\u0000${tool.description ?? ''}`;
  let bySignature = toolWords.get(schema);
  const known = bySignature?.get(key);
  if (known) return known;
  const properties = schema.properties ?? {};
  const nameWords = new Set(splitIdentifier(tool.name).filter((word) => !STOP_WORDS.has(word)));
  const otherWords = new Set(
    [
      ...contentWords(tool.description ?? ''),
      ...Object.keys(properties).flatMap(splitIdentifier),
      // Enum values name what the tool acts on ("refund", "cancellation").
      ...Object.values(properties).flatMap((property) =>
        typeof property === 'object' && Array.isArray(property.enum)
          ? property.enum.flatMap((value) => (typeof value === 'string' ? splitIdentifier(value) : []))
          : [],
      ),
    ].filter((word) => !nameWords.has(word) && !STOP_WORDS.has(word)),
  );
  const words = { nameStems: [...nameWords].map(stem), otherStems: [...otherWords].map(stem) };
  if (!bySignature) {
    bySignature = new Map();
    toolWords.set(schema, bySignature);
  }
  bySignature.set(key, words);
  return words;
}

function bestTool(
  tools: readonly LanguageModelV3FunctionTool[],
  text: string,
): LanguageModelV3FunctionTool | undefined {
  let best: LanguageModelV3FunctionTool | undefined;
  let bestScore = 0;
  for (const tool of tools) {
    const score = scoreTool(tool, text);
    if (score > bestScore) {
      best = tool;
      bestScore = score;
    }
  }
  return best;
}

/** Tool schemas are user input: anything that is not an object schema is treated as empty. */
function inputSchema(tool: LanguageModelV3FunctionTool): JsonSchema {
  const schema: unknown = tool.inputSchema;
  return schema !== null && typeof schema === 'object' ? (schema as JsonSchema) : {};
}

function vocabularyOf(tool: LanguageModelV3FunctionTool): ReadonlySet<string> {
  return new Set(splitIdentifier(tool.name));
}

/**
 * "Here is the tool result:\n- get_weather: city: Paris, temperature: 18" — one line per result,
 * with errors and denials as explicit sentences so a reader (or test) cannot miss them.
 */
export function summariseResults(results: readonly ScriptedToolResult[]): string {
  if (results.length === 0) return 'No tool results arrived.';
  const ok = results.filter((result) => result.status === 'ok');
  const lines: string[] = [];
  for (const result of results) {
    if (result.status === 'error') {
      lines.push(
        `The tool ${result.toolName} reported an error: ${sentence(truncate(result.text) || 'unknown error')}`,
      );
    } else if (result.status === 'denied') {
      lines.push(`The tool ${result.toolName} was not executed: ${sentence(truncate(result.text))}`);
    }
  }
  if (ok.length > 0) {
    lines.push(ok.length === 1 ? 'Here is the tool result:' : `Here are the ${ok.length} tool results:`);
    for (const result of ok) lines.push(`- ${result.toolName}: ${renderResult(result)}`);
  }
  return lines.join('\n');
}

function renderResult(result: ScriptedToolResult): string {
  const rendered = result.value === undefined ? result.text : renderValue(result.value);
  return truncate(rendered) || '(empty)';
}

/** JSON rendered as `key: value` pairs; nested structures stay compact JSON. */
function renderValue(value: unknown): string {
  if (Array.isArray(value)) return value.map(renderInline).join(', ');
  if (value !== null && typeof value === 'object') {
    return Object.entries(value)
      .map(([key, item]) => `${key}: ${renderInline(item)}`)
      .join(', ');
  }
  return renderInline(value);
}

function renderInline(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return 'undefined';
  return JSON.stringify(value);
}

function sentence(text: string): string {
  return /[.!?…]$/.test(text) ? text : `${text}.`;
}

function acknowledge(text: string, hasTools: boolean): string {
  const trimmed = text.trim();
  const echo = trimmed === '' ? 'You sent a message without text.' : `You said: "${truncate(trimmed)}".`;
  const help = hasTools
    ? 'Tool use is turned off for this reply, so I can only answer in text.'
    : 'I have no tools available, so I can only answer in text. How else can I help?';
  return `${echo} ${help}`;
}
