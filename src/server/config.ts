import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { DURATION_RANGES, durationNumber } from '../domain/duration-ranges.ts';
import { agentWireSchema, type AgentWire } from '../resources/agents/agent-config-form.ts';
import { toolSettingsFileSchema, toolSettingsFrom, type ToolSettings } from '../resources/tools/tool-settings.ts';
import { compileEgressPolicy } from '../tools/http/address-policy.ts';
import { DEFAULT_IDEMPOTENCY_LEASE_SECONDS } from './idempotency.ts';
import { parseAllowedOrigin } from '../faces/mcp/mcp-origins.ts';
import { DEFAULT_LIMITS, type LimitSettings } from './limit-settings.ts';
import { DEFAULT_RESPONSES_TOOL_TIMEOUT_SECONDS } from '../engine/index.ts';

/** Replaces `${NAME}` and `${NAME:-default}` with environment values, so secrets stay out of the file. */
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

/** Ten connections per replica keep a few replicas well under PostgreSQL's default 100. */
export const DEFAULT_POSTGRES = { poolSize: 10, statementTimeoutMs: 30_000, preparedStatements: true } as const;

export function interpolateEnv(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_match, name: string, fallback: string | undefined) => {
      const value = env[name];
      if (value !== undefined && value !== '') return value;
      if (fallback !== undefined) return fallback;
      return '';
    },
  );
}

const limit = (max: number) => z.coerce.number().int().min(1).max(max).optional();

const limitsSchema = z
  .object({
    requests_per_minute_per_app: limit(1_000_000),
    requests_per_minute_total: limit(1_000_000),
    streams_per_app: limit(100_000),
    streams_total: limit(100_000),
    turns_per_app: limit(10_000),
    turns_total: limit(10_000),
    failed_auth_per_minute_per_address: limit(10_000),
  })
  .strict();

const providerSchema = z.object({ api_key: z.string().optional(), base_url: z.string().optional() }).strict();

const fileSchema = z
  .object({
    server: z
      .object({
        host: z.string().optional(),
        port: z.coerce.number().int().min(0).max(65535).optional(),
        body_limit_bytes: z.coerce.number().int().positive().optional(),
        idempotency_lease_seconds: durationNumber(DURATION_RANGES.idempotencyLease, {
          coerce: true,
          integer: true,
        }).optional(),
      })
      .strict()
      .optional(),
    database: z
      .object({
        url: z.string().optional(),
        data_dir: z.string().optional(),
        /** PostgreSQL only: connections per replica. */
        pool_size: z.number().int().min(1).max(1_000).optional(),
        /** PostgreSQL only: the longest a statement may run before the server cancels it. */
        statement_timeout_ms: z.number().int().min(100).max(3_600_000).optional(),
        /** PostgreSQL only: named prepared statements; off behind PgBouncer's transaction mode before 1.21. */
        prepared_statements: z.boolean().optional(),
      })
      .strict()
      .optional(),
    engine: z
      .object({
        sweep_interval_ms: durationNumber(DURATION_RANGES.sweepInterval, { coerce: true, integer: true }).optional(),
        max_model_retries: z.coerce.number().int().min(0).max(10).optional(),
        turn_lease_seconds: durationNumber(DURATION_RANGES.staleTurn, { coerce: true, integer: true }).optional(),
        /** The older name of `turn_lease_seconds`, still read. */
        stale_turn_seconds: durationNumber(DURATION_RANGES.staleTurn, { coerce: true, integer: true }).optional(),
        max_turn_takeovers: z.coerce.number().int().min(0).max(10).optional(),
        /** How long a waiting request's input may stay unwritten while the first model step runs (0: never). */
        deferred_write_ms: z.coerce.number().int().min(0).max(10_000).optional(),
      })
      .strict()
      .refine((engine) => engine.turn_lease_seconds === undefined || engine.stale_turn_seconds === undefined, {
        message: 'give engine.turn_lease_seconds or its older name engine.stale_turn_seconds, not both',
      })
      .optional(),
    providers: z
      .object({
        openai: providerSchema.optional(),
        anthropic: providerSchema.optional(),
        google: providerSchema.optional(),
        'openai-compatible': providerSchema.optional(),
        ollama: providerSchema.optional(),
        custom: z.record(z.string(), providerSchema.extend({ base_url: z.string() })).optional(),
      })
      .strict()
      .optional(),
    egress: z
      .object({ allow: z.array(z.string()).optional() })
      .strict()
      .optional(),
    mcp: z
      .object({ allowed_origins: z.array(z.string()).optional() })
      .strict()
      .optional(),
    responses: z
      .object({
        /** The deadline of client calls in Responses conversations whose tool and agent give none. */
        tool_timeout_seconds: durationNumber(DURATION_RANGES.pendingCall, {
          coerce: true,
          nullMeans: 'for no deadline',
        })
          .nullable()
          .optional(),
      })
      .strict()
      .optional(),
    limits: limitsSchema.optional(),
    scripted: z.record(z.string(), z.unknown()).optional(),
    agents: z.array(agentWireSchema).optional(),
    tools: toolSettingsFileSchema.optional(),
  })
  .strict();

