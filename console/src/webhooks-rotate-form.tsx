import { useEffect, useRef, useState } from 'preact/hooks';
import { AlertRegion } from './alert-region.tsx';
import type { IssuedWebhookEndpoint } from './api-types.ts';
import { useSession } from './session-context.ts';
import { DEFAULT_GRACE_HOURS, graceSecondsFromHours, MAX_GRACE_HOURS } from './webhooks-fields.ts';

interface Props {
  endpointId: string;
  onRotated(issued: IssuedWebhookEndpoint): void;
  onCancel(): void;
}

/**
 * A new signing secret, with how long the old one keeps signing beside it (a second signature),
 * so receivers can switch without dropping a delivery.
 */
export function RotateSecretForm({ endpointId, onRotated, onCancel }: Props) {
  const { client } = useSession();
  const [hours, setHours] = useState(String(DEFAULT_GRACE_HOURS));
  const [errors, setErrors] = useState<string[]>([]);
  const [invalid, setInvalid] = useState(false);
  const [busy, setBusy] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    inputRef.current?.focus();
  }, []);

  const rotate = async () => {
    if (busy) return;
    const grace = graceSecondsFromHours(hours);
    if ('error' in grace) {
      setErrors([grace.error]);
      setInvalid(true);
      inputRef.current?.focus();
      return;
    }
    setBusy(true);
    setErrors([]);
    setInvalid(false);
    try {
      onRotated(await client.rotateWebhookSecret(endpointId, grace.seconds));
    } catch (error) {
      setErrors([(error as Error).message]);
      setBusy(false);
    }
  };

  return (
    <form
      class="card stack"
      aria-label="Rotate the signing secret"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void rotate();
      }}
    >
      <div class="field">
        <label for="webhook-grace-hours">Old secret keeps signing for (hours)</label>
        <input
          id="webhook-grace-hours"
          ref={inputRef}
          class="short-input"
          type="number"
          inputMode="decimal"
          min={0}
          max={MAX_GRACE_HOURS}
          step="any"
          value={hours}
          aria-invalid={invalid}
          aria-describedby="webhook-grace-hint"
          onInput={(event) => {
            setHours(event.currentTarget.value);
            setInvalid(false);
          }}
        />
        <p class="hint" id="webhook-grace-hint">
          Deliveries carry both signatures until then, so receivers can switch unhurried. 0 stops the old secret at
          once; at most {MAX_GRACE_HOURS} (7 days).
        </p>
      </div>
      <div class="button-row">
        <button type="submit" class="primary" aria-disabled={busy}>
          Rotate now
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        {busy && <span role="status">Rotating…</span>}
      </div>
      <AlertRegion messages={errors} />
    </form>
  );
}
