import { useEffect, useRef, useState } from 'preact/hooks';

interface Props {
  title: string;
  secret: string;
  /** A line on what happens next (e.g. how long the rotated-out secret keeps signing). */
  detail?: string;
  onDone(): void;
}

/**
 * A signing secret, shown the one time the server returns it (creation, rotation). Focus moves to
 * it so nobody misses it; it lives only in this page's memory, so leaving the page forgets it.
 */
export function SecretNotice({ title, secret, detail, onDone }: Props) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const [copyStatus, setCopyStatus] = useState('');

  useEffect(() => {
    headingRef.current?.focus();
    setCopyStatus('');
  }, [secret]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopyStatus('Copied.');
    } catch {
      // No clipboard (an insecure origin, a refused permission): leave the text selected to copy by hand.
      inputRef.current?.select();
      setCopyStatus('Could not copy: the secret is selected, copy it with your keyboard.');
    }
  };

  return (
    <section class="card stack secret-notice" aria-labelledby="secret-title">
      <h2 id="secret-title" tabIndex={-1} ref={headingRef}>
        {title}
      </h2>
      <p>
        <strong>Copy this secret now: it will not be shown again.</strong> Baton keeps it encrypted and never returns
        it; if it is lost, rotate the secret to get a new one.
      </p>
      <div class="field">
        <label for="signing-secret">Signing secret</label>
        {/* A text area, so the whole secret shows (wrapped) on a phone too. */}
        <textarea
          id="signing-secret"
          ref={inputRef}
          class="mono"
          rows={2}
          readOnly
          spellcheck={false}
          value={secret}
          aria-describedby="signing-secret-hint"
          onFocus={(event) => event.currentTarget.select()}
        />
        <p class="hint" id="signing-secret-hint">
          Receivers check each delivery&apos;s <code>webhook-signature</code> header with it (Standard Webhooks).
          {detail && ` ${detail}`}
        </p>
      </div>
      <div class="button-row">
        <button type="button" onClick={() => void copy()}>
          Copy secret
        </button>
        <button type="button" class="primary" onClick={onDone}>
          I have stored the secret
        </button>
        <span role="status">{copyStatus}</span>
      </div>
    </section>
  );
}
