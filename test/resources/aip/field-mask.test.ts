import { describe, expect, it } from 'vitest';
import { applyFieldMask, parseFieldMask, type MaskSpec } from '../../../src/resources/aip/field-mask.ts';
import { caught } from './caught.ts';

const spec: MaskSpec = {
  mutable: ['displayName', 'description', 'labels', 'mcpToolset', 'openApiToolset'],
  outputOnly: ['createTime', 'updateTime', 'etag'],
  unions: [['mcpToolset', 'openApiToolset']],
};
const MUTABLE = 'Mutable fields: displayName, description, labels, mcpToolset, openApiToolset.';

const current = {
  name: 'apps/a/toolsets/t',
  displayName: 'Old',
  description: 'Old description',
  labels: { team: 'ops' },
  mcpToolset: { serverAddress: 'https://old.example.com', timeout: 5 },
  createTime: '2026-01-01T00:00:00Z',
};

describe('parseFieldMask (AIP-134)', () => {
  it('returns null for no mask', () => {
    expect(parseFieldMask(undefined)).toBeNull();
    expect(parseFieldMask('')).toBeNull();
    expect(parseFieldMask(' , ')).toBeNull();
    expect(parseFieldMask([])).toBeNull();
  });

  it('splits a comma-separated string, trimming and dropping repeats', () => {
    expect(parseFieldMask('displayName, mcpToolset.serverAddress ,displayName')).toEqual([
      'displayName',
      'mcpToolset.serverAddress',
    ]);
    expect(parseFieldMask(['description', ' labels.team-a '])).toEqual(['description', 'labels.team-a']);
  });

  it('reads * alone as full replacement', () => {
    expect(parseFieldMask('*')).toEqual(['*']);
    expect(parseFieldMask([' * '])).toEqual(['*']);
  });

  it.each([
    [
      '*,displayName',
      "Invalid updateMask: '*' (replace the whole resource) must be the only path, but the mask also names displayName.",
    ],
    [
      'display name',
      "Invalid updateMask: 'display name' is not a field path; use camelCase field names joined by '.', e.g. 'displayName' or 'mcpToolset.serverAddress'.",
    ],
    [
      'a..b',
      "Invalid updateMask: 'a..b' is not a field path; use camelCase field names joined by '.', e.g. 'displayName' or 'mcpToolset.serverAddress'.",
    ],
    ['mcpToolset.__proto__.x', expect.stringContaining("'mcpToolset.__proto__.x' is not a field path")],
    [[42] as unknown as string[], 'Invalid updateMask: every path must be a string, not 42.'],
  ])('rejects %j', (mask, message) => {
    const error = caught(() => parseFieldMask(mask));
    expect(error.kind).toBe('invalid_request');
    expect(error.code).toBe('invalid_update_mask');
    expect(error.param).toBe('updateMask');
    expect(error.message).toEqual(message);
  });
});

