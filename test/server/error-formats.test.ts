import { describe, expect, it } from 'vitest';
import { BatonError } from '../../src/domain/errors/baton-error.ts';
import { ErrorFormats, pathOf } from '../../src/server/error-formats.ts';

describe('ErrorFormats: which format a request target gets', () => {
  const formats = new ErrorFormats();
  formats.use('/v1/projects/', () => ({ status: 400, body: { face: 'ces' } }));
  formats.use('/v1/responses', () => ({ status: 400, body: { face: 'responses' } }));
  formats.use('/mcp', () => ({ status: 400, body: { face: 'mcp' } }));
  const faceOf = (target: string) => {
    const { body } = formats.render(target, new BatonError('bad_request', 'x'));
    return 'face' in body ? body.face : 'native';
  };

  it.each([
    ['/mcp', 'mcp'],
    ['/mcp/', 'mcp'],
    ['/mcp?x=1', 'mcp'],
    ['/mcp/%E0%A4%A', 'mcp'],
    ['/mcpx', 'native'],
    ['/v1/responses', 'responses'],
    ['/v1/responses/resp_1/input_items?limit=2', 'responses'],
    ['/v1/responses_old', 'native'],
    ['/v1/projects/p/locations/l/apps', 'ces'],
    ['/v1/projects', 'native'],
    ['http://localhost:8080/mcp', 'mcp'],
    ['HTTP://host/v1/responses#x', 'responses'],
    ['/v1/threads/t', 'native'],
    ['', 'native'],
    ['*', 'native'],
  ])('%s → %s', (target, face) => {
    expect(faceOf(target)).toBe(face);
  });

  it('the native format is the catalogued status and the native body', () => {
    const { status, body } = formats.render('/v1/threads', new BatonError('headers_too_large', 'Too large.'));
    expect(status).toBe(431);
    expect(body).toEqual({
      error: { type: 'invalid_request_error', code: 'headers_too_large', message: 'Too large.', param: null },
    });
  });

  it('pathOf drops the query, the fragment and an absolute form’s scheme and host', () => {
    expect(pathOf('/a/b?c#d')).toBe('/a/b');
    expect(pathOf('https://example.com')).toBe('/');
    expect(pathOf('https://example.com/x?y')).toBe('/x');
  });
});
