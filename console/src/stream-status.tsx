import type { StreamStatus } from './ledger-stream.ts';

const LABEL: Record<StreamStatus, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  stopped: 'Not live',
};

/** The live-updates light; polite, so a flapping connection never interrupts a screen reader. */
export function StreamStatusBadge({ status, detail }: { status: StreamStatus; detail: string | null }) {
  return (
    <p class={`stream-status stream-${status}`} role="status" aria-live="polite" title={detail ?? undefined}>
      <span class="dot" aria-hidden="true" />
      {LABEL[status]}
    </p>
  );
}
