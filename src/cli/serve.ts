import { loadConfig } from '../server/config.ts';
import { createBaton } from '../server/start-baton.ts';

/** `baton serve`: runs until SIGINT/SIGTERM, then closes the server and the database cleanly. */
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
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await baton.close();
  return 0;
}
