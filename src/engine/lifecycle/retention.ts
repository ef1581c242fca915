import { BatonError } from '../../domain/errors/baton-error.ts';
import { addCounts, RETENTION_ACTOR, type RowCounts } from '../../domain/lifecycle.ts';
import { readRetention, RETENTION_FIELDS, type RetentionField, type RetentionPolicy } from '../../domain/retention.ts';
import type { RetentionScope } from '../../store/store.ts';
import { nowIso, type EngineContext } from '../engine-context.ts';
import { auditEvent } from './audit-trail.ts';
import { deleteConversationIf } from './conversation-deletion.ts';
import { RetentionPacer } from './retention-pacer.ts';

/** How much one retention run does per transaction; each run goes on until nothing is left. */
export interface RetentionOptions {
  /** Conversations listed per batch (each deleted in its own transaction). Default 100. */
  conversationBatch?: number;
  /** Tool calls whose data is removed per transaction. Default 100. */
  toolDataBatch?: number;
}

/** What one run did in one app (only apps where it changed something are reported). */
export interface RetentionAppResult {
  appId: string;
  /** Conversations deleted. */
  conversations: number;
  /** Rows removed with them, by table. */
  rows: RowCounts;
  /** Calls whose arguments and result were removed, and the transcript items that held them. */
  toolCalls: number;
  toolItems: number;
  /** Idle conversations left alone because they became busy between the scan and the delete. */
  skipped: number;
}

export interface RetentionRun {
  startedAt: string;
  apps: RetentionAppResult[];
}

const DAY_MS = 86_400_000;
const DEFAULT_BATCH = 100;

/** One duration of a policy and the conversations or calls it covers. */
interface RetentionRule {
  scope: RetentionScope;
  days: number;
}

/**
 * The rules of one field in an app: each agent with its own value covers its conversations (agents
 * with the same value share a rule); the app's value covers every other conversation, those of
 * deleted agents included.
 */
function rulesFor(
  field: RetentionField,
  appId: string,
  app: RetentionPolicy,
  agents: ReadonlyMap<string, RetentionPolicy>,
): RetentionRule[] {
  const byDays = new Map<number, string[]>();
  for (const [name, policy] of agents) {
    const days = policy[field];
    if (days !== undefined) byDays.set(days, [...(byDays.get(days) ?? []), name]);
  }
  const rules: RetentionRule[] = [...byDays].map(([days, agentNames]) => ({ scope: { appId, agentNames }, days }));
  const appDays = app[field];
  if (appDays !== undefined)
    rules.push({ scope: { appId, exceptAgentNames: [...byDays.values()].flat() }, days: appDays });
  return rules;
}

/** The agents of an app that have a policy of their own, by name. */
async function agentPolicies(context: EngineContext, appId: string): Promise<Map<string, RetentionPolicy>> {
  const policies = new Map<string, RetentionPolicy>();
  let cursor: string | null = null;
  do {
    const page = await context.store.agents.list(appId, { limit: 100, cursor });
    for (const agent of page.data) {
      const policy = agent.definition.retention;
      if (policy && RETENTION_FIELDS.some((field) => policy[field] !== undefined)) policies.set(agent.name, policy);
    }
    cursor = page.nextCursor;
  } while (cursor);
  return policies;
}

function cutoff(now: Date, days: number): string {
  return new Date(now.getTime() - days * DAY_MS).toISOString();
}

/**
 * Applies every app's retention policy once, at the engine clock's time (tests move a ManualClock):
 *
 * - conversations idle (no change to the conversation) for longer than `conversationsAfterDays`
 *   are deleted through the engine's deletion, one short transaction each, in batches. Only a
 *   conversation with no open turn and no pending call is deleted, and that is checked again in
 *   the deleting transaction: one whose calls are pending waits for them to be answered or to
 *   expire (their deadlines), and one that came back to life since the scan is left alone;
 * - tool calls resolved for longer than `toolDataAfterDays` lose their arguments and result (in
 *   the ledger and the transcript), in batches of one transaction each; their state and
 *   timestamps stay.
 *
 * Each app where the run changed something gets one `retention.applied` audit event with the counts.
 */
