import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { ClientToolDefinition, ContentPart, JsonSchema, JsonValue } from '../domain/records.ts';
import { BatonError } from '../domain/errors/baton-error.ts';
import type { ErrorCode } from '../domain/errors/error-catalogue.ts';

export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
export const MAX_TOOLS_PER_REQUEST = 128;

// ajv-formats ships CJS; under NodeNext its default export is the module object.
const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;

const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: false });
(addFormats as unknown as (instance: Ajv) => void)(ajv);

/**
 * Compiled validators keyed by the schema's JSON text. Tool schemas repeat across turns, and
 * compiling is far costlier than validating; the cache is bounded so per-request tools cannot grow it forever.
 */
const validators = new Map<string, ValidateFunction>();
const MAX_CACHED_VALIDATORS = 2_000;

function validatorFor(schema: object): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (!validate) {
    // Schemas built with zod 4 (LangChain, the AI SDK) name the 2020-12 dialect in `$schema`, which
    // this validator would look for as a schema it does not have; tool schemas read the same under it.
    const { $schema: _dialect, ...compiled } = schema as { $schema?: unknown };
    validate = ajv.compile(compiled);
    if (validators.size >= MAX_CACHED_VALIDATORS) {
      const oldest = validators.keys().next().value;
      if (oldest !== undefined) validators.delete(oldest);
    }
    validators.set(key, validate);
  }
  return validate;
}

function describeErrors(errors: ErrorObject[] | null | undefined, whole = 'the arguments'): string {
  if (!errors || errors.length === 0) return 'unknown schema violation';
  return errors
    .map((error) => {
      const where = error.instancePath === '' ? whole : `'${error.instancePath.slice(1).replace(/\//g, '.')}'`;
      return `${where} ${error.message ?? 'is invalid'}`;
    })
    .join('; ');
}

/** Checks one tool declaration; `param` is where it sits in the request, for the error message. */
export function assertValidToolDefinition(tool: ClientToolDefinition, param: string): void {
  if (typeof tool.name !== 'string' || !TOOL_NAME_PATTERN.test(tool.name)) {
    throw new BatonError(
      'invalid_tool_name',
      `Invalid tool name '${String(tool.name)}' at ${param}.name: names must match ^[a-zA-Z0-9_-]{1,64}$ ` +
        `(letters, digits, '_' and '-', at most 64 characters).`,
      { param: `${param}.name` },
    );
  }
  const schema = tool.parameters as unknown;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new BatonError(
      'invalid_tool_parameters',
      `${param}.parameters of tool '${tool.name}' must be a JSON Schema object.`,
      {
        param: `${param}.parameters`,
      },
    );
  }
  if ((schema as { type?: unknown }).type !== undefined && (schema as { type?: unknown }).type !== 'object') {
    throw new BatonError(
      'invalid_tool_parameters',
      `${param}.parameters of tool '${tool.name}' must describe an object ("type": "object"): tool arguments are always a JSON object.`,
      { param: `${param}.parameters` },
    );
  }
  assertCompiles(schema as object, tool.name, `${param}.parameters`, 'invalid_tool_parameters');
  if (tool.responseSchema !== undefined) {
    const response = tool.responseSchema as unknown;
    if (typeof response !== 'object' || response === null || Array.isArray(response)) {
      throw new BatonError(
        'invalid_tool_response_schema',
        `${param}.response_schema of tool '${tool.name}' must be a JSON Schema object.`,
        {
          param: `${param}.response_schema`,
        },
      );
    }
    assertCompiles(response, tool.name, `${param}.response_schema`, 'invalid_tool_response_schema');
  }
  if (tool.maxAttempts !== undefined && tool.executor !== 'worker') {
    throw new BatonError(
      'invalid_tool_executor',
      `${param}.max_attempts of tool '${tool.name}' applies to worker tools only: add "executor": "worker", or leave max_attempts out.`,
      { param: `${param}.max_attempts` },
    );
  }
  if (tool.enforceResponseSchema === true && tool.responseSchema === undefined) {
    throw new BatonError(
      'invalid_tool_response_schema',
      `${param}.enforce_response_schema of tool '${tool.name}' needs a response_schema to check results against: ` +
        'add one, or leave enforce_response_schema out.',
      { param: `${param}.enforce_response_schema` },
    );
  }
}

function assertCompiles(schema: object, toolName: string, param: string, code: ErrorCode): void {
  try {
    validatorFor(schema);
  } catch (error) {
    throw new BatonError(
      code,
      `${param} of tool '${toolName}' is not a valid JSON Schema: ${(error as Error).message}`,
      { param },
    );
  }
}

/** Checks a list of tools as one request sees them: each valid, names unique, at most 128. */
export function assertValidToolSet(tools: readonly ClientToolDefinition[], param: string): void {
  if (tools.length > MAX_TOOLS_PER_REQUEST) {
    throw new BatonError(
      'too_many_tools',
      `Too many tools: ${tools.length} declared at ${param}, at most ${MAX_TOOLS_PER_REQUEST} are allowed per request.`,
      { param },
    );
  }
  const seen = new Set<string>();
  tools.forEach((tool, index) => {
    assertValidToolDefinition(tool, `${param}[${index}]`);
    if (seen.has(tool.name)) {
      throw new BatonError(
        'duplicate_tool_name',
        `Duplicate tool name '${tool.name}' at ${param}[${index}].name: tool names must be unique.`,
        {
          param: `${param}[${index}].name`,
        },
      );
    }
    seen.add(tool.name);
  });
}

export type ArgumentCheck = { ok: true; value: JsonValue } | { ok: false; problem: string };

/** Parses the model's argument text and validates it against the tool's schema. */
export function checkToolArguments(tool: ClientToolDefinition, argumentText: string): ArgumentCheck {
  let value: unknown;
  try {
    value = argumentText.trim() === '' ? {} : JSON.parse(argumentText);
  } catch {
    return { ok: false, problem: `the arguments are not valid JSON (${argumentText.slice(0, 200)})` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, problem: 'the arguments must be a JSON object' };
  }
  const validate = validatorFor(tool.parameters);
  if (!validate(value)) return { ok: false, problem: describeErrors(validate.errors) };
  return { ok: true, value: value as JsonValue };
}

/**
 * Checks a client's result against the response schema its tool enforces: the result's text must
 * be JSON valid against it (a result of images or several kinds of parts cannot be).
 */
export function checkToolResult(schema: JsonSchema, output: readonly ContentPart[]): ArgumentCheck {
  if (output.some((part) => part.type !== 'text'))
    return { ok: false, problem: 'the result must be JSON text, not images or files' };
  const text = output.map((part) => (part.type === 'text' ? part.text : '')).join('');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: `the result is not JSON (${text.slice(0, 200)}); send the result as a JSON string` };
  }
  const validate = validatorFor(schema);
  if (!validate(value)) return { ok: false, problem: describeErrors(validate.errors, 'the result') };
  return { ok: true, value: value as JsonValue };
}
