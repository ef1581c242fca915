import { loadConfig } from '../server/config.ts';
import { createBaton } from '../server/start-baton.ts';

/** `baton serve`: runs until SIGINT/SIGTERM, then drains (see `BatonInstance.drain`) and closes the database. */
export async function runServe(): Promise<number> {
  const config = loadConfig();
  const baton = await createBaton(config, { logger: { level: process.env.LOG_LEVEL ?? 'info' } });
  const url = await baton.listen();
  if (baton.generatedAdminKey) {
    // Shown once: only its hash is stored.
    console.log(`\nFirst admin API key (shown only this once, store it now):\n\n  ${baton.generatedAdminKey}\n`);
  }
  if (baton.generatedSecretsKeyFile) {
    console.log(
      `\nA new key for stored secrets was written to ${baton.generatedSecretsKeyFile}: back it up ` +
        `(without it the secrets cannot be read), or set BATON_SECRETS_KEY.\n`,
    );
  }
  console.log(
    `Baton listening on ${url} (${config.source ? `config ${config.source}` : 'built-in demo agent refund-desk'}, ` +
      `data in ${config.databaseUrl ? 'Postgres' : config.dataDir})`,
  );
  if (baton.metricsUrl) console.log(`Prometheus metrics at ${baton.metricsUrl}`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  // A second signal while draining means: stop now (what runs stays resumable elsewhere).
  const now = () => process.exit(1);
  process.once('SIGINT', now);
  process.once('SIGTERM', now);
  console.log(
    `Draining: readiness fails now; requests and turns in flight get ${config.drain.timeoutSeconds} s to finish ` +
      `(server.drain_timeout_seconds). Send the signal again to stop at once.`,
  );
  const { cutRequests, cutTurns } = await baton.drain();
  if (cutRequests || cutTurns)
    console.log('Drained with work still running: its turns stay in_progress, for another replica or the next start.');
  else console.log('Drained: every request and turn finished.');
  // Work the timeout cut may still hold timers or sockets: the process ends anyway, soon.
  setTimeout(() => process.exit(0), 1_000).unref();
  return 0;
}
