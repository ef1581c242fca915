/**
 * Child process of `cross-process.test.ts` (not a test file itself).
 *   open <file> <startAt>: waits until the epoch-ms `startAt` (so all workers hit the fresh
 *     file together), opens the store (running migrations) and closes it.
 *   bump <file> <appId> <conversationId> <turnId> <rounds> <worker>: bumps one conversation
 *     `rounds` times through read-then-write transactions, retrying lost races, the way the
 *     engine does.
 * Prints a JSON summary on stdout.
 */
import { openStore } from '../../src/store/open-store.ts';

const [mode, filename, appId, conversationId, turnId, roundsText, worker] = process.argv.slice(2);
if (mode === 'open' && filename) {
  const startAt = Number(appId);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - Date.now())));
  await (await openStore({ kind: 'sqlite', filename })).close();
  process.stdout.write(JSON.stringify({ opened: true }));
  process.exit(0);
}
if (!filename || !appId || !conversationId || !turnId || !roundsText || !worker) {
  throw new Error('usage: cross-process-worker bump <file> <appId> <conversationId> <turnId> <rounds> <worker>');
}

const store = await openStore({ kind: 'sqlite', filename });
let lostRaces = 0;
try {
  for (let round = 0; round < Number(roundsText); round++) {
    for (;;) {
      const won = await store.transaction(async (tx) => {
        const conversation = await tx.conversations.get(appId, conversationId);
        if (!conversation) throw new Error('conversation vanished');
        const moved = await tx.conversations.compareAndSet(conversationId, conversation.version, {
          updatedAt: new Date().toISOString(),
        });
        if (!moved) return false;
        await tx.items.append([
          {
            id: `item_${worker}_${round}`,
            conversationId,
            turnId,
            groupId: `group_${worker}_${round}`,
            payload: { type: 'message', role: 'user', content: [{ type: 'text', text: `${worker}:${round}` }] },
            createdAt: new Date().toISOString(),
          },
        ]);
        return true;
      });
      if (won) break;
      lostRaces++;
    }
  }
} finally {
  await store.close();
}
process.stdout.write(JSON.stringify({ worker, lostRaces }));
