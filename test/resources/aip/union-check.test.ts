import { describe, expect, it } from 'vitest';
import { assertOneOf } from '../../../src/resources/aip/union-check.ts';
import { caught } from './caught.ts';

const TOOLSET = ['mcpToolset', 'openApiToolset'] as const;

describe('assertOneOf', () => {
  it('accepts exactly one member', () => {
    expect(() => assertOneOf({ mcpToolset: {} }, TOOLSET, 'toolset', { required: true })).not.toThrow();
    expect(() =>
      assertOneOf({ openApiToolset: {}, mcpToolset: null }, TOOLSET, 'toolset', { required: true }),
    ).not.toThrow();
  });

  it('accepts none when the oneof is optional', () => {
    expect(() => assertOneOf({ other: 1 }, TOOLSET, 'toolset', { required: false })).not.toThrow();
  });

  it('rejects two members, naming both and the oneof', () => {
    const error = caught(() =>
      assertOneOf({ mcpToolset: {}, openApiToolset: {} }, TOOLSET, 'toolset', {
        required: false,
        name: 'toolset_type',
      }),
    );
    expect(error.kind).toBe('invalid_request');
    expect(error.code).toBe('union_conflict');
    expect(error.message).toBe(
      "toolset sets both 'mcpToolset' and 'openApiToolset'; these are alternatives of the oneof toolset_type: set exactly one.",
    );
    expect(error.param).toBe('toolset.openApiToolset');
    expect(error.details).toEqual({ members: ['mcpToolset', 'openApiToolset'], set: ['mcpToolset', 'openApiToolset'] });
  });

  it('lists three or more members set, and works without a oneof name', () => {
    const error = caught(() =>
      assertOneOf({ a: 1, b: '', c: false }, ['a', 'b', 'c'], 'toolset.apiAuthentication', { required: true }),
    );
    expect(error.code).toBe('union_conflict');
    expect(error.message).toBe(
      "toolset.apiAuthentication sets 'a', 'b' and 'c'; these are alternatives of one oneof: set exactly one.",
    );
    expect(error.param).toBe('toolset.apiAuthentication.b');
  });

  it('rejects none when required, naming the members', () => {
    const error = caught(() =>
      assertOneOf({ mcpToolset: null }, TOOLSET, 'toolset', { required: true, name: 'toolset_type' }),
    );
    expect(error.kind).toBe('invalid_request');
    expect(error.code).toBe('union_missing');
    expect(error.message).toBe(
      "toolset sets none of 'mcpToolset' or 'openApiToolset'; set exactly one (they are alternatives of the oneof toolset_type).",
    );
    expect(error.param).toBe('toolset');
  });

  it('describes the top level as the request', () => {
    const conflict = caught(() => assertOneOf({ mcpToolset: {}, openApiToolset: {} }, TOOLSET, '', { required: true }));
    expect(conflict.message.startsWith("The request sets both 'mcpToolset'")).toBe(true);
    expect(conflict.param).toBe('openApiToolset');
    const missing = caught(() => assertOneOf({}, TOOLSET, '', { required: true }));
    expect(missing.message.startsWith("The request sets none of 'mcpToolset' or 'openApiToolset'")).toBe(true);
    expect(missing.param).toBe('mcpToolset');
  });

  it('ignores inherited properties', () => {
    const object = Object.create({ openApiToolset: {} }) as Record<string, unknown>;
    object.mcpToolset = {};
    expect(() => assertOneOf(object, TOOLSET, 'toolset', { required: true })).not.toThrow();
  });
});