export type ConfigFile = z.infer<typeof fileSchema>;

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
 * Without a file, Baton runs the demo agent.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): BatonConfig {
  const explicit = env.BATON_CONFIG;
  const path = explicit ? resolve(cwd, explicit) : resolve(cwd, 'baton.yaml');
  let file: ConfigFile = {};
  let source: string | null = null;
  if (explicit && !existsSync(path)) throw new Error(`BATON_CONFIG points to ${path}, which does not exist.`);
  if (existsSync(path)) {
    const raw = parseYaml(interpolateEnv(readFileSync(path, 'utf8'), env)) ?? {};
    const parsed = fileSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(
        `Invalid configuration in ${path} at ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}.`,
      );
    }
    file = parsed.data;
    source = path;
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
    throw new Error(`PORT must be an integer from 0 to 65535 (got '${env.PORT}').`);
  return {
    host: env.HOST || file.server?.host || '127.0.0.1',
    port,
    bodyLimitBytes: file.server?.body_limit_bytes ?? 1_048_576,
    idempotencyLeaseSeconds: file.server?.idempotency_lease_seconds ?? DEFAULT_IDEMPOTENCY_LEASE_SECONDS,
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
    egressAllow: egressAllowList(env.BATON_EGRESS_ALLOW, file.egress?.allow),
    mcpAllowedOrigins: allowedOrigins(file.mcp?.allowed_origins ?? [], path),
    limits: limitSettings(file.limits),
    tools: toolSettingsFrom(file.tools),
    source,
  };
}

/** `BATON_EGRESS_ALLOW` (comma-separated) replaces the file's list; each entry is checked now, not at the first call. */
function egressAllowList(fromEnv: string | undefined, fromFile: string[] | undefined): string[] {
  const allow =
    fromEnv !== undefined && fromEnv.trim() !== ''
      ? fromEnv
          .split(',')
          .map((entry) => entry.trim())
          .filter((entry) => entry !== '')
      : (fromFile ?? []);
  try {
    compileEgressPolicy({ allow });
  } catch (error) {
    throw new Error(`Invalid egress.allow (or BATON_EGRESS_ALLOW): ${(error as Error).message}`, { cause: error });
  }
  return allow;
}

/** `mcp.allowed_origins`, normalised; each entry is checked now, not at the first browser request. */
function allowedOrigins(origins: string[], path: string): string[] {
  return origins.map((origin, index) => {
    try {
      return parseAllowedOrigin(origin);
    } catch (error) {
      throw new Error(`Invalid mcp.allowed_origins[${index}] in ${path}: ${(error as Error).message}`, {
        cause: error,
      });
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
