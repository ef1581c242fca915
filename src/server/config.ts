import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { DURATION_RANGES, durationNumber } from '../domain/duration-ranges.ts';
import { agentWireSchema, type AgentWire } from '../resources/agents/agent-config-form.ts';
import { toolSettingsFileSchema, toolSettingsFrom, type ToolSettings } from '../resources/tools/tool-settings.ts';
import {
  webhookSettingsFileSchema,
  webhookSettingsFrom,
  type WebhookSettings,
} from '../resources/webhooks/webhook-settings.ts';
import { DEFAULT_IDEMPOTENCY_LEASE_SECONDS } from './idempotency.ts';
import { DEFAULT_IDEMPOTENCY_KEY_TTL_HOURS } from './idempotency-expiry.ts';
import { parseAllowedOrigin } from '../faces/mcp/mcp-origins.ts';
import { DEFAULT_LIMITS, type LimitSettings } from './limit-settings.ts';
import { DEFAULT_RESPONSES_TOOL_TIMEOUT_SECONDS } from '../engine/index.ts';
import { CUSTOM_PROVIDER_NAME_PATTERN, RESERVED_PROVIDERS } from '../models/model-registry.ts';
import { scriptedProgramSchema } from '../models/scripted/scripted-program.ts';
import { readConfigDocument } from './config-document.ts';
import { ConfigFileError, inFileOrder, placeConfigProblems, type ConfigIssue } from './config-issues.ts';
import { configRuleProblems } from './config-rules.ts';
import { configErrorMap, configProblemsFromZod } from './config-zod-issues.ts';
import { interpolateEnv, unsetEnvReferences } from './env-interpolation.ts';
import { metricsFileSchema, telemetrySettingsFrom, type TelemetrySettings } from './telemetry/telemetry-settings.ts';

export { interpolateEnv } from './env-interpolation.ts';

/**
 * The turn lease: a running turn renews it every third of this; one silent this long belonged to
 * a process that died, and the sweeper (of any replica) takes it over and continues it. Short
 * enough that nobody waits long, long enough for a stalled database or a GC pause.
 */
export const DEFAULT_STALE_TURN_SECONDS = 15;

/** Takeovers of one turn before it is failed instead: a turn that kills every process it runs on stops. */
export const DEFAULT_MAX_TURN_TAKEOVERS = 2;

/**
 * A request that waits for its answer has its input (or results) written with the first model
 * step when the model answers within this long: one commit instead of two. A slower model gets
 * it written at this point, so other replicas soon see the turn running.
 */
export const DEFAULT_DEFERRED_WRITE_MS = 250;

/**
 * Graceful shutdown: 30 s for in-flight requests and running turns (what a real model's turn
 * usually takes), and no delay before the listener closes (a balancer that retries refused
 * connections, as deploy/haproxy.cfg does, needs none; Kubernetes wants a few seconds).
 */
export const DEFAULT_DRAIN = { timeoutSeconds: 30, delaySeconds: 0 } as const;

/** Ten connections per replica keep a few replicas well under PostgreSQL's default 100. */
export const DEFAULT_POSTGRES = { poolSize: 10, statementTimeoutMs: 30_000, preparedStatements: true } as const;

/**
 * Every key of baton.yaml says what it is (`.describe()`, or `.meta()` with its default): the
 * descriptions and ranges become baton.schema.json (`npm run config:schema`), which editors read.
 */
const limit = (max: number, description: string, defaultValue: number) =>
  z.coerce.number().int().min(1).max(max).optional().meta({ description, default: defaultValue });

