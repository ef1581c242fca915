import { useEffect, useState } from 'preact/hooks';

const UNITS: [limitSeconds: number, divisor: number, unit: string][] = [
  [60, 1, 's'],
  [3_600, 60, 'min'],
  [86_400, 3_600, 'h'],
  [Infinity, 86_400, 'd'],
];

/** "3 min ago", "in 2 h", "just now": short enough for a row on a phone. */
export function relativeTime(iso: string | null, now: number): string {
  if (iso === null) return 'never';
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const seconds = Math.round((at - now) / 1000);
  const size = Math.abs(seconds);
  if (size < 10) return 'just now';
  for (const [limit, divisor, unit] of UNITS) {
    if (size < limit) {
      const amount = Math.floor(size / divisor);
      return seconds < 0 ? `${amount} ${unit} ago` : `in ${amount} ${unit}`;
    }
  }
  return iso;
}

/** A clock that re-renders its user every `intervalMs`, so ages keep counting without a reload. */
export function useNow(intervalMs = 15_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

/** The absolute time, for a `title`/`dateTime` beside the relative one. */
export function fullTime(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : at.toLocaleString();
}
