// Each command is loaded when it runs: `baton serve` does not load the chat client, and `baton
// help` or `baton keys` do not load the server.

const USAGE = `Usage:
  baton serve                 start the server (config: ./baton.yaml or BATON_CONFIG; HOST, PORT, BATON_DATA_DIR,
                              DATABASE_URL, BATON_ADMIN_KEY)
  baton config check [FILE]   check the configuration as baton serve reads it (FILE, BATON_CONFIG or ./baton.yaml):
                              every problem with its path; exits 1 if there is one
  baton migrate               bring the database schema up to date and exit (DATABASE_URL or BATON_DATA_DIR)
  baton chat AGENT            chat with an agent in the terminal, answering its client-executed tool calls at a prompt
                              (BATON_URL, default http://127.0.0.1:8080; BATON_API_KEY)
  baton keys list|create|revoke|rotate
                              manage API keys (an app admin's of its app; an operator's of any app with --app)`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return (await import('./serve.ts')).runServe();
    case 'chat':
      return (await import('./chat.ts')).runChat(rest);
    case 'keys':
      return (await import('./keys.ts')).runKeys(rest);
    case 'migrate':
      return (await import('./migrate.ts')).runMigrate();
    case 'config':
      return (await import('./config-check.ts')).runConfig(rest);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return command === undefined ? 1 : 0;
    default:
      console.error(`Unknown command '${command}'.\n${USAGE}`);
      return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
