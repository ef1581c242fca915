/**
 * Child process of `cross-process.test.ts` (not a test file itself). Prints a JSON summary.
 *
 *   open <file> <startAt>
 *     Waits until the epoch-ms `startAt` (so all workers hit the fresh file together), opens
 *     the store (running migrations) and closes it.
 *   bump <file> <appId> <conversationId> <turnId> <rounds> <worker>
 *     Bumps one conversation `rounds` times through read-then-write transactions, retrying
 *     lost races the way the engine does, appending one item per successful bump.
 */
import { openStore } from '../../src/store/open-store.ts';

const [mode, ...args] = process.argv.slice(2);

async function open(filename: string, startAt: number): Promise<object> {
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - Date.now())));
  await (await openStore({ kind: 'sqlite', filename })).close();
  return { opened: true };
}

async function bump(
  filename: string,
  appId: string,
  conversationId: string,
  turnId: string,
  rounds: number,
  worker: string,
): Promise<object> {
  const store = await openStore({ kind: 'sqlite', filename });
  let lostRaces = 0;
  try {
    for (let round = 0; round < rounds; round++) {
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
  return { worker, lostRaces };
}

const [a, b, c, d, e, f] = args;
let summary: object;
if (mode === 'open' && a && b) {
  summary = await open(a, Number(b));
} else if (mode === 'bump' && a && b && c && d && e && f) {
  summary = await bump(a, b, c, d, Number(e), f);
} else {
  throw new Error(
    'usage: cross-process-worker open <file> <startAt> | bump <file> <appId> <conversationId> <turnId> <rounds> <worker>',
  );
}
process.stdout.write(JSON.stringify(summary));
