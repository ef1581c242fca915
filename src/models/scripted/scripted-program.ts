import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type {
  ScriptedDecision,
  ScriptedProgram,
  ScriptedProgramState,
  ScriptedToolCallPlan,
} from './scripted-program-contract.ts';
import { renderTemplate, renderTemplatesDeep, templateErrors } from './scripted-template.ts';
import type { TemplateValues } from './scripted-template.ts';
import type { ScriptedToolResult, ScriptedTurn } from './scripted-turn.ts';

/**
 * YAML-driven scripted programs: an ordered list of rules, first match wins. See
 * `parseScriptedProgram` for the format. Programs are deterministic; the only state is the
 * per-model-instance hit counter used by `fail` rules.
 */

const toolCallSchema = z
  .strictObject({
    tool: z.string().min(1).describe('The name of the tool to call.'),
    arguments: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('The arguments of the call; strings may hold {{user}} and {{result…}} templates.'),
  })
  .describe('A tool call the model makes.');

const whenSchema = z
  .strictObject({
    user: z
      .string()
      .min(1)
      .optional()
      .describe(
        'The last message is the user\'s and contains this text (any case), or matches "re:<regular expression>".',
      ),
    tool_result: z
      .union([z.string().min(1), z.literal(true)])
      .optional()
      .describe('A result of this tool arrived (true: of any tool).'),
    tool_error: z
      .union([z.boolean(), z.string().min(1)])
      .optional()
      .describe('An error result of this tool arrived (true: of any tool).'),
    any: z.literal(true).optional().describe('Always matches.'),
  })
  .describe('When the rule applies: every condition given must hold. Without `when`, the rule always applies.')
  .superRefine((when, ctx) => {
    if (Object.keys(when).length === 0) {
      ctx.addIssue({ code: 'custom', message: 'needs at least one of user, tool_result, tool_error, any' });
    }
    if (when.user?.startsWith('re:')) {
      try {
        new RegExp(when.user.slice(3), 'i');
      } catch (error) {
        ctx.addIssue({
          code: 'custom',
          path: ['user'],
          message: `invalid regular expression: ${(error as Error).message}`,
        });
      }
    }
  });

const failSchema = z
  .strictObject({
    status: z.number().int().min(400).max(599).describe('The HTTP status the model call fails with.'),
    message: z.string().min(1).describe('The error message of the failure.'),
    /** How many matching calls fail before the rule falls through; omitted = every call fails. */
    times: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('How many matching calls fail before the rule falls through; without it, every call fails.'),
    /** Defaults to 0 so that retries in tests and demos are instant; raise it to exercise back-off. */
    retry_after_ms: z
      .number()
      .int()
      .min(0)
      .optional()
      .meta({ description: 'The Retry-After of the failure, in milliseconds.', default: 0 }),
  })
  .describe('The model call fails, as a provider outage would (to exercise retries).');

const ACTIONS = ['say', 'call', 'calls', 'fail'] as const;

const ruleSchema = z
  .strictObject({
    when: whenSchema.optional(),
    say: z
      .string()
      .optional()
      .describe('The model answers this text; {{user}}, {{result}} and {{result.field}} are filled in.'),
    call: toolCallSchema.optional(),
    calls: z.array(toolCallSchema).min(1).optional().describe('Several tool calls the model makes at once.'),
    fail: failSchema.optional(),
  })
  .describe('One rule: a condition (`when`) and exactly one action (`say`, `call`, `calls` or `fail`).')
  .superRefine((rule, ctx) => {
    const present = ACTIONS.filter((action) => rule[action] !== undefined);
    if (present.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message:
          `a rule needs exactly one of the fields ${ACTIONS.map((a) => `"${a}"`).join(', ')} (found: ` +
          `${present.length === 0 ? 'none' : present.join(', ')})`,
      });
    }
    if (rule.say !== undefined) {
      for (const message of templateErrors(rule.say)) ctx.addIssue({ code: 'custom', path: ['say'], message });
    }
  });

/** A program's shape; `baton.yaml` validates its `scripted:` section with it, so its editors see it too. */
export const scriptedProgramSchema = z
  .strictObject({
    description: z.string().optional().describe('What the program is for.'),
    rules: z.array(ruleSchema).min(1).describe('The rules, in order: the first that matches decides the answer.'),
  })
  .describe('A scripted model program: rules that decide what the model says or calls.');

type Rule = z.infer<typeof ruleSchema>;
type When = z.infer<typeof whenSchema>;

/**
 * Parses and validates a scripted program. `source` is YAML text or an already-parsed object
 * (e.g. a section of a larger config file). Throws an Error naming the program, the rule index
 * (0-based, as in `rules[2]`) and the offending field.
 *
 * ```yaml
 * rules:
 *   - when: { user: "refund" }            # substring (case-insensitive) or "re:<regex>"
 *     call: { tool: request_approval, arguments: { action: refund } }
 *   - when: { tool_result: request_approval }
 *     say: "Approved by {{result.approved_by}}."
 *   - say: "I can help with refunds."      # no `when`: always matches
 * ```
 */