const limitsSchema = z
  .object({
    requests_per_minute_per_app: limit(
      1_000_000,
      'Requests one app may make per minute.',
      DEFAULT_LIMITS.requestsPerMinutePerApp,
    ),
    requests_per_minute_total: limit(
      1_000_000,
      'Requests of all apps per minute, in this process.',
      DEFAULT_LIMITS.requestsPerMinuteTotal,
    ),
    streams_per_app: limit(
      100_000,
      'Open streams of one app: SSE, ledger event streams, Responses WebSockets.',
      DEFAULT_LIMITS.streamsPerApp,
    ),
    streams_total: limit(100_000, 'Open streams of all apps, in this process.', DEFAULT_LIMITS.streamsTotal),
    turns_per_app: limit(
      10_000,
      'Turns of one app whose model loop runs at once, in this process.',
      DEFAULT_LIMITS.turnsPerApp,
    ),
    turns_total: limit(
      10_000,
      'Turns of all apps whose model loop runs at once, in this process.',
      DEFAULT_LIMITS.turnsTotal,
    ),
    failed_auth_per_minute_per_address: limit(
      10_000,
      'Failed authentications per minute from one address; further failures get a 429 (a valid key still passes).',
      DEFAULT_LIMITS.failedAuthPerMinutePerAddress,
    ),
  })
  .strict()
  .describe("Per-app limits (a 429 with Retry-After past them) and this process's totals.");

const providerSchema = z
  .object({
    api_key: z
      .string()
      .optional()
      .describe('The API key; write ${AN_ENVIRONMENT_VARIABLE} rather than the key itself.'),
    base_url: z
      .string()
      .optional()
      .describe('The base URL of the API (a proxy, or the server of an OpenAI-compatible API).'),
  })
  .strict();

/** A custom provider's name is the part of a model id before the colon: not a built-in one. */
const customProviderName = z
  .string()
  .regex(new RegExp(`^(?!(?:${RESERVED_PROVIDERS.join('|')})$)${CUSTOM_PROVIDER_NAME_PATTERN.source.slice(1)}`), {
    error: `must be letters, digits, ".", "_" and "-", and not a built-in provider (${RESERVED_PROVIDERS.join(', ')})`,
  });

/** `scripted:auto` is built in. */
const scriptedProgramName = z.string().regex(/^(?!auto$)/, { error: '"auto" is the built-in scripted program' });

