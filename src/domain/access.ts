import { BatonError } from './errors/baton-error.ts';
import type { ApiKeyRole } from './records.ts';
import type { Principal } from './principal.ts';

/**
 * What an action needs, from least to most:
 * - `read`: see the app's conversations, calls and resources (dashboards);
 * - `use`: talk to agents, answer calls and approvals, cancel and delete conversations;
 * - `manage`: change what the app is made of (agents, tools, toolsets, secrets, settings, keys);
 * - `operate`: run the server (create, list and delete every app; keys of any app).
 */
export type Capability = 'read' | 'use' | 'manage' | 'operate';

/** The most each role may do. Roles nest: an operator may do all an app admin may, and so on. */
const ROLE_REACH: Readonly<Record<ApiKeyRole, Capability>> = {
  reader: 'read',
  member: 'use',
  admin: 'manage',
  operator: 'operate',
};

const ORDER: readonly Capability[] = ['read', 'use', 'manage', 'operate'];

/** The role a capability first belongs to, for messages ("needs an admin key"). */
const LEAST_ROLE: Readonly<Record<Capability, ApiKeyRole>> = {
  read: 'reader',
  use: 'member',
  manage: 'admin',
  operate: 'operator',
};

export const API_KEY_ROLES: readonly ApiKeyRole[] = ['reader', 'member', 'admin', 'operator'];

export function roleAllows(role: ApiKeyRole, capability: Capability): boolean {
  return ORDER.indexOf(ROLE_REACH[role]) >= ORDER.indexOf(capability);
}

/** The least role that may do `capability`. */
export function leastRoleFor(capability: Capability): ApiKeyRole {
  return LEAST_ROLE[capability];
}

/**
 * Refuses an action above the key's role with 403 `insufficient_role`, naming the action, the
 * key's role and the role it needs, so the caller knows which key to use instead.
 */
export function requireCapability(principal: Principal, capability: Capability, action: string): void {
  if (roleAllows(principal.role, capability)) return;
  const needed = leastRoleFor(capability);
  throw new BatonError(
    'insufficient_role',
    `${action} needs a key with role '${needed}' or above; this key (${principal.keyId}) has role '${principal.role}'. ` +
      (needed === 'operator'
        ? "Use the server's operator key (BATON_ADMIN_KEY) or one an operator minted."
        : 'Use another key, or ask an app admin for one (POST /v1/api-keys).'),
    { details: { required_role: needed, key_role: principal.role } },
  );
}