export function parseScriptedProgram(source: string | unknown, name: string): ScriptedProgram {
  let raw: unknown = source;
  if (typeof source === 'string') {
    try {
      raw = parseYaml(source) as unknown;
    } catch (error) {
      throw new Error(`Invalid scripted program "${name}": YAML syntax error: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  const parsed = scriptedProgramSchema.safeParse(raw);
  if (!parsed.success) {
    const details = parsed.error.issues.map(describeIssue).join('; ');
    throw new Error(`Invalid scripted program "${name}": ${details}`);
  }
  return new RuleProgram(name, parsed.data.rules);
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = [...issue.path];
  // Unknown keys are reported on their parent object; naming the key itself is more useful.
  if (issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined) path.push(issue.keys[0]);
  if (path[0] === 'rules' && typeof path[1] === 'number') {
    const field = path.slice(2).map(String).join('.');
    return field === '' ? `rule ${path[1]}: ${issue.message}` : `rule ${path[1]}, field "${field}": ${issue.message}`;
  }
  const field = path.map(String).join('.');
  return field === '' ? issue.message : `field "${field}": ${issue.message}`;
}

class RuleProgram implements ScriptedProgram {
  constructor(
    readonly name: string,
    private readonly rules: readonly Rule[],
  ) {}

  decide(turn: ScriptedTurn, state: ScriptedProgramState): ScriptedDecision {
    for (const [index, rule] of this.rules.entries()) {
      const match = matchWhen(rule.when, turn);
      if (match === undefined) continue;
      const values: TemplateValues = {
        user: turn.lastUserText ?? '',
        resultText: match.result?.text ?? '',
        resultValue: match.result?.value,
      };

      if (rule.fail !== undefined) {
        const hits = state.hit(`rule:${index}`);
        if (rule.fail.times !== undefined && hits > rule.fail.times) continue;
        return {
          kind: 'fail',
          status: rule.fail.status,
          message: rule.fail.message,
          retryAfterMs: rule.fail.retry_after_ms ?? 0,
        };
      }

      const calls = rule.calls ?? (rule.call === undefined ? undefined : [rule.call]);
      if (calls !== undefined) {
        // A real model cannot call tools under toolChoice "none", so neither does the script.
        if (turn.toolChoice.type === 'none') continue;
        const plans: ScriptedToolCallPlan[] = calls.map((call) => ({
          toolName: call.tool,
          input: renderTemplatesDeep(call.arguments ?? {}, values) as Record<string, unknown>,
        }));
        return { kind: 'tool-calls', calls: plans };
      }

      return { kind: 'text', text: renderTemplate(rule.say ?? '', values) };
    }
    return { kind: 'text', text: `(scripted ${this.name}: no rule matched)` };
  }
}

interface WhenMatch {
  /** The tool result the rule refers to, used by `{{result}}` templates. */
  readonly result: ScriptedToolResult | undefined;
}

/** Returns undefined when the rule does not apply; all present conditions must hold. */
function matchWhen(when: When | undefined, turn: ScriptedTurn): WhenMatch | undefined {
  let result: ScriptedToolResult | undefined = turn.toolResults[turn.toolResults.length - 1];
  if (when === undefined) return { result };

  if (when.user !== undefined) {
    if (turn.lastRole !== 'user' || !textMatches(when.user, turn.lastUserText ?? '')) return undefined;
  }
  if (when.tool_result !== undefined) {
    // Errors are not "results" here, so a tool_error rule placed after still gets to handle them.
    const name = when.tool_result;
    const found = findLast(turn.toolResults, (r) => r.status === 'ok' && (name === true || r.toolName === name));
    if (found === undefined) return undefined;
    result = found;
  }
  if (when.tool_error !== undefined && when.tool_error !== false) {
    const name = when.tool_error;
    const found = findLast(turn.toolResults, (r) => r.status !== 'ok' && (name === true || r.toolName === name));
    if (found === undefined) return undefined;
    result = found;
  }
  // `tool_error: false` means "results arrived and none of them failed".
  if (when.tool_error === false && (turn.lastRole !== 'tool' || turn.toolResults.some((r) => r.status !== 'ok'))) {
    return undefined;
  }
  return { result };
}

function textMatches(pattern: string, text: string): boolean {
  if (pattern.startsWith('re:')) return new RegExp(pattern.slice(3), 'i').test(text);
  return text.toLowerCase().includes(pattern.toLowerCase());
}

function findLast<T>(items: readonly T[], predicate: (item: T) => boolean): T | undefined {
  for (let i = items.length - 1; i >= 0; i -= 1) {
    const item = items[i];
    if (item !== undefined && predicate(item)) return item;
  }
  return undefined;
}
