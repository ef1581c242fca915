import { fmt, table } from './report.ts';
import { VARIANTS, LABELS, type Step, type SdkRunnerResult } from './sdk-runner-types.ts';

/** The SDK-runner phase's part of the bench report (bench/sdk-runner.ts measures it). */

export function sdkRunnerReport(result: SdkRunnerResult): string[] {
  const rows = result.levels.flatMap((level) =>
    VARIANTS.map((variant) => {
      const load = level.variants[variant];
      return [
        LABELS[variant],
        String(load.clients),
        fmt(load.roundTripsPerSecond, 0),
        fmt(load.roundTrip.p50, 2),
        fmt(load.roundTrip.p99, 2),
        load.serverCpuCores === null ? 'n/a' : fmt(load.serverCpuCores, 2),
        fmt(load.serverCpuMsPerRoundTrip, 2),
        fmt(load.loadCpuCores, 2),
        fmt(load.clientCpuMsPerRoundTrip, 3),
        String(load.errors),
      ];
    }),
  );
  const stepCells = (s: Step) => `${fmt(s.throughput, 2)} / ${s.addedP50Ms >= 0 ? '+' : ''}${fmt(s.addedP50Ms, 2)}`;
  const derivedRows = result.levels.map((level) => [
    String(level.clients),
    fmt(level.sdkToBaseline.throughput, 3),
    fmt(level.sdkToBaseline.addedP50Ms, 2),
    fmt(level.sdkToBaseline.addedP99Ms, 2),
    stepCells(level.transport),
    stepCells(level.idempotencyKeys),
    stepCells(level.runner),
    fmt(level.runner.addedClientCpuMs, 3),
  ]);
  const s = result.sequential;
  const seqCells = VARIANTS.map(
    (variant) =>
      `${LABELS[variant]} ${fmt(s.variants[variant].latency.p50, 2)} ms (client CPU median ${fmt(s.variants[variant].clientCpu.p50, 3)}, ` +
      `mean ${fmt(s.variants[variant].clientCpu.mean, 3)} ms)`,
  ).join('; ');
  const wraps = result.levels.filter((level) => level.poolWraps > 0).map((level) => level.clients);
  const lines = [
    '',
    `SDK runner beside the hand-written round trip (same Baton child; ${result.slices} alternating ` +
      `slices per level; a new thread every ${result.turnsPerThread} round trips). Server CPU = Baton's; ` +
      `load CPU = this process's (transport + runner).${wraps.length > 0 ? ` Threads reused at ${wraps.join(', ')} client(s)!` : ''}`,
    table(
      [
        'round trip',
        'clients',
        'rt/s',
        'p50 ms',
        'p99 ms',
        'server CPU',
        'srv ms/rt',
        'load CPU',
        'client ms/rt',
        'errors',
      ],
      rows,
    ),
    '',
    'SDK / baseline, and the difference in steps (each: throughput ratio / added p50 ms): fetch vs node:http, keys vs none, SDK vs hand-written with keys:',
    table(
      [
        'clients',
        'SDK/base rt/s',
        'added p50 ms',
        'added p99 ms',
        'transport',
        'idempotency keys',
        'runner',
        'runner client CPU ms',
      ],
      derivedRows,
    ),
    `Sequential, interleaved (${s.samples} of each, medians): ${seqCells}.`,
    `  SDK − baseline ${fmt(s.sdkMinusBaselineMs, 2)} ms = transport ${fmt(s.transportMs, 2)} + ` +
      `idempotency keys ${fmt(s.idempotencyKeysMs, 2)} + runner ${fmt(s.runnerMs, 2)} (runner client ` +
      `CPU ${fmt(s.runnerClientCpuMs, 3)} ms)`,
    `  One results key, CPU / wall µs (medians of ${result.keyDerivation[0]?.calls ?? 0}): ` +
      [0, 2]
        .map(
          (gap) =>
            `${gap === 0 ? 'back to back' : `after ${gap} ms idle`}: ${result.keyDerivation
              .filter((k) => k.gapMs === gap)
              .map((k) => `${k.hash} ${fmt(k.cpuUs, 0)} / ${fmt(k.wallUs, 0)}`)
              .join(', ')}`,
        )
        .join('; '),
  ];
  const p = result.inProcess;
  lines.push(
    `  In process over a stub fetch (CPU µs per round trip, medians of ${p.blocks} blocks of ${p.runsPerBlock}): ` +
      `hand-written ${fmt(p.cpuUs.handFetch, 1)}, with keys ${fmt(p.cpuUs.handFetchKeys, 1)}, SDK ` +
      `${fmt(p.cpuUs.sdk, 1)}; the runner's own cost ${fmt(p.runnerUs, 1)} µs`,
  );
  if (p.profile) {
    lines.push(
      `    Profiled (${p.profile.files.join(', ')}), self CPU µs per round trip (shares × the figures above), hand-written with keys → SDK: ` +
        p.profile.byGroup.map((group) => `${group.name} ${fmt(group.handUs, 1)} → ${fmt(group.sdkUs, 1)}`).join(', '),
    );
  }
  for (const profile of result.profiles) {
    lines.push(
      `  Client CPU, ${LABELS[profile.variant]} at ${profile.clients} clients (${profile.file}): ${fmt(profile.clientCpuMsPerRoundTrip, 3)} ms/rt = ` +
        profile.byGroup
          .filter((group) => group.msPerRoundTrip >= 0.005)
          .map((group) => `${group.name} ${fmt(group.msPerRoundTrip, 3)}`)
          .join(', '),
    );
  }
  for (const entry of result.sql) {
    lines.push(
      `  Baton SQLite per round trip, ${LABELS[entry.variant]}: ${fmt(entry.statementsPerRoundTrip, 1)} ` +
        `statements, ${fmt(entry.commitsPerRoundTrip, 1)} commits, ${fmt(entry.sqliteMsPerRoundTrip, 2)} ` +
        `ms` +
        (entry.idempotencyStatements.length > 0
          ? `; idempotency: ${entry.idempotencyStatements
              .map((stat) => `${fmt(stat.perRoundTrip, 1)} × ${stat.sql.slice(0, 60)} (${fmt(stat.meanUs, 0)} µs)`)
              .join('; ')}`
          : ''),
    );
  }
  return lines;
}
