import { BatonError } from '../../domain/errors/baton-error.ts';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * An origin of `mcp.allowed_origins`, normalised (`scheme://host[:port]`, default port dropped);
 * throws a message naming what is wrong, for the config loader.
 */
export function parseAllowedOrigin(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  const bare = url && url.pathname === '/' && url.search === '' && url.hash === '' && url.username === '';
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !bare || text.endsWith('/')) {
    throw new Error(`'${text}' is not an origin: give scheme://host[:port] only, e.g. https://app.example.com.`);
  }
  return url.origin;
}

/**
 * Which browser pages may call `/mcp`. The MCP Streamable HTTP transport requires servers to check
 * `Origin` against DNS rebinding: a page of another site, its name re-pointed at this server,
 * would otherwise reach it from the victim's browser. Clients that are not browsers send no Origin;
 * pages served from a loopback address are the user's own; others must be listed.
 */
export class McpOriginPolicy {
  private readonly allowed: ReadonlySet<string>;

  constructor(allowedOrigins: readonly string[] = []) {
    this.allowed = new Set(allowedOrigins.map(parseAllowedOrigin));
  }

  allows(origin: string | undefined): boolean {
    if (origin === undefined) return true;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false; // includes `Origin: null`, sent by sandboxed frames and file: pages
    }
    if (url.origin === 'null') return false;
    if ((url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname)) return true;
    return this.allowed.has(url.origin);
  }

  /** Throws a 403 unless the request's `Origin` is allowed. */
  check(origin: string | string[] | undefined): void {
    const value = Array.isArray(origin) ? origin.join(', ') : origin;
    if (this.allows(value)) return;
    throw new BatonError(
      'origin_not_allowed',
      `Origin '${String(value).slice(0, 200)}' may not use /mcp: only clients that send no Origin, loopback ` +
        'origins (http://localhost:*, http://127.0.0.1:*, http://[::1]:*) and the origins listed in ' +
        "mcp.allowed_origins may. Add the page's origin to mcp.allowed_origins in baton.yaml.",
      { param: 'Origin' },
    );
  }
}
