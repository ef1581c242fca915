import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoadResult } from './load.ts';

/** Formatting of the `npm run bench` report (bench/run.ts): the measured code, numbers and tables. */

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Which server code was measured: the commit and how many files under src/ differ from it. */
export function gitState(): { commit: string; modifiedSrcFiles: number } | null {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT }).toString().trim();
    const status = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: REPO_ROOT }).toString();
    return { commit, modifiedSrcFiles: status.split('\n').filter((line) => line.trim() !== '').length };
  } catch {
    return null;
  }
}

export const fmt = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function loadRow(label: string, result: LoadResult): string[] {
  return [
    label,
    String(result.clients),
    fmt(result.roundTripsPerSecond, 0),
    fmt(result.roundTrip.p50, 2),
    fmt(result.roundTrip.p99, 2),
    fmt(result.request.p50, 2),
    fmt(result.request.p99, 2),
    result.serverCpuCores === null ? 'n/a' : fmt(result.serverCpuCores, 2),
    fmt(result.loadCpuCores, 2),
    String(result.errors),
  ];
}
