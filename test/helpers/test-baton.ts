import type { AgentWire } from '../../src/resources/agents/agent-config-form.ts';
import {
  DEFAULT_DEFERRED_WRITE_MS,
  DEFAULT_DRAIN,
  DEFAULT_POSTGRES,
  DEMO_AGENT,
  type BatonConfig,
} from '../../src/server/config.ts';
import { DEFAULT_LIMITS } from '../../src/server/limit-settings.ts';
import { createBaton, type BatonInstance, type StartOptions } from '../../src/server/start-baton.ts';
import type { Clock } from '../../src/domain/clock.ts';

export const ADMIN_KEY = 'bk_test_admin_key_0123456789';

export interface TestBaton {
  baton: BatonInstance;
  url: string;
  key: string;
  /** JSON request against the real server; returns status, parsed body and headers. */
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface TestResponse {
  status: number;
  body: any;
  headers: Headers;
}

/** A movable clock for deadline tests. */
export class ManualClock implements Clock {
  constructor(private current = new Date('2026-01-01T00:00:00.000Z')) {}
  now(): Date {
    return new Date(this.current);
  }
  advance(seconds: number): void {
    this.current = new Date(this.current.getTime() + seconds * 1000);
  }
}

export function testConfig(overrides: Partial<BatonConfig> = {}): BatonConfig {
  return {
    host: '127.0.0.1',
    port: 0,
    bodyLimitBytes: 1_048_576,
    idempotencyLeaseSeconds: 30,
    drain: DEFAULT_DRAIN,
    dataDir: '/nonexistent',
    databaseUrl: null,
    postgres: DEFAULT_POSTGRES,
    adminKey: ADMIN_KEY,
    sweepIntervalMs: 60_000,
    maxModelRetries: 0,
    staleTurnSeconds: 600,
    maxTurnTakeovers: 2,
    deferredWriteMs: DEFAULT_DEFERRED_WRITE_MS,
    providers: {},
    scripted: {},
    agents: [DEMO_AGENT],
    egressAllow: [],
    mcpAllowedOrigins: [],
    limits: DEFAULT_LIMITS,
    source: null,
    ...overrides,
  };
}

/** Starts a real Baton on a random loopback port with an in-memory SQLite database. */
export async function startTestBaton(
  overrides: Partial<BatonConfig> = {},
  options: StartOptions = {},
): Promise<TestBaton> {
  const baton = await createBaton(testConfig(overrides), {
    store: { kind: 'sqlite', filename: ':memory:' },
    sweeper: false,
    ...options,
  });
  const url = await baton.listen();
  const request = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<TestResponse> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${ADMIN_KEY}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // SSE or plain text stays as text.
    }
    return { status: response.status, body: parsed, headers: response.headers };
  };
  return { baton, url, key: ADMIN_KEY, request, close: () => baton.close() };
}

export function agentWith(overrides: Partial<AgentWire>): AgentWire {
  return { ...DEMO_AGENT, ...overrides };
}
