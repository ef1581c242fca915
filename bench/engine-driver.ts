import { isQueuedOutcome } from '../src/engine/engine.ts';
import type { TurnOutcome } from '../src/engine/turn-runner.ts';
import type { BatonInstance } from '../src/server/start-baton.ts';

/** Drives the engine directly (no HTTP), to build large states fast: pending threads, long histories. */

export const SEED_TEXT = 'I need approval to process a $500 refund';
export const APPROVAL = '{"approved": true, "approved_by": "manager@company.com"}';
export const AGENT = 'refund-desk';

const submission = { actor: null, idempotencyKey: null };

function settled(outcome: Awaited<ReturnType<BatonInstance['engine']['sendMessage']>>): TurnOutcome {
  if (isQueuedOutcome(outcome)) throw new Error('unexpected queued input');
  return outcome;
}

export async function createThread(baton: BatonInstance): Promise<string> {
  const conversation = await baton.engine.createConversation(baton.defaultAppId, AGENT, {});
  return conversation.id;
}

/** Sends the seed message; the thread pauses on request_approval. Returns the pending call id. */
export async function sendSeed(baton: BatonInstance, threadId: string): Promise<string> {
  const outcome = settled(
    await baton.engine.sendMessage(
      baton.defaultAppId,
      threadId,
      {
        items: [{ type: 'message', role: 'user', content: [{ type: 'text', text: SEED_TEXT }] }],
        options: { tools: [] },
      },
      { submission },
    ),
  );
  const call = outcome.pendingCalls[0];
  if (outcome.turn.status !== 'requires_action' || !call)
    throw new Error(`expected a pending call, turn is ${outcome.turn.status}`);
  return call.id;
}

/** Answers the pending call; the turn completes. */
export async function answer(baton: BatonInstance, threadId: string, callId: string): Promise<void> {
  const outcome = await baton.engine.submitResults(
    baton.defaultAppId,
    threadId,
    [{ callId, output: [{ type: 'text', text: APPROVAL }], isError: false, param: 'content[0]' }],
    {
      submission,
    },
  );
  if (outcome.turn.status !== 'completed') throw new Error(`expected a completed turn, got ${outcome.turn.status}`);
}

/** One full turn (seed → pending → result → answer) through the engine. */
export async function engineRoundTrip(baton: BatonInstance, threadId: string): Promise<void> {
  await answer(baton, threadId, await sendSeed(baton, threadId));
}