const fileSchema = z
  .object({
    server: z
      .object({
        host: z
          .string()
          .optional()
          .meta({ description: 'The address to listen on (HOST overrides it).', default: '127.0.0.1' }),
        port: z.coerce
          .number()
          .int()
          .min(0)
          .max(65535)
          .optional()
          .meta({ description: 'The port to listen on; 0 takes a free one (PORT overrides it).', default: 8080 }),
        body_limit_bytes: z.coerce
          .number()
          .int()
          .positive()
          .optional()
          .meta({ description: 'The largest request body, in bytes; a larger one is a 413.', default: 1_048_576 }),
        idempotency_lease_seconds: durationNumber(DURATION_RANGES.idempotencyLease, {
          coerce: true,
          integer: true,
        })
          .optional()
          .meta({
            description:
              'How long an Idempotency-Key stays held after the process running its request died, in seconds; then a retry takes it over.',
            default: DEFAULT_IDEMPOTENCY_LEASE_SECONDS,
          }),
        idempotency_key_ttl_hours: durationNumber(DURATION_RANGES.idempotencyKeyTtl, { coerce: true, integer: true })
          .optional()
          .meta({
            description:
              'How long an Idempotency-Key replays its response, in hours from its first request; then it is deleted and a request with it runs again.',
            default: DEFAULT_IDEMPOTENCY_KEY_TTL_HOURS,
          }),
        /** On SIGTERM: how long in-flight requests and running turns may take to finish. */
        drain_timeout_seconds: z.coerce.number().int().min(0).max(3_600).optional().meta({
          description: 'On SIGTERM: how long in-flight requests and running turns may take to finish, in seconds.',
          default: DEFAULT_DRAIN.timeoutSeconds,
        }),
        /** On SIGTERM: how long readiness fails before the listener closes (a balancer's polling interval). */
        shutdown_delay_seconds: z.coerce.number().int().min(0).max(600).optional().meta({
          description:
            "On SIGTERM: how long readiness fails before the listener closes, in seconds (a balancer's polling interval).",
          default: DEFAULT_DRAIN.delaySeconds,
        }),
      })
      .strict()
      .optional()
      .describe('The HTTP server.'),
    database: z
      .object({
        url: z
          .string()
          .optional()
          .describe(
            'A PostgreSQL URL (postgres://user:password@host:5432/db) instead of SQLite; DATABASE_URL overrides it.',
          ),
        data_dir: z.string().optional().meta({
          description: "SQLite's folder (baton.db) and its secrets key file; BATON_DATA_DIR overrides it.",
          default: './data',
        }),
        /** PostgreSQL only: connections per replica. */
        pool_size: z
          .number()
          .int()
          .min(1)
          .max(1_000)
          .optional()
          .meta({ description: 'PostgreSQL only: connections per replica.', default: DEFAULT_POSTGRES.poolSize }),
        /** PostgreSQL only: the longest a statement may run before the server cancels it. */
        statement_timeout_ms: z.number().int().min(100).max(3_600_000).optional().meta({
          description:
            'PostgreSQL only: the longest a statement may run before the server cancels it, in milliseconds.',
          default: DEFAULT_POSTGRES.statementTimeoutMs,
        }),
        /** PostgreSQL only: named prepared statements; off behind PgBouncer's transaction mode before 1.21. */
        prepared_statements: z.boolean().optional().meta({
          description:
            'PostgreSQL only: named prepared statements (false behind PgBouncer in transaction mode before 1.21).',
          default: DEFAULT_POSTGRES.preparedStatements,
        }),
      })
      .strict()
      .optional()
      .describe('Where the data lives: SQLite in data_dir, or PostgreSQL at url (or DATABASE_URL).'),
    engine: z
      .object({
        sweep_interval_ms: durationNumber(DURATION_RANGES.sweepInterval, { coerce: true, integer: true })
          .optional()
          .meta({
            description: 'How often deadlines are applied and orphaned turns recovered, in milliseconds.',
            default: 1_000,
          }),
        max_model_retries: z.coerce.number().int().min(0).max(10).optional().meta({
          description: 'Retries of a failing model call, with exponential backoff, before the turn fails.',
          default: 2,
        }),
        turn_lease_seconds: durationNumber(DURATION_RANGES.staleTurn, { coerce: true, integer: true }).optional().meta({
          description:
            'A running turn silent this long (its process died) is taken over by another process, in seconds.',
          default: DEFAULT_STALE_TURN_SECONDS,
        }),
        /** The older name of `turn_lease_seconds`, still read. */
        stale_turn_seconds: durationNumber(DURATION_RANGES.staleTurn, { coerce: true, integer: true }).optional().meta({
          description: 'The older name of turn_lease_seconds, still read (give one of the two).',
          deprecated: true,
        }),
        max_turn_takeovers: z.coerce.number().int().min(0).max(10).optional().meta({
          description: 'Takeovers of one turn before it is failed instead (0: never take over).',
          default: DEFAULT_MAX_TURN_TAKEOVERS,
        }),
        /** How long a waiting request's input may stay unwritten while the first model step runs (0: never). */
        deferred_write_ms: z.coerce.number().int().min(0).max(10_000).optional().meta({
          description:
            "How long a waiting request's input may stay unwritten while the first model step runs, in milliseconds (0: write it first).",
          default: DEFAULT_DEFERRED_WRITE_MS,
        }),
      })
      .strict()
      .refine((engine) => engine.turn_lease_seconds === undefined || engine.stale_turn_seconds === undefined, {
        message: 'give engine.turn_lease_seconds or its older name engine.stale_turn_seconds, not both',
      })
      .optional()
      .describe('The agent loop: the sweeper, model retries, turn leases and takeovers.'),
    providers: z
      .object({
        openai: providerSchema.optional().describe('OpenAI: models openai:MODEL.'),
        anthropic: providerSchema.optional().describe('Anthropic: models anthropic:MODEL.'),
        google: providerSchema.optional().describe('Google Gemini: models google:MODEL.'),
        'openai-compatible': providerSchema
          .optional()
          .describe('An OpenAI-compatible server (vLLM, llama.cpp…): models openai-compatible:MODEL; needs base_url.'),
        ollama: providerSchema
          .optional()
          .describe('Ollama: models ollama:MODEL (base URL http://127.0.0.1:11434/v1 unless set).'),
        custom: z
          .record(
            customProviderName,
            providerSchema.extend({
              base_url: z.string().describe("The base URL of the server's OpenAI-compatible API."),
            }),
          )
          .optional()
          .describe('More OpenAI-compatible servers, by name: models NAME:MODEL.'),
      })
      .strict()
      .optional()
      .describe('Model providers: keys and base URLs. An agent names its model provider:model-id.'),
    egress: z
      .object({
        allow: z.array(z.string()).optional().meta({
          description:
            'CIDRs, addresses, host names or *.domain. BATON_EGRESS_ALLOW (comma-separated) replaces this list.',
          default: [],
        }),
      })
      .strict()
      .optional()
      .describe(
        'Private destinations server-executed tools (OpenAPI, MCP) may call: every loopback, private, ' +
          'link-local and metadata address is refused unless listed.',
      ),
    mcp: z
      .object({
        allowed_origins: z.array(z.string()).optional().meta({
          description:
            'Web origins (scheme://host[:port]) whose pages may call /mcp, besides loopback pages; another Origin gets a 403.',
          default: [],
        }),
      })
      .strict()
      .optional()
      .describe('The management MCP endpoint (/mcp).'),
    responses: z
      .object({
        /** The deadline of client calls in Responses conversations whose tool and agent give none. */
        tool_timeout_seconds: durationNumber(DURATION_RANGES.pendingCall, {
          coerce: true,
          nullMeans: 'for no deadline',
        })
          .nullable()
          .optional()
          .meta({
            description:
              'How long a call the client should answer may stay pending when neither its tool nor its agent sets a deadline, in seconds (null: never).',
            default: DEFAULT_RESPONSES_TOOL_TIMEOUT_SECONDS,
          }),
      })
      .strict()
      .optional()
      .describe('The Responses API (/v1/responses).'),
    limits: limitsSchema.optional(),
    scripted: z
      .record(
        scriptedProgramName,
        z.union([scriptedProgramSchema, z.string().describe('The same program, as YAML text.')]),
      )
      .optional()
      .describe(
        'Scripted model programs, by name: an agent with model scripted:NAME follows its rules (offline demos, tests).',
      ),
    agents: z.array(agentWireSchema).optional().describe('Agents of the default app, created or updated at start.'),
    tools: toolSettingsFileSchema.optional(),
    webhooks: webhookSettingsFileSchema.optional(),
    metrics: metricsFileSchema.optional(),
  })
  .strict();

