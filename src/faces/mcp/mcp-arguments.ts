import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { BatonError } from '../../domain/errors/baton-error.ts';
import type { McpTool } from './mcp-tool.ts';

// ajv-formats ships CJS; under NodeNext its default export is the module object.
const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;

/** One Ajv for the MCP face: tool arguments here, and the SDK server's own validator (see mcp-endpoint). */
export const mcpAjv = new Ajv({ allErrors: true, strict: false, useDefaults: false, coerceTypes: false });
(addFormats as unknown as (instance: Ajv) => void)(mcpAjv);

/**
 * Compiled validators keyed by the schema's JSON text, so a tool list rebuilt on every request
 * does not recompile. Bounded, and an evicted schema is removed from Ajv's own cache too (Ajv
 * keeps every compiled schema object otherwise).
 */
const validators = new Map<string, { schema: object; validate: ValidateFunction }>();
const MAX_CACHED_VALIDATORS = 500;

function validatorFor(schema: object): ValidateFunction {
  const key = JSON.stringify(schema);
  const cached = validators.get(key);
  if (cached) return cached.validate;
  const validate = mcpAjv.compile(schema);
  if (validators.size >= MAX_CACHED_VALIDATORS) {
    const oldest = validators.entries().next().value;
    if (oldest !== undefined) {
      validators.delete(oldest[0]);
      mcpAjv.removeSchema(oldest[1].schema);
    }
  }
  validators.set(key, { schema, validate });
  return validate;
}

/** `/tools/0/name` → `tools[0].name`, Baton's param notation. */
function fieldPath(instancePath: string, child?: string): string {
  const segments =
    instancePath === ''
      ? []
      : instancePath
          .slice(1)
          .split('/')
          .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) segments.push(child);
  return segments.reduce(
    (path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : path === '' ? segment : `${path}.${segment}`),
    '',
  );
}

function describe(error: ErrorObject): { field: string; text: string } {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params['missingProperty'] === 'string') {
    const field = fieldPath(error.instancePath, params['missingProperty']);
    return { field, text: `'${field}' is required` };
  }
  if (error.keyword === 'additionalProperties' && typeof params['additionalProperty'] === 'string') {
    const field = fieldPath(error.instancePath, params['additionalProperty']);
    return { field, text: `'${field}' is not a known argument` };
  }
  const field = fieldPath(error.instancePath);
  const allowed =
    error.keyword === 'enum' && Array.isArray(params['allowedValues'])
      ? `: ${params['allowedValues'].map((value) => JSON.stringify(value)).join(', ')}`
      : '';
  return { field, text: `${field === '' ? 'the arguments' : `'${field}'`} ${error.message ?? 'is invalid'}${allowed}` };
}

/**
 * Checks a tools/call's arguments against the tool's inputSchema. Returns the BatonError to send
 * back as a tool error (naming every offending field, `param` the first), or null when valid.
 */
export function checkToolArguments(tool: McpTool, args: Record<string, unknown>): BatonError | null {
  let validate: ValidateFunction;
  try {
    validate = validatorFor(tool.inputSchema);
  } catch (error) {
    // The tool's own schema is broken: a server bug, not the caller's.
    return new BatonError(
      'invalid_tool_schema',
      `Tool '${tool.name}' has an invalid input schema; this is a server bug.`,
      { cause: error },
    );
  }
  if (validate(args)) return null;
  const problems = (validate.errors ?? []).map(describe);
  const first = problems[0];
  const text =
    problems.length === 0
      ? 'the arguments do not match the input schema'
      : [...new Set(problems.map((problem) => problem.text))].join('; ');
  return new BatonError(
    'invalid_argument',
    `Invalid arguments for tool '${tool.name}': ${text}. Call tools/list for its inputSchema.`,
    {
      param: first && first.field !== '' ? first.field : null,
    },
  );
}
