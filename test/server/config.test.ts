import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { interpolateEnv, loadConfig } from '../../src/server/config.ts';
import { createBaton } from '../../src/server/start-baton.ts';
import { DEFAULT_LIMITS } from '../../src/server/limit-settings.ts';

describe('configuration', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  function dirWith(yaml: string | null): string {
    const dir = mkdtempSync(join(tmpdir(), 'baton-config-'));
    dirs.push(dir);
    if (yaml !== null) writeFileSync(join(dir, 'baton.yaml'), yaml);
    return dir;
  }

  it('interpolates ${VAR} and ${VAR:-default}', () => {
    expect(interpolateEnv('a=${A} b=${B:-fallback} c=${C}', { A: '1' })).toBe('a=1 b=fallback c=');
  });

  it('defaults: 127.0.0.1:8080, ./data, the demo agent; HOST, PORT and BATON_DATA_DIR override', () => {
    const dir = dirWith(null);
    const defaults = loadConfig({}, dir);
    expect(defaults).toMatchObject({ host: '127.0.0.1', port: 8080, dataDir: join(dir, 'data'), source: null });
    expect(defaults.agents.map((agent) => agent.name)).toEqual(['refund-desk']);
    const overridden = loadConfig(
      { HOST: '0.0.0.0', PORT: '9999', BATON_DATA_DIR: '/tmp/x', BATON_ADMIN_KEY: 'k' },
      dir,
    );
    expect(overridden).toMatchObject({ host: '0.0.0.0', port: 9999, dataDir: '/tmp/x', adminKey: 'k' });
    expect(() => loadConfig({ PORT: 'abc' }, dir)).toThrow(/PORT/);
  });

  it('reads baton.yaml with providers, scripted programs and agents; one line switches the model', () => {
    const dir = dirWith(`
providers:
  openai: { api_key: "\${OPENAI_KEY}" }
  custom:
    lmstudio: { base_url: "http://127.0.0.1:1234/v1" }
agents:
  - name: desk
    model: \${DESK_MODEL:-scripted:auto}
`);
    const config = loadConfig({ OPENAI_KEY: 'sk-test', DESK_MODEL: 'openai:gpt-4o-mini' }, dir);
    expect(config.providers.openai).toEqual({ apiKey: 'sk-test' });
    expect(config.providers.custom).toEqual({ lmstudio: { baseURL: 'http://127.0.0.1:1234/v1' } });
    expect(config.agents).toEqual([{ name: 'desk', model: 'openai:gpt-4o-mini' }]);
  });

  it('egress.allow: from the file, replaced by BATON_EGRESS_ALLOW, every entry checked at load', () => {
    expect(loadConfig({}, dirWith(null)).egressAllow).toEqual([]);
    const dir = dirWith('egress:\n  allow: ["10.0.0.0/8", "inventory.internal"]\n');
    expect(loadConfig({}, dir).egressAllow).toEqual(['10.0.0.0/8', 'inventory.internal']);
    expect(loadConfig({ BATON_EGRESS_ALLOW: '127.0.0.1/32, localhost' }, dir).egressAllow).toEqual([
      '127.0.0.1/32',
      'localhost',
    ]);
    expect(() => loadConfig({}, dirWith('egress:\n  allow: ["10.0.0.0/99"]\n'))).toThrow(
      /egress\.allow.*10\.0\.0\.0\/99/,
    );
  });

  it('server.idempotency_lease_seconds: 30 by default, 1 to 600', () => {
    expect(loadConfig({}, dirWith(null)).idempotencyLeaseSeconds).toBe(30);
    expect(loadConfig({}, dirWith('server:\n  idempotency_lease_seconds: 5\n')).idempotencyLeaseSeconds).toBe(5);
    for (const bad of ['0', '601', '2.5'])
      expect(() => loadConfig({}, dirWith(`server:\n  idempotency_lease_seconds: ${bad}\n`))).toThrow(
        /server\.idempotency_lease_seconds/,
      );
  });

  it('limits: defaults, values from the file, and ranges checked at load', () => {
    expect(loadConfig({}, dirWith(null)).limits).toEqual(DEFAULT_LIMITS);
    const dir = dirWith('limits:\n  streams_per_app: 5\n  turns_total: 40\n  failed_auth_per_minute_per_address: 7\n');
    expect(loadConfig({}, dir).limits).toEqual({
      ...DEFAULT_LIMITS,
      streamsPerApp: 5,
      turnsTotal: 40,
      failedAuthPerMinutePerAddress: 7,
    });
    expect(() => loadConfig({}, dirWith('limits:\n  turns_per_app: 0\n'))).toThrow(/limits\.turns_per_app/);
    expect(() => loadConfig({}, dirWith('limits:\n  requests_per_minute_total: 2.5\n'))).toThrow(
      /limits\.requests_per_minute_total/,
    );
    expect(() => loadConfig({}, dirWith('limits:\n  streams_total: 1000001\n'))).toThrow(/limits\.streams_total/);
    expect(() => loadConfig({}, dirWith('limits:\n  streams: 3\n'))).toThrow(/limits/);
  });

  it('tools: worker pools, the timeout cap and OpenAPI limits, with defaults and ranges', () => {
    expect(loadConfig({}, dirWith(null)).tools).toEqual({
      sandboxWorkers: 2,
      maxTimeoutSeconds: 60,
      openApiWorkers: 1,
      openApi: { maxBytes: 2_097_152, maxRefs: 2000, maxDepth: 64, timeoutMs: 10_000 },
    });
    const dir = dirWith(
      'tools:\n  sandbox_workers: 4\n  max_timeout_seconds: 20\n' +
        '  openapi: { workers: 2, max_bytes: 100000, max_refs: 500, max_depth: 32, timeout_seconds: 5 }\n',
    );
    expect(loadConfig({}, dir).tools).toEqual({
      sandboxWorkers: 4,
      maxTimeoutSeconds: 20,
      openApiWorkers: 2,
      openApi: { maxBytes: 100_000, maxRefs: 500, maxDepth: 32, timeoutMs: 5000 },
    });
    expect(() => loadConfig({}, dirWith('tools:\n  sandbox_workers: 0\n'))).toThrow(
      /tools\.sandbox_workers: must be at least 1/,
    );
    expect(() => loadConfig({}, dirWith('tools:\n  max_timeout_seconds: 601\n'))).toThrow(
      /tools\.max_timeout_seconds: must be at most 600/,
    );
    expect(() => loadConfig({}, dirWith('tools:\n  openapi: { max_depth: 2 }\n'))).toThrow(
      /tools\.openapi\.max_depth: must be at least 8/,
    );
  });

  it('names the bad field of an invalid file', () => {
    const dir = dirWith('server:\n  port: "not a port"\n');
    expect(() => loadConfig({}, dir)).toThrow(/server\.port/);
    const unknown = dirWith('agents:\n  - name: a\n    model: scripted:auto\n    colour: red\n');
    expect(() => loadConfig({}, unknown)).toThrow(/agents\[0\]\.colour: is not a known key/);
  });

  it('the documented baton.example.yaml loads and boots, and its scripted program answers', async () => {
    const config = loadConfig({ BATON_CONFIG: 'baton.example.yaml', BATON_ADMIN_KEY: 'bk_example' }, process.cwd());
    const baton = await createBaton(config, { store: { kind: 'sqlite', filename: ':memory:' }, sweeper: false });
    try {
      await baton.app.inject({
        method: 'PUT',
        url: '/v1/agents/refund-desk',
        headers: { authorization: 'Bearer bk_example' },
        payload: { model: 'scripted:refund-script', tools: config.agents[0]!.tools },
      });
      const thread = await baton.app.inject({
        method: 'POST',
        url: '/v1/threads',
        headers: { authorization: 'Bearer bk_example' },
        payload: { agent: 'refund-desk' },
      });
      const id = thread.json().id as string;
      const first = await baton.app.inject({
        method: 'POST',
        url: `/v1/threads/${id}/messages`,
        headers: { authorization: 'Bearer bk_example' },
        payload: { content: 'refund please' },
      });
      const call = first.json().choices[0].message.tool_calls[0];
      expect(call.input).toEqual({ action: 'refund', amount: 500 });
      const second = await baton.app.inject({
        method: 'POST',
        url: `/v1/threads/${id}/messages`,
        headers: { authorization: 'Bearer bk_example' },
        payload: {
          content: [
            { type: 'tool_result', tool_call_id: call.id, content: '{"approved": true, "approved_by": "boss@x.com"}' },
          ],
        },
      });
      expect(second.json().choices[0].message.content).toBe('The refund has been approved by boss@x.com.');
    } finally {
      await baton.close();
    }
  });

  it('server.idempotency_key_ttl_hours: 24 by default, a whole number of hours from 1 to 720', () => {
    expect(loadConfig({}, dirWith(null)).idempotencyKeyTtlHours).toBe(24);
    expect(loadConfig({}, dirWith('server:\n  idempotency_key_ttl_hours: 1\n')).idempotencyKeyTtlHours).toBe(1);
    expect(loadConfig({}, dirWith('server:\n  idempotency_key_ttl_hours: 720\n')).idempotencyKeyTtlHours).toBe(720);
    for (const bad of ['0', '721', '2.5', 'forever'])
      expect(() => loadConfig({}, dirWith(`server:\n  idempotency_key_ttl_hours: ${bad}\n`))).toThrow(
        /server\.idempotency_key_ttl_hours/,
      );
  });
});
