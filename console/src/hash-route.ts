import { useEffect, useState } from 'preact/hooks';

/**
 * Hash routes (`#/inbox`, `#/calls/{id}`, …): the server serves one index.html for /console, so
 * the route must live after the `#`. A query after the path (`#/inbox?agent=x`) keeps filters in
 * the address, so a filtered inbox can be bookmarked and survives a reload.
 */
export type Route =
  | { page: 'inbox'; query: URLSearchParams }
  | { page: 'call'; id: string }
  | { page: 'threads'; query: URLSearchParams }
  | { page: 'thread'; id: string }
  | { page: 'agents' }
  | { page: 'tools' }
  | { page: 'webhooks' }
  | { page: 'webhook'; id: string }
  | { page: 'not-found'; path: string };

export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#/, '');
  const [path = '', search = ''] = raw.split('?', 2);
  const query = new URLSearchParams(search);
  const parts = path.split('/').filter((part) => part !== '');
  const [first, second] = parts;
  const id = second !== undefined ? safeDecode(second) : undefined;
  if (parts.length === 0 || (first === 'inbox' && parts.length === 1)) return { page: 'inbox', query };
  if (first === 'calls' && id !== undefined && parts.length === 2) return { page: 'call', id };
  if (first === 'threads' && parts.length === 1) return { page: 'threads', query };
  if (first === 'threads' && id !== undefined && parts.length === 2) return { page: 'thread', id };
  if (first === 'agents' && parts.length === 1) return { page: 'agents' };
  if (first === 'tools' && parts.length === 1) return { page: 'tools' };
  if (first === 'webhooks' && parts.length === 1) return { page: 'webhooks' };
  if (first === 'webhooks' && id !== undefined && parts.length === 2) return { page: 'webhook', id };
  return { page: 'not-found', path };
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

export const href = {
  inbox: (query?: URLSearchParams) => `#/inbox${query && query.toString() !== '' ? `?${query.toString()}` : ''}`,
  call: (id: string) => `#/calls/${encodeURIComponent(id)}`,
  threads: (query?: URLSearchParams) => `#/threads${query && query.toString() !== '' ? `?${query.toString()}` : ''}`,
  thread: (id: string) => `#/threads/${encodeURIComponent(id)}`,
  agents: () => '#/agents',
  tools: () => '#/tools',
  webhooks: () => '#/webhooks',
  webhook: (id: string) => `#/webhooks/${encodeURIComponent(id)}`,
};

export function useHashRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

/** Replaces the hash without adding a history entry (filter changes are not worth a Back step each). */
export function replaceHash(target: string): void {
  history.replaceState(null, '', target);
  dispatchEvent(new HashChangeEvent('hashchange'));
}