export type ConfigFile = z.infer<typeof fileSchema>;

/** The shape of baton.yaml; baton.schema.json is generated from it (`npm run config:schema`). */
export const configFileSchema = fileSchema;

export interface ProviderSettings {
  apiKey?: string;
  baseURL?: string;
}

export interface BatonConfig {
  host: string;
  port: number;
  bodyLimitBytes: number;
  /**
   * How long an in-flight `Idempotency-Key` stays held when the process running its request
   * stops renewing it (it died); then a retry of the same request takes the key over.
   */
  idempotencyLeaseSeconds: number;
  /**
   * `server.idempotency_key_ttl_hours`: how long a key replays its stored response; then the
   * sweeper deletes it and the same request runs again (`IdempotencyExpiry`). Default 24.
   */
  idempotencyKeyTtlHours?: number;
  /** Graceful shutdown (`server.drain_timeout_seconds`, `server.shutdown_delay_seconds`): see `DrainState`. */
  drain: { timeoutSeconds: number; delaySeconds: number };
  dataDir: string;
  /** A Postgres URL; when absent, SQLite in `dataDir/baton.db`. */
  databaseUrl: string | null;
  /** PostgreSQL pool settings (`database.pool_size`, `database.statement_timeout_ms`). */
  postgres: { poolSize: number; statementTimeoutMs: number; preparedStatements: boolean };
  adminKey: string | null;
  sweepIntervalMs: number;
  maxModelRetries: number;
  staleTurnSeconds: number;
  maxTurnTakeovers: number;
  /** `engine.deferred_write_ms`: see `EngineSettings.deferredOpeningMs`. */
  deferredWriteMs: number;
  /**
   * `responses.tool_timeout_seconds`: the deadline of calls the client answers in Responses
   * conversations when neither their tool nor their agent gives one; null for none. Absent: the
   * engine's default (`DEFAULT_RESPONSES_TOOL_TIMEOUT_SECONDS`, one day).
   */
  responsesToolTimeoutSeconds?: number | null;
  providers: {
    openai?: ProviderSettings;
    anthropic?: ProviderSettings;
    google?: ProviderSettings;
    'openai-compatible'?: ProviderSettings;
    ollama?: ProviderSettings;
    custom?: Record<string, ProviderSettings & { baseURL: string }>;
  };
  scripted: Record<string, unknown>;
  agents: AgentWire[];
  /**
   * Private destinations server tools may call (`egress.allow`: CIDRs, addresses, host names);
   * every loopback, private, link-local and metadata address is refused otherwise.
   */
  egressAllow: string[];
  /** Web origins besides loopback ones whose pages may call `/mcp` (`mcp.allowed_origins`), normalised. */
  mcpAllowedOrigins: string[];
  /** Request rates, open streams, running turns and failed authentications, per app and overall. */
  limits: LimitSettings;
  /** `tools:`: worker pools, the timeout cap, OpenAPI limits (resources/tools/tool-settings.ts); defaults when absent. */
  tools?: ToolSettings;
  /** `webhooks:`: the delivery worker's timeout, retry schedule and limits; defaults when absent. */
  webhooks?: WebhookSettings;
  /**
   * Prometheus metrics (`metrics:`, `BATON_METRICS_TOKEN`, `BATON_METRICS_LISTEN`) and OpenTelemetry
   * traces (the OTEL_* variables); both off when absent.
   */
  telemetry?: TelemetrySettings;
  /** The file the configuration came from, if any. */
  source: string | null;
}

