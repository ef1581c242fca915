import type { BatonError } from '../domain/errors/baton-error.ts';
import type { ErrorRenderer } from '../faces/kit/face-context.ts';
import { nativeErrorBody } from '../faces/kit/http-errors.ts';

const renderNative: ErrorRenderer = (error) => ({ status: error.status, body: nativeErrorBody(error) });

/**
 * Which face's error format a request gets, chosen by its path: the one place that choice is made,
 * for errors of routes, of Fastify (bad JSON, a bad URL) and of Node's HTTP parser (headers too
 * large), which arrive before any route matched. Faces register their prefixes with
 * `useErrorFormat`; every other path gets Baton's native format.
 */
export class ErrorFormats {
  private readonly formats: { prefix: string; render: ErrorRenderer }[] = [];

  /** `prefix` is a path (`/mcp` covers `/mcp` and `/mcp/…`, not `/mcpx`) or ends with `/`. */
  use(prefix: string, render: ErrorRenderer): void {
    this.formats.push({ prefix, render });
  }

  /** The renderer for a request target: a path with its query, or an absolute URL. */
  rendererFor(target: string): ErrorRenderer {
    const path = pathOf(target);
    return this.formats.find(({ prefix }) => covers(prefix, path))?.render ?? renderNative;
  }

  render(target: string, error: BatonError): { status: number; body: object } {
    return this.rendererFor(target)(error);
  }
}

function covers(prefix: string, path: string): boolean {
  if (prefix.endsWith('/')) return path.startsWith(prefix);
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** The path of a request target (origin form `/a?b`, or absolute form `http://host/a`). */
export function pathOf(target: string): string {
  let path = target;
  if (!path.startsWith('/')) {
    const afterScheme = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(path);
    path = afterScheme ? path.slice(afterScheme[0].length) || '/' : path;
  }
  const end = path.search(/[?#]/);
  return end === -1 ? path : path.slice(0, end);
}
