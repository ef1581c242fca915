import type { BatonConfig } from '../server/config.ts';
import { checkConfig } from '../server/config.ts';
import { describeConfigIssues } from '../server/config-issues.ts';

export const CONFIG_USAGE = `Usage: baton config check [FILE]
  Checks the configuration baton serve would read (FILE, else BATON_CONFIG, else ./baton.yaml), with
  the environment's \${VAR} values and overrides, and lists every problem. Exits 1 when there is one.`;

/** `baton config check [file]`: every problem of the file at once, without starting anything. */
export async function runConfig(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): Promise<number> {
  const [action, file, ...extra] = args;
  if (action === 'help' || action === '--help' || action === '-h') {
    console.log(CONFIG_USAGE);
    return 0;
  }
  if (action !== 'check' || extra.length > 0) {
    console.error(CONFIG_USAGE);
    return 1;
  }
  // The argument takes BATON_CONFIG's place: everything else reads as `baton serve` reads it.
  const checked = checkConfig(file === undefined ? env : { ...env, BATON_CONFIG: file }, cwd);
  const notes = checked.unsetVariables.map(
    (name) => `note: \${${name}} is not set, so it reads as nothing (give a default with \${${name}:-value}).`,
  );
  if (checked.config === null) {
    console.error([describeConfigIssues(checked.source, checked.issues), ...notes].join('\n'));
    return 1;
  }
  console.log([...summary(checked.config), ...notes].join('\n'));
  return 0;
}

/** A few lines saying what the server would run with; no secret (a database URL holds a password). */
function summary(config: BatonConfig): string[] {
  const providers = [
    ...Object.keys(config.providers).filter((name) => name !== 'custom'),
    ...Object.keys(config.providers.custom ?? {}),
  ];
  const programs = Object.keys(config.scripted);
  return [
    config.source === null
      ? 'OK: no configuration file (no ./baton.yaml, no BATON_CONFIG): baton serve runs the built-in demo agent.'
      : `OK: ${config.source}`,
    `  listens on  ${config.host}:${config.port}`,
    `  database    ${config.databaseUrl === null ? `SQLite in ${config.dataDir}` : 'PostgreSQL (DATABASE_URL or database.url)'}`,
    `  agents      ${config.agents.map((agent) => `${agent.name} (${agent.model})`).join(', ') || 'none'}`,
    `  providers   ${providers.join(', ') || 'none'}${programs.length > 0 ? `; scripted programs: ${programs.join(', ')}` : ''}`,
  ];
}