/** The demo agent of the README: a client-executed approval tool, driven by the scripted model. */
export const DEMO_AGENT: AgentWire = {
  name: 'refund-desk',
  model: 'scripted:auto',
  instructions:
    'You help customers with refunds. Before any refund, ask a manager for approval with the request_approval tool.',
  tools: [
    {
      name: 'request_approval',
      description:
        'Asks a human manager to approve an action such as a refund. Use it whenever a customer asks for a refund, a cancellation or a discount. ' +
        'The manager answers with {"approved": boolean, "approved_by": email}. Do not use it for questions that need no approval.',
      parameters: {
        type: 'object',
        properties: {
          action: { type: 'string', enum: ['refund', 'cancellation', 'discount'], description: 'What needs approval' },
          amount: { type: 'number', description: 'Amount in USD' },
          reason: { type: 'string', description: 'Why the customer asks for it' },
        },
        required: ['action', 'amount'],
      },
      // The manager's answer; the console's answer form is built from it.
      response_schema: {
        type: 'object',
        properties: {
          approved: { type: 'boolean', description: 'Whether the manager approves' },
          approved_by: { type: 'string', description: "The manager's email" },
          note: { type: 'string', description: 'Anything the agent should tell the customer' },
        },
        required: ['approved', 'approved_by'],
      },
    },
  ],
};

function mapProvider(
  provider: { api_key?: string | undefined; base_url?: string | undefined } | undefined,
): ProviderSettings | undefined {
  if (!provider) return undefined;
  const settings: ProviderSettings = {};
  if (provider.api_key) settings.apiKey = provider.api_key;
  if (provider.base_url) settings.baseURL = provider.base_url;
  return settings;
}

/**
 * Reads `BATON_CONFIG` (or `./baton.yaml` when present), interpolates the environment, validates,
 * and lets `HOST`, `PORT`, `BATON_DATA_DIR`, `DATABASE_URL` and `BATON_ADMIN_KEY` override it.
 * Without a file, Baton runs the demo agent. An invalid configuration is a `ConfigFileError`
 * naming every problem (see `checkConfig`).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): BatonConfig {
  const checked = checkConfig(env, cwd);
  if (checked.config === null) throw new ConfigFileError(checked.source, checked.issues);
  return checked.config;
}

/** What `checkConfig` found. */
export interface ConfigCheck {
  /** The file read; null when there is none (Baton runs the demo agent). */
  source: string | null;
  /** The configuration, when there is no problem. */
  config: BatonConfig | null;
  /** Every problem: syntax, shapes and ranges, the rules of agents and tools, the environment's overrides. */
  issues: ConfigIssue[];
  /** Variables the file names without a default that are unset: each reads as nothing. */
  unsetVariables: string[];
}

/**
 * Reads the configuration as `baton serve` does and checks all of it, collecting every problem
 * instead of stopping at the first: `baton config check` prints them, `loadConfig` throws them.
 */
