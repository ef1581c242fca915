/**
 * The per-connection `store: false` cache of WebSocket mode, alone: which conversations it purges
 * and when. The end-to-end behaviour is in websocket.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.ts';
import { ConnectionResponseCache } from '../../src/engine/responses/connection-responses.ts';
import type { ResponseRecord } from '../../src/domain/records.ts';

describe('ConnectionResponseCache', () => {
  const record = (id: string, conversationId: string, ownsConversation: boolean): ResponseRecord =>
    ({ id, conversationId, ownsConversation, stored: false }) as ResponseRecord;
  const fakeEngine = (deleted: string[]): Engine =>
    ({ deleteConversation: async (_appId: string, id: string) => void deleted.push(id) }) as unknown as Engine;
  const log = { warn: () => {} };

  it('keeps a conversation while a newer response of its chain is cached, and purges it with the last', async () => {
    const deleted: string[] = [];
    const cache = new ConnectionResponseCache(fakeEngine(deleted), { appId: 'app', actor: null }, log, 2);
    cache.remember(record('r1', 'c1', true));
    cache.remember(record('r2', 'c1', false));
    cache.remember(record('r3', 'c2', true)); // r1 leaves; r2 still needs c1
    expect(cache.has('r1')).toBe(false);
    cache.remember(record('r4', 'c2', false)); // r2 leaves: c1 goes
    await cache.close();
    expect(deleted).toEqual(['c1', 'c2']);
  });

  it('forget purges an owned conversation with every cached response in it, and leaves others alone', async () => {
    const deleted: string[] = [];
    const cache = new ConnectionResponseCache(fakeEngine(deleted), { appId: 'app', actor: null }, log);
    cache.remember(record('r1', 'c1', true));
    cache.remember(record('r2', 'c1', false));
    cache.remember(record('r3', 'stored-thread', false));
    cache.forget('r3'); // not owned: only forgotten
    cache.forget('r1');
    expect([cache.has('r1'), cache.has('r2'), cache.has('r3')]).toEqual([false, false, false]);
    await cache.close();
    expect(deleted).toEqual(['c1']);
  });
});
