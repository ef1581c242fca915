/**
 * Checks a model's arguments against an OpenAPI tool's parameter schema before anything is sent:
 * a wrong type caught here is a clear error result for the model to correct, instead of a 400
 * (or worse, a misread request) from someone else's API.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { JsonObject } from './openapi-types.ts';

// ajv-formats ships CJS; under NodeNext its default export is the module object.
const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;

const ajv = new Ajv2020({ allErrors: true, strict: false, useDefaults: false });
(addFormats as unknown as (instance: Ajv2020) => void)(ajv);

function describe(errors: ErrorObject[] | null | undefined): string {
  if (!errors || errors.length === 0) return 'they do not match the schema';
  return errors
    .slice(0, 5)
    .map((error) => {
      const where =
        error.instancePath === '' ? 'the arguments' : `'${error.instancePath.slice(1).replace(/\//g, '.')}'`;
      const extra = error.keyword === 'additionalProperties' ? ` ('${String(error.params.additionalProperty)}')` : '';
      return `${where} ${error.message ?? 'is invalid'}${extra}`;
    })
    .join('; ');
}

/** A checker for one schema; compile once per tool, call per call. */
export function argumentsValidator(schema: JsonObject): (args: unknown) => string | undefined {
  const validate: ValidateFunction = ajv.compile(schema);
  return (args) => (validate(args) ? undefined : describe(validate.errors));
}
