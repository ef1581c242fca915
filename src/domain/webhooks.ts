import type { JsonObject } from './json.ts';

/**
 * Webhooks (issue 20): what an app's endpoints may ask for, and the records of the outbox. An
 * event row is written in the same transaction as the change that caused it (a ledger row made
 * pending or resolved, a turn's status), so a crash never loses one and a rollback never sends one.
 */
export const WEBHOOK_EVENT_TYPES = [
  'tool_call.pending',
  'tool_call.resolved',
  'turn.completed',
  'turn.failed',
  'turn.requires_action',
  'response.completed',
  'response.failed',
  'endpoint.disabled',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}

export interface WebhookEndpointRecord {
  id: string;
  appId: string;
  url: string;
  description: string | null;
  /** Event types, or `['*']` for every one. */
  eventTypes: string[];
  /** Only events of these agents (null: any). */
  agents: string[] | null;
  /** Only events of these tools (null: any); turn events have no tool and pass. */
  tools: string[] | null;
  includeArguments: boolean;
  enabled: boolean;
  /** The signing secret (`whsec_…`), encrypted with the server's secrets key. */
  secretCiphertext: string;
  /** The secret a rotation replaced, still signing until `previousSecretExpiresAt`. */
  previousSecretCiphertext: string | null;
  previousSecretExpiresAt: string | null;
  /** When deliveries to it started failing without a success since (null: healthy). */
  failingSince: string | null;
  /** Why Baton disabled it (null when enabled or disabled by hand). */
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
}

/** One change, as written to the outbox; `data` holds the payload (with `arguments`, stripped at delivery unless asked for). */
export interface WebhookEventRecord {
  /** Monotonic across the database: the order events were committed in, per conversation too. */
  seq: number;
  id: string;
  appId: string;
  type: WebhookEventType;
  conversationId: string | null;
  agentName: string | null;
  toolName: string | null;
  data: JsonObject;
  createdAt: string;
}

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDeliveryRecord {
  id: string;
  appId: string;
  endpointId: string;
  eventId: string;
  eventSeq: number;
  eventType: string;
  conversationId: string | null;
  status: WebhookDeliveryStatus;
  /** Attempts made so far (a claim counts as one). */
  attempts: number;
  /** When the next attempt is due; while claimed, when the claim lapses. */
  nextAttemptAt: string | null;
  claimToken: string | null;
  lastAttemptAt: string | null;
  lastResponseCode: number | null;
  /** A short excerpt of the last answer or the error (never a whole body). */
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A new outbox row (the store assigns `seq`). */
export type NewWebhookEvent = Omit<WebhookEventRecord, 'seq'>;