export async function applyRetention(context: EngineContext, options: RetentionOptions = {}): Promise<RetentionRun> {
  const now = context.clock.now();
  const run: RetentionRun = { startedAt: now.toISOString(), apps: [] };
  const pacer = new RetentionPacer();
  const conversationBatch = options.conversationBatch ?? DEFAULT_BATCH;
  const toolDataBatch = options.toolDataBatch ?? DEFAULT_BATCH;
  for (const appId of await context.store.lifecycle.listAppIds()) {
    const app = await context.store.apps.get(appId);
    if (!app) continue; // purged meanwhile
    const appPolicy = readRetention(app.settings.retention);
    const agents = await agentPolicies(context, appId);
    const result: RetentionAppResult = { appId, conversations: 0, rows: {}, toolCalls: 0, toolItems: 0, skipped: 0 };
    for (const rule of rulesFor('conversationsAfterDays', appId, appPolicy, agents))
      await deleteIdle(context, rule, cutoff(now, rule.days), conversationBatch, result, pacer);
    for (const rule of rulesFor('toolDataAfterDays', appId, appPolicy, agents))
      await removeToolData(context, rule, cutoff(now, rule.days), toolDataBatch, result, pacer);
    if (result.conversations === 0 && result.toolCalls === 0) continue;
    run.apps.push(result);
    await context.store.lifecycle.insertAudit(
      auditEvent(
        context,
        appId,
        RETENTION_ACTOR,
        'retention.applied',
        null,
        { ...result.rows, tool_calls_redacted: result.toolCalls, tool_items_redacted: result.toolItems },
        { conversations_deleted: result.conversations, skipped: result.skipped, as_of: run.startedAt },
      ),
    );
  }
  return run;
}

async function deleteIdle(
  context: EngineContext,
  rule: RetentionRule,
  before: string,
  batch: number,
  result: RetentionAppResult,
  pacer: RetentionPacer,
): Promise<void> {
  const { appId } = rule.scope;
  const passed = new Set<string>();
  for (;;) {
    const ids = (await context.store.lifecycle.listIdleConversations(rule.scope, before, batch + passed.size)).filter(
      (id) => !passed.has(id),
    );
    if (ids.length === 0) return;
    for (const id of ids) {
      const removed = await deleteConversationIf(
        context,
        appId,
        id,
        RETENTION_ACTOR,
        async (conversation, tx) => {
          if (conversation.activeTurnId !== null || conversation.updatedAt >= before) return false;
          const pending = await tx.ledger.list({ appId, conversationId: id, state: 'pending' }, { limit: 1 });
          return pending.data.length === 0;
        },
        { whileRunning: 'refuse' },
      ).catch((error: unknown) => {
        // Deleted by someone else, or a turn started, since the scan: nothing to do here.
        if (error instanceof BatonError) return null;
        throw error;
      });
      if (removed) {
        result.conversations += 1;
        addCounts(result.rows, removed);
      } else {
        result.skipped += 1;
        passed.add(id);
      }
      await pacer.pace(); // requests get the event loop and the database (see RetentionPacer)
    }
    if (ids.length < batch) return;
  }
}

async function removeToolData(
  context: EngineContext,
  rule: RetentionRule,
  before: string,
  batch: number,
  result: RetentionAppResult,
  pacer: RetentionPacer,
): Promise<void> {
  for (;;) {
    const removed = await context.store.lifecycle.removeToolData(rule.scope, before, batch, nowIso(context));
    result.toolCalls += removed.calls;
    result.toolItems += removed.items;
    if (removed.calls < batch) return;
    await pacer.pace();
  }
}
