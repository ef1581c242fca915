import type { Selectable } from 'kysely';
import type {
  ContentPart,
  JsonValue,
  LedgerEntryRecord,
  LedgerKind,
  LedgerState,
  TimeoutPolicy,
} from '../../domain/records.ts';
import { DEFAULT_WORKER_MAX_ATTEMPTS } from '../../domain/records.ts';
import type { LedgerEntriesTable } from './database-schema.ts';
import { fromJsonText, fromNullableJsonText } from './json-text.ts';

/** A `ledger_entries` row as the domain's record (the worker fields only on worker calls). */
export function ledgerEntryFromRow(row: Selectable<LedgerEntriesTable>): LedgerEntryRecord {
  const entry: LedgerEntryRecord = {
    id: row.id,
    appId: row.app_id,
    conversationId: row.conversation_id,
    turnId: row.turn_id,
    agentName: row.agent_name,
    toolName: row.tool_name,
    kind: row.kind as LedgerKind,
    arguments: fromJsonText<JsonValue>(row.arguments),
    argumentsHash: row.arguments_hash,
    callIndex: row.call_index,
    state: row.state as LedgerState,
    deadlineAt: row.deadline_at,
    timeoutPolicy: row.timeout_policy as TimeoutPolicy,
    result: fromNullableJsonText<ContentPart[]>(row.result),
    isError: row.is_error === 1,
    submittedBy: row.submitted_by,
    submittedAt: row.submitted_at,
    idempotencyKey: row.idempotency_key,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  // Only calls paused on while tracing was on have one; others keep the record's shape as it was.
  if (row.trace_context !== null && row.trace_context !== undefined) entry.traceContext = row.trace_context;
  if (row.executor === 'worker') {
    entry.worker = {
      attempts: Number(row.attempts),
      maxAttempts: Number(row.max_attempts ?? DEFAULT_WORKER_MAX_ATTEMPTS),
      lease:
        row.lease_token === null
          ? null
          : {
              token: row.lease_token,
              holder: row.lease_holder ?? '',
              keyId: row.lease_key_id ?? '',
              claimedAt: row.leased_at ?? '',
              expiresAt: row.lease_expires_at ?? '',
            },
    };
  }
  return entry;
}
