import { BatonError } from '../../domain/errors/baton-error.ts';
import type { ClientToolDefinition, JsonObject } from '../../domain/records.ts';
import { assertValidToolDefinition } from '../../engine/index.ts';
import { RESOURCE_ID_PATTERN } from '../aip/resource-names.ts';
import { asObject } from '../json-objects.ts';
import { toJsonSchema } from '../tools/ces-schema.ts';
import { requireText } from '../tools/common-rules.ts';

/**
 * The function a `clientFunction` or `jsFunction` Tool declares: `name`, `description` and
 * `parameters` (a CES Schema or JSON Schema), as stored and as the model sees it.
 */

/** The parameters of a function that declares none (a new object each time: definitions are not shared). */
function noParameters(): JsonObject {
  return { type: 'object', properties: {} };
}

/**
 * A function's name and parameters, checked with the engine's own rules for client tools (the
 * name pattern, an object schema that compiles), after turning a CES Schema into JSON Schema the
 * way the turn runner will.
 */
export function checkFunction(fn: JsonObject, prefix: string): void {
  const name = requireText(fn, 'name', prefix);
  if (!RESOURCE_ID_PATTERN.test(name)) {
    throw new BatonError(
      'invalid_tool_name',
      `${prefix}.name '${name.slice(0, 100)}' must match ^[a-zA-Z0-9_-]{1,64}$ (letters, digits, '_' and '-').`,
      {
        param: `${prefix}.name`,
      },
    );
  }
  const parameters = asObject(fn.parameters);
  try {
    assertValidToolDefinition(
      { name, description: '', parameters: parameters ? toJsonSchema(parameters) : noParameters() },
      prefix,
    );
  } catch (error) {
    if (error instanceof BatonError)
      throw new BatonError('invalid_tool_parameters', error.message, {
        param: error.param ?? `${prefix}.parameters`,
      });
    throw error;
  }
}

/** The declared function as the model sees it, or undefined when it has no name. */
export function declaredFunction(
  fn: JsonObject,
): Pick<ClientToolDefinition, 'name' | 'description' | 'parameters'> | undefined {
  if (typeof fn.name !== 'string') return undefined;
  const parameters = asObject(fn.parameters);
  return {
    name: fn.name,
    description: typeof fn.description === 'string' ? fn.description : '',
    parameters: parameters ? toJsonSchema(parameters) : noParameters(),
  };
}

/** The function's name, which is also the Tool's displayName. */
export function functionName(fn: JsonObject): string | undefined {
  return typeof fn.name === 'string' ? fn.name : undefined;
}
