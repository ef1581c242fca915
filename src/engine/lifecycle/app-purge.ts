import { setImmediate as yieldToOthers } from 'node:timers/promises';
import type { Clock } from '../../domain/clock.ts';
import type { IdGenerator } from '../../domain/ids.ts';
import type { AuditEventRecord } from '../../domain/lifecycle.ts';
import type { AppRecord } from '../../domain/records.ts';
import type { AppPurgeBatch, AppTombstone, Store } from '../../store/store.ts';

/** What deleting and purging an app needs: the engine context has it, and so has the app service. */
export interface AppPurgeDependencies {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
}

export interface AppPurgeOptions {
  /** Rows deleted per transaction. Default `APP_PURGE_BATCH`. */
  batchSize?: number;
  /** Called after each batch commits (tests stop a purge midway by throwing here). */
  afterBatch?: (batch: AppPurgeBatch) => void | Promise<void>;
}

/** Rows per purge transaction: short enough that requests of other apps never wait long on one. */
export const APP_PURGE_BATCH = 500;
/** Passes over the tables when rows were written behind the purge (a request that was in flight). */
const MAX_ROUNDS = 5;

/** Purges running in this process, per store: a second purge of an app waits for the first instead of racing it. */
const running = new WeakMap<Store, Map<string, Promise<AuditEventRecord | null>>>();

function now(deps: AppPurgeDependencies): string {
  return deps.clock.now().toISOString();
}

/**
 * Deletes an app (issue 21): one short transaction tombstones it and records an
 * `app.deletion_requested` audit event. From its commit the app is not found by name or id, its
 * keys do not authenticate on any replica, no new work of it starts and its name is free; its rows
 * stay until `purgeApp` removes them. False when it is no longer there (deleted meanwhile).
 */
export async function requestAppDeletion(
  deps: AppPurgeDependencies,
  app: AppRecord,
  actor: string | null,
): Promise<boolean> {
  const at = now(deps);
  return deps.store.apps.tombstone(app.id, {
    by: actor,
    at,
    audit: {
      id: deps.newId('audit'),
      appId: app.id,
      actor,
      action: 'app.deletion_requested',
      target: app.id,
      counts: {},
      details: { name: app.name, project: app.project, location: app.location },
      createdAt: at,
    },
  });
}

/**
 * Purges a deleted app to the end: its rows table by table in bounded batches (one transaction
 * each, counted in the tombstone as they go, so a purge resumed after a crash counts everything),
 * then one transaction deletes its row and writes the `app.purged` audit event: who deleted it,
 * when it was asked and when the purge started and finished, and the rows removed by table. The
 * event has no foreign key and outlives the app. Null when there was nothing left to purge (not a
 * deleted app, or another process finished it).
 */
export function purgeApp(
  deps: AppPurgeDependencies,
  appId: string,
  options: AppPurgeOptions = {},
): Promise<AuditEventRecord | null> {
  let mine = running.get(deps.store);
  if (!mine) running.set(deps.store, (mine = new Map()));
  const current = mine.get(appId);
  // The same app already being purged here: wait for that one, then look again (it may have failed).
  if (current) return current.catch(() => null).then(() => purgeApp(deps, appId, options));
  const purge = runPurge(deps, appId, options).finally(() => mine.delete(appId));
  mine.set(appId, purge);
  return purge;
}

async function runPurge(
  deps: AppPurgeDependencies,
  appId: string,
  options: AppPurgeOptions,
): Promise<AuditEventRecord | null> {
  const limit = options.batchSize ?? APP_PURGE_BATCH;
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    // Tables emptied earlier in this pass are not read again; the finish checks every one.
    let fromTable: string | undefined;
    for (;;) {
      const batch = await deps.store.apps.purgeBatch(appId, {
        limit,
        at: now(deps),
        ...(fromTable ? { fromTable } : {}),
      });
      if (!batch) break;
      fromTable = batch.table;
      await options.afterBatch?.(batch);
      await yieldToOthers(); // between batches, requests get the database
    }
    const finished = await deps.store.apps.finishPurge(appId, (tombstone) => purgedEvent(deps, tombstone));
    if (finished.status === 'gone') return null;
    if (finished.status === 'purged') {
      // Caches of other processes (agents, webhook apps, keys) drop what they held of the app.
      for (const topic of ['agents', 'webhooks', 'ledger'] as const) deps.store.signals.publish(topic, appId);
      deps.store.signals.publish('api-keys', `app:${appId}`);
      return finished.event;
    }
  }
  throw new Error(
    `Purging app ${appId}: rows are still being written to it after ${MAX_ROUNDS} passes; the sweep tries again.`,
  );
}

function purgedEvent(deps: AppPurgeDependencies, tombstone: AppTombstone): AuditEventRecord {
  const finishedAt = now(deps);
  return {
    id: deps.newId('audit'),
    appId: tombstone.id,
    actor: tombstone.deletedBy,
    action: 'app.purged',
    target: tombstone.id,
    counts: { ...tombstone.progress?.counts, apps: 1 },
    details: {
      name: tombstone.name,
      project: tombstone.project,
      location: tombstone.location,
      requested_at: tombstone.deletedAt,
      started_at: tombstone.progress?.startedAt ?? finishedAt,
      finished_at: finishedAt,
      batches: tombstone.progress?.batches ?? 0,
    },
    createdAt: finishedAt,
  };
}
