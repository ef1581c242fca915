import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/domain/records.ts';
import { TOOL_KINDS } from '../../../src/resources/index.ts';
import { DURATION_RANGES } from '../../../src/domain/duration-ranges.ts';
import { durationInRange, parseDurationSeconds } from '../../../src/resources/tools/duration.ts';
import { toJsonSchema } from '../../../src/resources/tools/ces-schema.ts';

/** The definition the registry offers the model for a stored Tool body. */
function clientDefinition(body: JsonObject) {
  const now = '2026-01-01T00:00:00.000Z';
  return TOOL_KINDS.clientDefinition({
    appId: 'app_1',
    collection: 'tools',
    id: 'get-store',
    body,
    revision: 1,
    createdAt: now,
    updatedAt: now,
  });
}

describe('app Tool resources as agent tools', () => {
  it('reads a clientFunction with a CES Schema, timeout and execution type', () => {
    const definition = clientDefinition({
      clientFunction: {
        name: 'get_store',
        description: 'd',
        parameters: {
          type: 'OBJECT',
          properties: { zip: { type: 'STRING', nullable: true }, tags: { type: 'ARRAY', items: { type: 'STRING' } } },
          required: ['zip'],
        },
      },
      timeout: '45s',
      executionType: 'ASYNCHRONOUS',
    });
    expect(definition).toEqual({
      name: 'get_store',
      description: 'd',
      parameters: {
        type: 'object',
        properties: { zip: { type: ['string', 'null'] }, tags: { type: 'array', items: { type: 'string' } } },
        required: ['zip'],
      },
      timeoutSeconds: 45,
      asynchronous: true,
    });
    expect(clientDefinition({ jsFunction: { name: 'x', jsCode: '' } })).toBeUndefined();
  });

  it('converts refs and leaves JSON Schema as it is', () => {
    expect(toJsonSchema({ ref: '#/defs/a', defs: { a: { type: 'INTEGER' } } })).toEqual({
      $ref: '#/$defs/a',
      $defs: { a: { type: 'integer' } },
    });
    const plain = { type: 'object', properties: { a: { type: 'string' } } };
    expect(toJsonSchema(plain)).toEqual(plain);
    expect(parseDurationSeconds('1.5s')).toBe(1.5);
    expect(parseDurationSeconds('10m')).toBeUndefined();
  });

  it('brings a timeout stored before the ranges existed into range, so no deadline overflows', () => {
    const timeoutOf = (timeout: string) =>
      clientDefinition({ clientFunction: { name: 'f', description: 'd' }, timeout })?.timeoutSeconds;
    expect(timeoutOf('99999999999999999999s')).toBe(DURATION_RANGES.pendingCall.max);
    expect(timeoutOf('0.0000001s')).toBe(DURATION_RANGES.pendingCall.min);
    expect(timeoutOf('0s')).toBeUndefined();
    expect(timeoutOf('soon')).toBeUndefined();
    expect(durationInRange('99999999999999999999s', DURATION_RANGES.pendingCall)).toBeUndefined();
    expect(durationInRange('1.5s', DURATION_RANGES.serverToolRun)).toBe(1.5);
    expect(durationInRange('600.000000001s', DURATION_RANGES.serverToolRun)).toBeUndefined();
  });
});
