import { fullTime, relativeTime } from './relative-time.ts';

/** A moment shown as "3 min ago", with the exact time as a tooltip and machine-readable. */
export function When({ at, now }: { at: string; now: number }) {
  return (
    <time dateTime={at} title={fullTime(at)}>
      {relativeTime(at, now)}
    </time>
  );
}