export function checkConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): ConfigCheck {
  const explicit = env.BATON_CONFIG;
  const path = explicit ? resolve(cwd, explicit) : resolve(cwd, 'baton.yaml');
  let file: ConfigFile = {};
  let source: string | null = null;
  if (explicit && !existsSync(path)) {
    const issue = { path: 'BATON_CONFIG', message: `points to ${path}, which does not exist` };
    return { source: null, config: null, issues: [issue], unsetVariables: [] };
  }
  const issues: ConfigIssue[] = [];
  let unsetVariables: string[] = [];
  // The file as written, for the rules checked entry by entry (one bad agent must not hide another).
  let written: Record<string, unknown> = {};
  let lineOf: (at: readonly PropertyKey[]) => number | undefined = () => undefined;
  let readable = true;
  if (existsSync(path)) {
    source = path;
    const text = readFileSync(path, 'utf8');
    unsetVariables = unsetEnvReferences(text, env);
    const document = readConfigDocument(interpolateEnv(text, env));
    lineOf = document.lineOf;
    issues.push(...document.issues);
    // After a syntax error the structure is a guess: its shape problems would mislead.
    readable = document.issues.length === 0;
    if (readable) {
      const parsed = fileSchema.safeParse(document.value, { error: configErrorMap });
      if (parsed.success) file = parsed.data;
      else {
        issues.push(...placeConfigProblems(configProblemsFromZod(parsed.error, fileSchema), lineOf));
        file = validSections(document.value);
      }
      if (isMapping(document.value)) written = document.value;
    }
  }
  const providers: BatonConfig['providers'] = {};
  const fileProviders = file.providers ?? {};
  for (const name of ['openai', 'anthropic', 'google', 'openai-compatible', 'ollama'] as const) {
    const mapped = mapProvider(fileProviders[name]);
    if (mapped) providers[name] = mapped;
  }
  if (fileProviders.custom) {
    providers.custom = Object.fromEntries(
      Object.entries(fileProviders.custom).map(([name, provider]) => [
        name,
        { baseURL: provider.base_url, ...(provider.api_key ? { apiKey: provider.api_key } : {}) },
      ]),
    );
  }
  const port = env.PORT !== undefined && env.PORT !== '' ? Number(env.PORT) : (file.server?.port ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    issues.push({ path: 'PORT', message: `must be a whole number from 0 to 65535 (got '${env.PORT}')` });
  const egress = egressAllowList(env.BATON_EGRESS_ALLOW, file.egress?.allow);
  const telemetry = telemetrySettingsFrom(file.metrics, env);
  issues.push(...placeConfigProblems(telemetry.problems, lineOf));
  const config: BatonConfig = {
    host: env.HOST || file.server?.host || '127.0.0.1',
    port,
    bodyLimitBytes: file.server?.body_limit_bytes ?? 1_048_576,
    idempotencyLeaseSeconds: file.server?.idempotency_lease_seconds ?? DEFAULT_IDEMPOTENCY_LEASE_SECONDS,
    idempotencyKeyTtlHours: file.server?.idempotency_key_ttl_hours ?? DEFAULT_IDEMPOTENCY_KEY_TTL_HOURS,
    drain: {
      timeoutSeconds: file.server?.drain_timeout_seconds ?? DEFAULT_DRAIN.timeoutSeconds,
      delaySeconds: file.server?.shutdown_delay_seconds ?? DEFAULT_DRAIN.delaySeconds,
    },
    dataDir: resolve(cwd, env.BATON_DATA_DIR || file.database?.data_dir || './data'),
    databaseUrl: env.DATABASE_URL || file.database?.url || null,
    postgres: {
      poolSize: file.database?.pool_size ?? DEFAULT_POSTGRES.poolSize,
      statementTimeoutMs: file.database?.statement_timeout_ms ?? DEFAULT_POSTGRES.statementTimeoutMs,
      preparedStatements: file.database?.prepared_statements ?? DEFAULT_POSTGRES.preparedStatements,
    },
    adminKey: env.BATON_ADMIN_KEY || null,
    sweepIntervalMs: file.engine?.sweep_interval_ms ?? 1_000,
    maxModelRetries: file.engine?.max_model_retries ?? 2,
    staleTurnSeconds: file.engine?.turn_lease_seconds ?? file.engine?.stale_turn_seconds ?? DEFAULT_STALE_TURN_SECONDS,
    maxTurnTakeovers: file.engine?.max_turn_takeovers ?? DEFAULT_MAX_TURN_TAKEOVERS,
    deferredWriteMs: file.engine?.deferred_write_ms ?? DEFAULT_DEFERRED_WRITE_MS,
    // `null` in the file turns the deadline off, so only an absent value takes the default.
    responsesToolTimeoutSeconds:
      file.responses?.tool_timeout_seconds === undefined
        ? DEFAULT_RESPONSES_TOOL_TIMEOUT_SECONDS
        : file.responses.tool_timeout_seconds,
    providers,
    scripted: file.scripted ?? {},
    agents: file.agents ?? (source ? [] : [DEMO_AGENT]),
    egressAllow: egress.entries,
    mcpAllowedOrigins: allowedOrigins(file.mcp?.allowed_origins ?? []),
    limits: limitSettings(file.limits),
    tools: toolSettingsFrom(file.tools),
    webhooks: webhookSettingsFrom(file.webhooks),
    telemetry: telemetry.settings,
    source,
  };
  if (readable) {
    const rules = configRuleProblems({
      agents: written.agents,
      scripted: written.scripted,
      // A providers section with problems of its own would make every model id look unknown.
      providers: written.providers === undefined || file.providers !== undefined ? providers : null,
      egressAllow: egress,
      mcpAllowedOrigins: file.mcp?.allowed_origins ?? [],
    });
    issues.push(...placeConfigProblems(rules, lineOf));
  }
  return { source, config: issues.length === 0 ? config : null, issues: inFileOrder(issues), unsetVariables };
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The sections of an invalid file that are valid on their own: the rest of the checks read them. */
function validSections(value: unknown): ConfigFile {
  if (!isMapping(value)) return {};
  const sections: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(fileSchema.shape)) {
    if (value[key] === undefined) continue;
    const parsed = (schema as z.ZodType).safeParse(value[key]);
    if (parsed.success) sections[key] = parsed.data;
  }
  return sections as ConfigFile;
}

/**
 * `BATON_EGRESS_ALLOW` (comma-separated) replaces the file's list. Each entry is checked when the
 * configuration is read (`configRuleProblems`), not at the first call; `at` says where it came from.
 */
function egressAllowList(
  fromEnv: string | undefined,
  fromFile: string[] | undefined,
): { entries: string[]; at: readonly PropertyKey[] } {
  if (fromEnv !== undefined && fromEnv.trim() !== '') {
    const entries = fromEnv
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
    return { entries, at: ['BATON_EGRESS_ALLOW'] };
  }
  return { entries: fromFile ?? [], at: ['egress', 'allow'] };
}

/** `mcp.allowed_origins`, normalised; each entry was checked when the configuration was read (`configRuleProblems`). */
function allowedOrigins(origins: string[]): string[] {
  return origins.flatMap((origin) => {
    try {
      return [parseAllowedOrigin(origin)];
    } catch {
      return []; // reported as a problem: this configuration is not used
    }
  });
}

function limitSettings(file: ConfigFile['limits']): LimitSettings {
  return {
    requestsPerMinutePerApp: file?.requests_per_minute_per_app ?? DEFAULT_LIMITS.requestsPerMinutePerApp,
    requestsPerMinuteTotal: file?.requests_per_minute_total ?? DEFAULT_LIMITS.requestsPerMinuteTotal,
    streamsPerApp: file?.streams_per_app ?? DEFAULT_LIMITS.streamsPerApp,
    streamsTotal: file?.streams_total ?? DEFAULT_LIMITS.streamsTotal,
    turnsPerApp: file?.turns_per_app ?? DEFAULT_LIMITS.turnsPerApp,
    turnsTotal: file?.turns_total ?? DEFAULT_LIMITS.turnsTotal,
    failedAuthPerMinutePerAddress:
      file?.failed_auth_per_minute_per_address ?? DEFAULT_LIMITS.failedAuthPerMinutePerAddress,
  };
}
