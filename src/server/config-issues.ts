/**
 * What is wrong with a configuration, every problem at once: `baton config check` prints the list
 * and `baton serve` refuses to start with the same one. An operator fixing a file one error per
 * start would restart as many times as the file has mistakes.
 */

/** One problem: where (a path such as `agents[2].tools[0].name`, or an environment variable) and what. */
export interface ConfigIssue {
  path: string;
  message: string;
  /** The line of the file the value is on, when the problem is in the file. */
  line?: number;
}

/** A problem found by a check, before it is placed: `at` is the path as segments (`['agents', 2, 'name']`). */
export interface ConfigProblem {
  at: readonly PropertyKey[];
  message: string;
}

/** Problems as issues: their paths written out and, when they are in the file, their lines. */
export function placeConfigProblems(
  problems: readonly ConfigProblem[],
  lineOf: (path: readonly PropertyKey[]) => number | undefined,
): ConfigIssue[] {
  return problems.map(({ at, message }) => {
    const line = lineOf(at);
    return { path: configPath(at), message, ...(line === undefined ? {} : { line }) };
  });
}

/** In the file's order (a syntax error before the values on its line), then the environment's. */
export function inFileOrder(issues: readonly ConfigIssue[]): ConfigIssue[] {
  const line = (issue: ConfigIssue) => issue.line ?? Number.POSITIVE_INFINITY;
  return [...issues].sort((a, b) => line(a) - line(b) || Number(a.path !== '') - Number(b.path !== ''));
}

/** A key that reads plainly after a dot; any other is quoted in brackets. */
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** `['agents', 2, 'tools', 0, 'name']` → `agents[2].tools[0].name`; `providers.custom["my provider"]`. */
export function configPath(segments: readonly PropertyKey[]): string {
  let path = '';
  for (const segment of segments) {
    if (typeof segment === 'number') path += `[${segment}]`;
    else {
      const key = String(segment);
      path += PLAIN_KEY.test(key) ? `${path === '' ? '' : '.'}${key}` : `[${JSON.stringify(key)}]`;
    }
  }
  return path;
}

/** One line per problem: `path: message (line N)`; a problem of the whole file (its syntax) has no path. */
export function describeConfigIssue(issue: ConfigIssue): string {
  const where = issue.path === '' ? '' : `${issue.path}: `;
  return `${where}${issue.message}${issue.line === undefined ? '' : ` (line ${issue.line})`}`;
}

/** The heading and the list, as both commands print them. */
export function describeConfigIssues(source: string | null, issues: readonly ConfigIssue[]): string {
  const count = `${issues.length} problem${issues.length === 1 ? '' : 's'}`;
  const heading =
    source === null ? `Invalid configuration (${count}):` : `Invalid configuration in ${source} (${count}):`;
  return [heading, ...issues.map((issue) => `  ${describeConfigIssue(issue)}`)].join('\n');
}

/** Thrown by `loadConfig`: the message lists every problem; `issues` holds them for a program. */
export class ConfigFileError extends Error {
  constructor(
    readonly source: string | null,
    readonly issues: readonly ConfigIssue[],
  ) {
    super(describeConfigIssues(source, issues));
    this.name = 'ConfigFileError';
  }
}
