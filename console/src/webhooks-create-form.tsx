import { useRef, useState } from 'preact/hooks';
import { AlertRegion } from './alert-region.tsx';
import { ApiError } from './api-client.ts';
import type { IssuedWebhookEndpoint, WebhookEndpointCreate } from './api-types.ts';
import { useSession } from './session-context.ts';
import { EVERY_EVENT_TYPE, namesFromInput, WEBHOOK_EVENT_TYPES } from './webhooks-fields.ts';

type Field = 'url' | 'description' | 'event_types' | 'agents' | 'tools';
const FIELDS: readonly Field[] = ['url', 'description', 'event_types', 'agents', 'tools'];

/** `event_types[2]` → `event_types`: the server names the entry, the form marks the whole field. */
function fieldOf(param: string | null): Field | null {
  const name = param?.split(/[[.]/, 1)[0];
  return FIELDS.find((field) => field === name) ?? null;
}

function checkboxId(type: string): string {
  return type === EVERY_EVENT_TYPE ? 'webhook-event-all' : `webhook-event-${type.replace(/\W/g, '-')}`;
}

/**
 * A new webhook endpoint: where to send, which events, and optional agent and tool filters. The
 * URL is checked by the server (the egress guard), whose refusal is shown as it says it.
 */
export function CreateEndpointForm({ onCreated }: { onCreated(issued: IssuedWebhookEndpoint): void }) {
  const { client } = useSession();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [types, setTypes] = useState<ReadonlySet<string>>(() => new Set([EVERY_EVENT_TYPE]));
  const [agents, setAgents] = useState('');
  const [tools, setTools] = useState('');
  const [includeArguments, setIncludeArguments] = useState(false);
  const [errors, setErrors] = useState<string[]>([]);
  const [invalid, setInvalid] = useState<Field | null>(null);
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);

  const focusField = (field: Field | null) => {
    const id = field === 'event_types' ? checkboxId(EVERY_EVENT_TYPE) : field && `webhook-${field}`;
    if (id) formRef.current?.querySelector<HTMLElement>(`#${id}`)?.focus();
  };

  const refuse = (message: string, field: Field | null) => {
    setErrors([message]);
    setInvalid(field);
    focusField(field);
  };

  // "Every event type" and single types exclude each other: picking one clears the other.
  const toggleType = (type: string, checked: boolean) => {
    setInvalid((current) => (current === 'event_types' ? null : current));
    if (type === EVERY_EVENT_TYPE) return setTypes(new Set(checked ? [EVERY_EVENT_TYPE] : []));
    const next = new Set(types);
    next.delete(EVERY_EVENT_TYPE);
    if (checked) next.add(type);
    else next.delete(type);
    setTypes(next);
  };

  const submit = async () => {
    if (busy) return;
    if (url.trim() === '') return refuse('Enter the URL Baton should send events to.', 'url');
    if (types.size === 0) return refuse('Choose at least one event type, or every event type.', 'event_types');
    const agentNames = namesFromInput(agents);
    const toolNames = namesFromInput(tools);
    const body: WebhookEndpointCreate = {
      url: url.trim(),
      // In the list's order, so the endpoint reads the same way the checkboxes do.
      event_types: types.has(EVERY_EVENT_TYPE)
        ? [EVERY_EVENT_TYPE]
        : WEBHOOK_EVENT_TYPES.map((entry) => entry.type).filter((type) => types.has(type)),
      include_arguments: includeArguments,
      ...(description.trim() === '' ? {} : { description: description.trim() }),
      ...(agentNames ? { agents: agentNames } : {}),
      ...(toolNames ? { tools: toolNames } : {}),
    };
    setBusy(true);
    setErrors([]);
    setInvalid(null);
    try {
      const issued = await client.createWebhookEndpoint(body);
      setUrl('');
      setDescription('');
      setTypes(new Set([EVERY_EVENT_TYPE]));
      setAgents('');
      setTools('');
      setIncludeArguments(false);
      onCreated(issued);
    } catch (error) {
      refuse((error as Error).message, error instanceof ApiError ? fieldOf(error.param) : null);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      ref={formRef}
      class="card stack"
      aria-label="New webhook endpoint"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <div class="field">
        <label for="webhook-url">
          URL <span class="required">(required)</span>
        </label>
        <input
          id="webhook-url"
          type="url"
          inputMode="url"
          autoComplete="off"
          value={url}
          aria-invalid={invalid === 'url'}
          aria-describedby="webhook-url-hint"
          onInput={(event) => setUrl(event.currentTarget.value)}
        />
        <p class="hint" id="webhook-url-hint">
          http or https. Loopback and private addresses are refused unless the server&apos;s egress.allow lists them.
        </p>
      </div>
      <div class="field">
        <label for="webhook-description">Description</label>
        <input
          id="webhook-description"
          type="text"
          maxLength={500}
          value={description}
          aria-invalid={invalid === 'description'}
          onInput={(event) => setDescription(event.currentTarget.value)}
        />
      </div>
      <fieldset class={invalid === 'event_types' ? 'invalid' : undefined} aria-describedby="webhook-events-hint">
        <legend>Event types</legend>
        <p class="hint" id="webhook-events-hint">
          Every event type also takes those a later Baton adds; or pick the ones this receiver handles.
        </p>
        {[{ type: EVERY_EVENT_TYPE, meaning: '' }, ...WEBHOOK_EVENT_TYPES].map(({ type, meaning }) => (
          <div class="field checkbox event-type" key={type}>
            <input
              id={checkboxId(type)}
              type="checkbox"
              checked={types.has(type)}
              onChange={(event) => toggleType(type, event.currentTarget.checked)}
            />
            <label for={checkboxId(type)}>
              {type === EVERY_EVENT_TYPE ? (
                'Every event type'
              ) : (
                <>
                  <span class="mono">{type}</span> <span class="event-meaning">— {meaning}</span>
                </>
              )}
            </label>
          </div>
        ))}
      </fieldset>
      <div class="field">
        <label for="webhook-agents">Only these agents</label>
        <input
          id="webhook-agents"
          type="text"
          autoComplete="off"
          value={agents}
          aria-invalid={invalid === 'agents'}
          aria-describedby="webhook-agents-hint"
          onInput={(event) => setAgents(event.currentTarget.value)}
        />
        <p class="hint" id="webhook-agents-hint">
          Agent names separated by commas; leave empty for every agent.
        </p>
      </div>
      <div class="field">
        <label for="webhook-tools">Only these tools</label>
        <input
          id="webhook-tools"
          type="text"
          autoComplete="off"
          value={tools}
          aria-invalid={invalid === 'tools'}
          aria-describedby="webhook-tools-hint"
          onInput={(event) => setTools(event.currentTarget.value)}
        />
        <p class="hint" id="webhook-tools-hint">
          Tool names separated by commas; leave empty for every tool. Turn events have no tool and always pass.
        </p>
      </div>
      <div class="field checkbox">
        <input
          id="webhook-include-arguments"
          type="checkbox"
          checked={includeArguments}
          aria-describedby="webhook-include-arguments-hint"
          onChange={(event) => setIncludeArguments(event.currentTarget.checked)}
        />
        <label for="webhook-include-arguments">Include call arguments</label>
        <p class="hint" id="webhook-include-arguments-hint">
          Call events then carry the call&apos;s arguments, which may hold personal data. Off unless the receiver needs
          them.
        </p>
      </div>
      <div class="button-row">
        <button type="submit" class="primary" aria-disabled={busy}>
          Create endpoint
        </button>
        {busy && <span role="status">Creating…</span>}
      </div>
      <AlertRegion id="webhook-create-errors" messages={errors} />
    </form>
  );
}
