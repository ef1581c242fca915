import type { Kysely, Selectable, Updateable } from 'kysely';
import type { JsonObject } from '../../domain/json.ts';
import type {
  WebhookDeliveryRecord,
  WebhookDeliveryStatus,
  WebhookEndpointRecord,
  WebhookEventRecord,
  WebhookEventType,
} from '../../domain/webhooks.ts';
import type { MigrationDialect } from '../migrations/migration-dialect.ts';
import type { WebhookRepo } from '../store.ts';
import { atomically } from './atomically.ts';
import type { Database, WebhookDeliveriesTable, WebhookEndpointsTable, WebhookEventsTable } from './database-schema.ts';
import { insertOrDuplicate } from './duplicate-key.ts';
import { fromJsonText, fromNullableJsonText, toJsonText } from './json-text.ts';
import { decodeOptionalCursor, fetchSize, isObject, toPage } from './pagination.ts';

function endpointFromRow(row: Selectable<WebhookEndpointsTable>): WebhookEndpointRecord {
  return {
    id: row.id,
    appId: row.app_id,
    url: row.url,
    description: row.description,
    eventTypes: fromJsonText<string[]>(row.event_types),
    agents: fromNullableJsonText<string[]>(row.agents),
    tools: fromNullableJsonText<string[]>(row.tools),
    includeArguments: row.include_arguments === 1,
    enabled: row.enabled === 1,
    secretCiphertext: row.secret_ciphertext,
    previousSecretCiphertext: row.previous_secret_ciphertext,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    failingSince: row.failing_since,
    disabledReason: row.disabled_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function eventFromRow(row: Selectable<WebhookEventsTable>): WebhookEventRecord {
  return {
    seq: Number(row.seq),
    id: row.id,
    appId: row.app_id,
    type: row.type as WebhookEventType,
    conversationId: row.conversation_id,
    agentName: row.agent_name,
    toolName: row.tool_name,
    data: fromJsonText<JsonObject>(row.data),
    createdAt: row.created_at,
  };
}

function deliveryFromRow(row: Selectable<WebhookDeliveriesTable>): WebhookDeliveryRecord {
  return {
    id: row.id,
    appId: row.app_id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventSeq: Number(row.event_seq),
    eventType: row.event_type,
    conversationId: row.conversation_id,
    status: row.status as WebhookDeliveryStatus,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    claimToken: row.claim_token,
    lastAttemptAt: row.last_attempt_at,
    lastResponseCode: row.last_response_code,
    lastError: row.last_error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function endpointChanges(patch: Parameters<WebhookRepo['updateEndpoint']>[2]): Updateable<WebhookEndpointsTable> {
  const changes: Updateable<WebhookEndpointsTable> = { updated_at: patch.updatedAt };
  if (patch.url !== undefined) changes.url = patch.url;
  if (patch.description !== undefined) changes.description = patch.description;
  if (patch.eventTypes !== undefined) changes.event_types = toJsonText(patch.eventTypes);
  if (patch.agents !== undefined) changes.agents = patch.agents === null ? null : toJsonText(patch.agents);
  if (patch.tools !== undefined) changes.tools = patch.tools === null ? null : toJsonText(patch.tools);
  if (patch.includeArguments !== undefined) changes.include_arguments = patch.includeArguments ? 1 : 0;
  if (patch.enabled !== undefined) changes.enabled = patch.enabled ? 1 : 0;
  if (patch.secretCiphertext !== undefined) changes.secret_ciphertext = patch.secretCiphertext;
  if (patch.previousSecretCiphertext !== undefined) changes.previous_secret_ciphertext = patch.previousSecretCiphertext;
  if (patch.previousSecretExpiresAt !== undefined) changes.previous_secret_expires_at = patch.previousSecretExpiresAt;
  if (patch.failingSince !== undefined) changes.failing_since = patch.failingSince;
  if (patch.disabledReason !== undefined) changes.disabled_reason = patch.disabledReason;
  return changes;
}

interface DeliveryCursor {
  seq: number;
  id: string;
}

function isDeliveryCursor(value: unknown): value is DeliveryCursor {
  return isObject(value) && typeof value.seq === 'number' && typeof value.id === 'string';
}

export function createWebhookRepo(db: Kysely<Database>, flavor: MigrationDialect): WebhookRepo {
  const locking = <Q extends { forUpdate(): Q; skipLocked(): Q }>(query: Q): Q =>
    flavor === 'postgres' ? query.forUpdate().skipLocked() : query;
  return {
    async insertEndpoint(record) {
      await insertOrDuplicate('webhook_endpoints', () =>
        db
          .insertInto('webhook_endpoints')
          .values({
            id: record.id,
            app_id: record.appId,
            url: record.url,
            description: record.description,
            event_types: toJsonText(record.eventTypes),
            agents: record.agents === null ? null : toJsonText(record.agents),
            tools: record.tools === null ? null : toJsonText(record.tools),
            include_arguments: record.includeArguments ? 1 : 0,
            enabled: record.enabled ? 1 : 0,
            secret_ciphertext: record.secretCiphertext,
            previous_secret_ciphertext: record.previousSecretCiphertext,
            previous_secret_expires_at: record.previousSecretExpiresAt,
            failing_since: record.failingSince,
            disabled_reason: record.disabledReason,
            created_at: record.createdAt,
            updated_at: record.updatedAt,
          })
          .execute(),
      );
    },

    async getEndpoint(appId, id) {
      const row = await db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && endpointFromRow(row);
    },

    async listEndpoints(appId) {
      const rows = await db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('app_id', '=', appId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(endpointFromRow);
    },

    async updateEndpoint(appId, id, patch) {
      const row = await db
        .updateTable('webhook_endpoints')
        .set(endpointChanges(patch))
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row && endpointFromRow(row);
    },

    async deleteEndpoint(appId, id) {
      return atomically(db, async (tx) => {
        const deleted = await tx
          .deleteFrom('webhook_endpoints')
          .where('app_id', '=', appId)
          .where('id', '=', id)
          .executeTakeFirst();
        if ((deleted.numDeletedRows ?? 0n) === 0n) return false;
        await tx.deleteFrom('webhook_deliveries').where('app_id', '=', appId).where('endpoint_id', '=', id).execute();
        return true;
      });
    },

    async hasPendingDeliveries() {
      const row = await db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('status', '=', 'pending')
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    async appsWithEndpoints() {
      const rows = await db
        .selectFrom('webhook_endpoints')
        .select('app_id')
        .distinct()
        .where('enabled', '=', 1)
        .execute();
      return rows.map((row) => row.app_id);
    },

    async insertEvents(events) {
      if (events.length === 0) return;
      await db
        .insertInto('webhook_events')
        .values(
          events.map((event) => ({
            id: event.id,
            app_id: event.appId,
            type: event.type,
            conversation_id: event.conversationId,
            agent_name: event.agentName,
            tool_name: event.toolName,
            data: toJsonText(event.data),
            created_at: event.createdAt,
          })),
        )
        .execute();
    },

    async claimUnfannedEvents(limit) {
      const query = db.selectFrom('webhook_events').selectAll().where('fanned_out', '=', 0).orderBy('seq').limit(limit);
      return (await locking(query).execute()).map(eventFromRow);
    },

    async markFannedOut(seqs) {
      if (seqs.length === 0) return;
      await db
        .updateTable('webhook_events')
        .set({ fanned_out: 1 })
        .where('seq', 'in', [...seqs])
        .execute();
    },

    async getEvents(ids) {
      if (ids.length === 0) return [];
      const rows = await db
        .selectFrom('webhook_events')
        .selectAll()
        .where('id', 'in', [...ids])
        .execute();
      return rows.map(eventFromRow);
    },

    async insertDeliveries(deliveries) {
      if (deliveries.length === 0) return;
      await db
        .insertInto('webhook_deliveries')
        .values(
          deliveries.map((delivery) => ({
            id: delivery.id,
            app_id: delivery.appId,
            endpoint_id: delivery.endpointId,
            event_id: delivery.eventId,
            event_seq: delivery.eventSeq,
            event_type: delivery.eventType,
            conversation_id: delivery.conversationId,
            status: delivery.status,
            attempts: delivery.attempts,
            next_attempt_at: delivery.nextAttemptAt,
            claim_token: delivery.claimToken,
            last_attempt_at: delivery.lastAttemptAt,
            last_response_code: delivery.lastResponseCode,
            last_error: delivery.lastError,
            created_at: delivery.createdAt,
            updated_at: delivery.updatedAt,
          })),
        )
        .execute();
    },

    async claimDeliveries(claim) {
      if (claim.limit < 1) return [];
      let candidates = db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', claim.now);
      if (claim.skipEndpoints.length > 0)
        candidates = candidates.where('endpoint_id', 'not in', [...claim.skipEndpoints]);
      // In order per conversation and endpoint: an event waits while an earlier one of its
      // conversation is still pending there (being sent, or waiting for its retry).
      candidates = candidates.where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('webhook_deliveries as earlier')
              .select('earlier.id')
              .whereRef('earlier.endpoint_id', '=', 'webhook_deliveries.endpoint_id')
              .whereRef('earlier.conversation_id', '=', 'webhook_deliveries.conversation_id')
              .where('earlier.status', '=', 'pending')
              .whereRef('earlier.event_seq', '<', 'webhook_deliveries.event_seq'),
          ),
        ),
      );
      candidates = candidates.orderBy('event_seq').orderBy('id').limit(claim.limit);
      const ids = (await locking(candidates).execute()).map((row) => row.id);
      const claimed: WebhookDeliveryRecord[] = [];
      // One conditional update per row: a row another process claimed meanwhile (SQLite) is skipped.
      for (const id of ids) {
        const row = await db
          .updateTable('webhook_deliveries')
          .set((eb) => ({
            claim_token: claim.newToken(),
            next_attempt_at: claim.leaseUntil,
            attempts: eb('attempts', '+', 1),
            updated_at: claim.now,
          }))
          .where('id', '=', id)
          .where('status', '=', 'pending')
          .where('next_attempt_at', '<=', claim.now)
          .returningAll()
          .executeTakeFirst();
        if (row) claimed.push(deliveryFromRow(row));
      }
      return claimed;
    },

    async finishDelivery(id, token, outcome) {
      const result = await db
        .updateTable('webhook_deliveries')
        .set({
          status: outcome.status,
          next_attempt_at: outcome.nextAttemptAt,
          claim_token: null,
          last_attempt_at: outcome.lastAttemptAt,
          last_response_code: outcome.lastResponseCode,
          last_error: outcome.lastError,
          updated_at: outcome.updatedAt,
        })
        .where('id', '=', id)
        .where('claim_token', '=', token)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async getDelivery(appId, endpointId, id) {
      const row = await db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('app_id', '=', appId)
        .where('endpoint_id', '=', endpointId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && deliveryFromRow(row);
    },

    async listDeliveries(appId, endpointId, page) {
      const after = decodeOptionalCursor(page.cursor, isDeliveryCursor);
      let query = db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('app_id', '=', appId)
        .where('endpoint_id', '=', endpointId);
      if (after)
        query = query.where((eb) =>
          eb.or([eb('event_seq', '<', after.seq), eb.and([eb('event_seq', '=', after.seq), eb('id', '<', after.id)])]),
        );
      const rows = await query
        .orderBy('event_seq', 'desc')
        .orderBy('id', 'desc')
        .limit(fetchSize(page.limit))
        .execute();
      return toPage(rows.map(deliveryFromRow), page.limit, (delivery) => ({ seq: delivery.eventSeq, id: delivery.id }));
    },

    async resendDelivery(appId, endpointId, id, now) {
      const row = await db
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', attempts: 0, next_attempt_at: now, claim_token: null, updated_at: now })
        .where('app_id', '=', appId)
        .where('endpoint_id', '=', endpointId)
        .where('id', '=', id)
        // A delivery being sent right now is left to its sender: resending it would send it twice.
        .where('claim_token', 'is', null)
        .returningAll()
        .executeTakeFirst();
      return row && deliveryFromRow(row);
    },
  };
}
