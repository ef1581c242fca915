import type { WebhookEndpoint } from './api-types.ts';

/**
 * The webhook page's pure logic: the event types an endpoint may ask for, and turning what a
 * person typed into the request's fields. Kept apart from the components so it is tested without
 * a browser.
 */

/**
 * The event types Baton sends, with what each means. The console cannot import the server's
 * list (src/domain/webhooks.ts), so test/console/webhook-endpoints.test.ts holds the two equal.
 */
export const WEBHOOK_EVENT_TYPES: readonly { type: string; meaning: string }[] = [
  { type: 'tool_call.pending', meaning: 'a tool call waits for an answer or an approval' },
  { type: 'tool_call.resolved', meaning: 'a tool call was answered, decided, expired or cancelled' },
  { type: 'turn.completed', meaning: 'an agent finished a turn' },
  { type: 'turn.failed', meaning: 'a turn failed' },
  { type: 'turn.requires_action', meaning: 'a turn paused on calls that wait for an answer' },
  { type: 'response.completed', meaning: 'a background Responses request finished' },
  { type: 'response.failed', meaning: 'a background Responses request failed' },
  {
    type: 'endpoint.disabled',
    meaning: "Baton disabled another of the app's endpoints, whose deliveries kept failing",
  },
];

/** `["*"]` asks for every event type, also ones a later Baton adds. */
export const EVERY_EVENT_TYPE = '*';

/** The most a rotated-out secret may keep signing (the API's limit: 7 days), in hours. */
export const MAX_GRACE_HOURS = 7 * 24;
export const DEFAULT_GRACE_HOURS = 24;

/**
 * Names typed into one box ("support, billing" or one per line) as the API's list, or undefined
 * when the box is empty: an absent filter means every agent (or tool), an empty list is refused.
 */
export function namesFromInput(text: string): string[] | undefined {
  const names = [...new Set(text.split(/[\s,]+/).filter((name) => name !== ''))];
  return names.length === 0 ? undefined : names;
}

/**
 * The hours typed for a rotation's grace period as the API's whole seconds, or an error that says
 * what to type instead. Hours, because nobody thinks of a secret hand-over in seconds.
 */
export function graceSecondsFromHours(text: string): { seconds: number } | { error: string } {
  const trimmed = text.trim();
  const hours = Number(trimmed);
  if (trimmed === '' || !Number.isFinite(hours) || hours < 0 || hours > MAX_GRACE_HOURS)
    return {
      error: `Enter how many hours the old secret keeps signing, from 0 (stops at once) to ${MAX_GRACE_HOURS} (7 days).`,
    };
  return { seconds: Math.round(hours * 3600) };
}

/** "every event type" or the types, for a list row. */
export function eventTypesLabel(types: readonly string[]): string {
  return types.includes(EVERY_EVENT_TYPE) ? 'every event type' : types.join(', ');
}

/** "every agent", or the names: a null filter lets everything through. */
export function filterLabel(names: readonly string[] | null, every: string): string {
  return names === null ? every : names.join(', ');
}

/** Enabled, disabled by a person, or disabled by Baton after failures (which says why). */
export function endpointStatus(endpoint: WebhookEndpoint): { label: string; tone: 'enabled' | 'disabled' } {
  if (endpoint.enabled) return { label: 'enabled', tone: 'enabled' };
  return { label: endpoint.disabled_reason === null ? 'disabled' : 'disabled by Baton', tone: 'disabled' };
}
