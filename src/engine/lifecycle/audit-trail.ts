import type { AuditAction, AuditEventRecord, RowCounts } from '../../domain/lifecycle.ts';
import { nowIso, type EngineContext } from '../engine-context.ts';

/** An audit event to write (in the transaction of what it records, where there is one). */
export function auditEvent(
  context: EngineContext,
  appId: string,
  actor: string | null,
  action: AuditAction,
  target: string | null,
  counts: RowCounts,
  details: AuditEventRecord['details'] = {},
): AuditEventRecord {
  return { id: context.newId('audit'), appId, actor, action, target, counts, details, createdAt: nowIso(context) };
}