describe('applyFieldMask', () => {
  it('copies only the masked fields from the patch into a new object', () => {
    const patch = { displayName: 'New', description: 'ignored' };
    const result = applyFieldMask(current, patch, ['displayName'], spec);
    expect(result).toEqual({ ...current, displayName: 'New' });
    expect(result).not.toBe(current);
    expect(current.displayName).toBe('Old');
  });

  it('removes a masked field the patch lacks or sets to null', () => {
    expect(applyFieldMask(current, {}, ['description'], spec)).not.toHaveProperty('description');
    expect(applyFieldMask(current, { description: null }, ['description'], spec)).not.toHaveProperty('description');
  });

  it('updates nested paths under a mutable object field, leaving siblings alone', () => {
    const result = applyFieldMask(
      current,
      { mcpToolset: { serverAddress: 'https://new.example.com', timeout: 99 } },
      ['mcpToolset.serverAddress'],
      spec,
    );
    expect(result.mcpToolset).toEqual({ serverAddress: 'https://new.example.com', timeout: 5 });
    expect(current.mcpToolset.serverAddress).toBe('https://old.example.com');
    expect(applyFieldMask(current, { labels: {} }, ['labels.team'], spec).labels).toEqual({});
    expect(applyFieldMask({ name: 'n' }, { labels: { env: 'prod' } }, ['labels.env'], spec).labels).toEqual({
      env: 'prod',
    });
  });

  it('does not share objects with the patch', () => {
    const patch = { labels: { env: 'prod' } };
    const result = applyFieldMask(current, patch, ['labels'], spec);
    patch.labels.env = 'changed';
    expect(result.labels).toEqual({ env: 'prod' });
  });

  it('ignores output-only paths', () => {
    const result = applyFieldMask(
      current,
      { createTime: '2030-01-01T00:00:00Z', displayName: 'New' },
      ['createTime', 'displayName', 'etag'],
      spec,
    );
    expect(result.createTime).toBe('2026-01-01T00:00:00Z');
    expect(result.displayName).toBe('New');
  });

  it('replaces every mutable field for null or *, keeping the rest', () => {
    const patch = { displayName: 'New', openApiToolset: { spec: 'x' }, name: 'hijack', createTime: 'x' };
    for (const paths of [null, ['*']]) {
      expect(applyFieldMask(current, patch, paths, spec)).toEqual({
        name: 'apps/a/toolsets/t',
        displayName: 'New',
        openApiToolset: { spec: 'x' },
        createTime: '2026-01-01T00:00:00Z',
      });
    }
  });

  it('removes the other members of a union when the mask sets one', () => {
    const patch = { openApiToolset: { spec: 'openapi: 3.0.0' } };
    const result = applyFieldMask(current, patch, ['openApiToolset'], spec);
    expect(result.openApiToolset).toEqual({ spec: 'openapi: 3.0.0' });
    expect(result).not.toHaveProperty('mcpToolset');
    // A deeper path into a member counts as setting it.
    expect(
      applyFieldMask(current, { openApiToolset: { spec: 's' } }, ['openApiToolset.spec'], spec),
    ).not.toHaveProperty('mcpToolset');
  });

  it('keeps the other union members when the mask only clears one or names none', () => {
    const both = { ...current, openApiToolset: { spec: 's' } };
    expect(applyFieldMask(current, {}, ['openApiToolset'], spec).mcpToolset).toEqual(current.mcpToolset);
    expect(applyFieldMask(both, { displayName: 'x' }, ['displayName'], spec)).toHaveProperty('openApiToolset');
    expect(applyFieldMask(both, { displayName: 'x' }, ['displayName'], spec)).toHaveProperty('mcpToolset');
  });

  it('rejects paths that are neither mutable nor output-only, listing the mutable fields', () => {
    const error = caught(() => applyFieldMask(current, {}, ['displayName', 'name'], spec));
    expect(error.kind).toBe('invalid_request');
    expect(error.code).toBe('invalid_update_mask');
    expect(error.param).toBe('updateMask');
    expect(error.message).toBe(`Invalid updateMask: 'name' is not a field you can update. ${MUTABLE}`);
    expect(error.details).toEqual({ path: 'name' });
  });

  it('suggests the camelCase spelling of a snake_case path', () => {
    expect(caught(() => applyFieldMask(current, {}, ['display_name'], spec)).message).toBe(
      `Invalid updateMask: 'display_name' is not a field you can update. ${MUTABLE} Did you mean 'displayName'? Paths are camelCase.`,
    );
  });

  it('rejects * mixed with other paths and paths through a non-object', () => {
    expect(caught(() => applyFieldMask(current, {}, ['*', 'displayName'], spec)).code).toBe('invalid_update_mask');
    expect(caught(() => applyFieldMask(current, { displayName: 'x' }, ['displayName.first'], spec)).message).toBe(
      "Invalid updateMask: 'displayName.first' reaches into 'displayName', which is not an object; name 'displayName' instead.",
    );
    expect(
      caught(() => applyFieldMask(current, { mcpToolset: 'x' }, ['mcpToolset.serverAddress'], spec)).message,
    ).toContain("reaches into 'mcpToolset', which is not an object");
  });

  it('cannot be used to reach an object prototype', () => {
    expect(
      caught(() =>
        applyFieldMask({}, JSON.parse('{"labels":{"__proto__":{"polluted":1}}}'), ['labels.__proto__.polluted'], spec),
      ).code,
    ).toBe('invalid_update_mask');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
