import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { NewWebhookEvent } from '../../src/domain/webhooks.ts';
import type { Database } from '../../src/store/kysely/database-schema.ts';
import { OutboxBuffer, writeOutbox } from '../../src/store/kysely/webhook-outbox.ts';
import type { WebhookApps } from '../../src/store/webhook-apps-cache.ts';

/** Apps with endpoints as the cache would answer them, without a database read. */
const appsWith = (...appIds: string[]) => ({ current: async () => new Set(appIds) }) as unknown as WebhookApps;

describe("the webhook outbox's buffer", () => {
  it('makes no event of a transaction when no app has endpoints', async () => {
    const buffer = new OutboxBuffer();
    let made = 0;
    buffer.add(() => {
      made++;
      return [];
    });
    // No statement either: a database that answers nothing would fail the write.
    const db = {} as Kysely<Database>;
    expect(await writeOutbox(db, { apps: appsWith(), flavor: 'sqlite' }, buffer)).toEqual([]);
    expect(made).toBe(0);
  });

  it("makes each change's events, in order, when an app has endpoints", () => {
    const buffer = new OutboxBuffer();
    const event = (id: string) => ({ id }) as NewWebhookEvent;
    expect(buffer.empty).toBe(true);
    buffer.add(() => [event('a'), event('b')]);
    buffer.add(() => [event('c')]);
    expect(buffer.empty).toBe(false);
    expect(buffer.events().map((made) => made.id)).toEqual(['a', 'b', 'c']);
  });
});
