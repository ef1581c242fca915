import { roleAllows } from '../../domain/access.ts';
import { BatonError } from '../../domain/errors/baton-error.ts';
import type { AuditAction, AuditEventRecord, RowCounts } from '../../domain/lifecycle.ts';
import type { Principal } from '../../domain/principal.ts';
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

/**
 * Whose audit trail a caller may list: its own app's; an operator key, any app's it names, a
 * deleted and purged one included (nobody else can list those: the app's own keys are gone).
 * Another app is not found for everyone else, as on every face.
 */
export function auditAppFor(principal: Principal, appId: string | undefined): string {
  if (appId === undefined || appId === principal.appId || roleAllows(principal.role, 'operate'))
    return appId ?? principal.appId;
  throw new BatonError(
    'app_not_found',
    `App '${appId}' was not found; omit app_id to list the audit events of this key's own app.`,
    { param: 'app_id' },
  );
}
