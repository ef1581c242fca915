import WebSocket from 'ws';
import { DEFAULT_LIMITS, type LimitSettings } from '../../src/server/limit-settings.ts';
import type { TestBaton } from '../helpers/test-baton.ts';

/** The default limits with some lowered, for `startTestBaton({ limits: lowLimits({...}) })`. */
export function lowLimits(overrides: Partial<LimitSettings>): LimitSettings {
  return { ...DEFAULT_LIMITS, ...overrides };
}

/** A second app (tenant) with its own first key, created by the admin key as an operator would. */
export async function createApp(server: TestBaton, name: string): Promise<{ id: string; key: string }> {
  const created = await server.request('POST', '/v1/apps', { name });
  if (created.status !== 201) throw new Error(`POST /v1/apps failed: ${JSON.stringify(created.body)}`);
  return { id: created.body.id as string, key: created.body.api_key.key as string };
}

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

/** Retries `attempt` until it returns true: a server notices a closed connection a moment after the client. */
export async function eventually(attempt: () => Promise<boolean>, what: string, tries = 100): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await attempt()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`never happened: ${what}`);
}

/** A WebSocket upgrade the server refused: its status, headers and JSON body. */
export interface RefusedUpgrade {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** Opens a Responses WebSocket: the open socket, or the server's refusal of the upgrade. */
export function openWebSocket(
  server: TestBaton,
  key: string,
): Promise<{ ws: WebSocket; refused: null } | { ws: null; refused: RefusedUpgrade }> {
  const ws = new WebSocket(`${server.url.replace(/^http/, 'ws')}/v1/responses`, { headers: bearer(key) });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, refused: null }));
    ws.once('error', (error) => reject(error));
    ws.once('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += String(chunk)));
      response.on('end', () =>
        resolve({
          ws: null,
          refused: { status: response.statusCode ?? 0, headers: response.headers, body: JSON.parse(text) },
        }),
      );
    });
  });
}
