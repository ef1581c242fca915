import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkConfig, loadConfig } from '../../src/server/config.ts';
import { ConfigFileError, configPath } from '../../src/server/config-issues.ts';

/** Every problem of a configuration at once, each at its path and line, in the operator's words. */
describe('checking a configuration', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  function dirWith(yaml: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'baton-config-issues-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'baton.yaml'), yaml);
    return dir;
  }
  const problems = (yaml: string, env: NodeJS.ProcessEnv = {}) =>
    checkConfig(env, dirWith(yaml)).issues.map((issue) => `${issue.path}: ${issue.message} @${issue.line ?? '-'}`);

  const BROKEN = `server:
  prot: 8080
  port: 99999
engine:
  turn_lease_seconds: 100000
agents:
  - name: desk
    model: scripted:auto
  - name: second
    model: scripted:auto
  - name: third
    model: scripted:auto
    max_steps: 500
    tools:
      - name: "bad name"
      - name: ok_tool
        parameters: { type: string }
      - name: late
        timeout_seconds: 0
egress:
  allow: ["10.0.0.0/99", "inventory.internal", "bad host!"]
`;

  it('lists every problem with its path and line, in the order of the file', () => {
    const found = problems(BROKEN);
    expect(found).toEqual([
      expect.stringMatching(
        /^server\.prot: is not a known key; did you mean port\? \(known here: host, port, .*\) @2$/,
      ),
      'server.port: must be at most 65535 (got 99999) @3',
      'engine.turn_lease_seconds: must be a number of seconds from 3 to 86400 (1 day) @5',
      expect.stringMatching(/^agents\[2\]\.max_steps: max_steps must be an integer from 1 to 100 \(got 500\)\. @13$/),
      expect.stringMatching(/^agents\[2\]\.tools\[0\]\.name: Invalid tool name 'bad name': names must match .* @15$/),
      expect.stringMatching(/^agents\[2\]\.tools\[1\]\.parameters: .*must describe an object .* @17$/),
      'agents[2].tools[2].timeout_seconds: must be a number of seconds from 0.001 to 2592000 (30 days) @19',
      expect.stringMatching(/^egress\.allow\[0\]: "10\.0\.0\.0\/99" is not a valid CIDR; .* @21$/),
      expect.stringMatching(/^egress\.allow\[2\]: "bad host!" is not a CIDR, an IP address or a host name; .* @21$/),
    ]);
  });

  it('loadConfig throws the same list, one line per problem', () => {
    const dir = dirWith(BROKEN);
    let thrown: unknown;
    try {
      loadConfig({}, dir);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigFileError);
    const error = thrown as ConfigFileError;
    expect(error.issues).toEqual(checkConfig({}, dir).issues);
    const lines = error.message.split('\n');
    expect(lines[0]).toBe(`Invalid configuration in ${join(dir, 'baton.yaml')} (9 problems):`);
    expect(lines).toContain(
      '  engine.turn_lease_seconds: must be a number of seconds from 3 to 86400 (1 day) (line 5)',
    );
    expect(lines).toHaveLength(10);
  });

  it('names types, enums, unknown keys, missing keys and bad names in plain words', () => {
    expect(
      problems(`server:
  port: "not a port"
database:
  prepared_statements: "yes"
agents:
  - model: scripted:auto
    timeout_policy: never
providers:
  custom:
    openai: { base_url: "http://127.0.0.1:1/v1" }
scripted:
  auto: { rules: [{ say: hi }] }
  greeter: { rules: [{ say: 3 }] }
`),
    ).toEqual([
      'server.port: must be a number @2',
      'database.prepared_statements: must be true or false (got "yes") @4',
      'agents[0].name: is required @6',
      'agents[0].timeout_policy: must be one of error_result, fail, cancel (got "never") @7',
      expect.stringMatching(/^providers\.custom\.openai: is not an allowed name: .*not a built-in provider .* @10$/),
      'scripted.auto: is not an allowed name: "auto" is the built-in scripted program @12',
      'scripted.greeter.rules[0].say: must be text (got 3) @13',
    ]);
  });

  it('checks model ids against the providers and programs of the file', () => {
    const found = problems(`providers:
  custom:
    lmstudio: { base_url: "http://127.0.0.1:1234/v1" }
agents:
  - { name: a, model: "lmstudio:qwen" }
  - { name: b, model: "nowhere:model" }
  - { name: "c d", model: "scripted:missing" }
`);
    expect(found).toEqual([
      expect.stringMatching(
        /^agents\[1\]\.model: Unknown model "nowhere:model": the provider "nowhere" is not configured/,
      ),
      expect.stringMatching(/^agents\[2\]\.name: Invalid agent name 'c d'/),
      expect.stringMatching(
        /^agents\[2\]\.model: Unknown model "scripted:missing": no scripted program named "missing"/,
      ),
    ]);
  });

  it('reports every YAML syntax error with its line, and nothing the broken structure would suggest', () => {
    const found = problems('server:\n  port: 8080\n  port: 8081\nengine: [1, 2\nlimits:\n  turns_per_app: 0\n');
    expect(found.length).toBeGreaterThanOrEqual(2);
    expect(found.every((line) => line.startsWith(': YAML: '))).toBe(true);
    expect(found.some((line) => /unique/.test(line) && line.endsWith('@3'))).toBe(true);
  });

  it('interpolates the environment as at start, and names variables left unset', () => {
    const yaml = 'server:\n  port: ${BATON_TEST_PORT:-8080}\nproviders:\n  openai: { api_key: "${BATON_TEST_KEY}" }\n';
    const dir = dirWith(`# \${IN_A_COMMENT}\n${yaml}`);
    const checked = checkConfig({ BATON_TEST_PORT: '9090' }, dir);
    expect(checked.issues).toEqual([]);
    expect(checked.config?.port).toBe(9090);
    expect(checked.unsetVariables).toEqual(['BATON_TEST_KEY']);
    expect(problems(yaml, { BATON_TEST_PORT: '70000' })).toEqual(['server.port: must be at most 65535 (got 70000) @2']);
  });

  it("reports the environment's overrides with the file's problems", () => {
    const dir = dirWith('limits:\n  turns_total: 0\n');
    const issues = checkConfig({ PORT: 'abc', BATON_EGRESS_ALLOW: '10.0.0.0/8, 300.1.1.1/40' }, dir).issues;
    expect(issues.map((issue) => issue.path)).toEqual(['limits.turns_total', 'PORT', 'BATON_EGRESS_ALLOW[1]']);
  });

  it('a BATON_CONFIG that points nowhere is one problem; no file at all is the demo', () => {
    const dir = dirWith('{}\n');
    expect(checkConfig({ BATON_CONFIG: 'missing.yaml' }, dir).issues).toEqual([
      { path: 'BATON_CONFIG', message: `points to ${join(dir, 'missing.yaml')}, which does not exist` },
    ]);
    const empty = mkdtempSync(join(tmpdir(), 'baton-config-none-'));
    dirs.push(empty);
    const none = checkConfig({}, empty);
    expect(none.source).toBeNull();
    expect(none.config?.agents.map((agent) => agent.name)).toEqual(['refund-desk']);
  });

  it('writes paths as a reader writes them', () => {
    expect(configPath(['agents', 2, 'tools', 0, 'name'])).toBe('agents[2].tools[0].name');
    expect(configPath(['providers', 'custom', 'my provider'])).toBe('providers.custom["my provider"]');
    expect(configPath(['providers', 'openai-compatible', 'base_url'])).toBe('providers.openai-compatible.base_url');
    expect(configPath([])).toBe('');
  });
});
