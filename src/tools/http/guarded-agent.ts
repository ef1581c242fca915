import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import net from 'node:net';
import { Agent, buildConnector } from 'undici';
import { checkAddress, compileEgressPolicy, type EgressPolicy } from './address-policy.ts';
import { caSetKey, toPemCertificates, trustStoreWith } from './custom-ca.ts';
import { blockedAddressError } from './egress-error.ts';

/**
 * undici Agents that connect only to addresses the egress policy allows.
 *
 * Where the check happens, and why there:
 * - Host names: the connector's `lookup` resolves with `dns.lookup(host, {all: true})`, checks
 *   every answer, and hands exactly those answers to `net.connect`. The socket connects to an
 *   address that was checked; nothing resolves the name again between check and connect, so a
 *   DNS answer that changes (rebinding) cannot slip a private address in.
 * - IP literals: `net.connect` skips `lookup` for them, so the connector checks them first.
 * Every new connection (first request, each redirect target, each pool refill) goes through the
 * connector, so redirects are re-checked without extra code; kept-alive connections were checked
 * when they were opened.
 */

/** Resolves a host name to all its addresses; injectable so tests can play DNS. */
export type HostResolver = (hostname: string) => Promise<readonly LookupAddress[]>;

export const systemResolver: HostResolver = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

export interface GuardedAgentOptions {
  /** Extra trusted CA certificates for this client only (PEM or base64 DER). */
  readonly ca?: readonly string[];
}

export interface GuardedAgentPoolOptions {
  readonly resolve?: HostResolver;
  /** TCP + TLS handshake limit per connection; callers' deadlines usually end things sooner. */
  readonly connectTimeoutMs?: number;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

function guardedLookup(policy: EgressPolicy, resolve: HostResolver) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname).then(
      (answers) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
        const addresses = answers.filter((a) => wanted === 0 || a.family === wanted);
        // Any refused answer refuses the host: a name that mixes public and private answers is
        // either misconfigured or an attack, and picking the "good" one would hide both.
        for (const { address } of answers) {
          const check = checkAddress(address, policy, hostname);
          if (!check.ok) return callback(blockedAddressError(hostname, address, check.reason), '');
        }
        const first = addresses[0];
        if (!first) {
          const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          error.code = 'ENOTFOUND';
          return callback(error, '');
        }
        // With autoSelectFamily (the default), net asks for all answers and tries each in turn.
        return options.all ? callback(null, [...addresses]) : callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}

function guardedConnector(
  policy: EgressPolicy,
  pool: Required<GuardedAgentPoolOptions>,
  ca: readonly string[],
): buildConnector.connector {
  const connect = buildConnector({
    lookup: guardedLookup(policy, pool.resolve),
    timeout: pool.connectTimeoutMs,
    ...(ca.length > 0 ? { ca: trustStoreWith(ca) } : {}),
  });
  return (options, callback) => {
    // undici already strips the brackets of an IPv6 literal.
    if (net.isIP(options.hostname) !== 0) {
      const check = checkAddress(options.hostname, policy);
      if (!check.ok) {
        const error = blockedAddressError(options.hostname, options.hostname, check.reason);
        // Asynchronously, like a failed socket, so undici's connect bookkeeping runs as usual.
        process.nextTick(() => callback(error, null));
        return;
      }
    }
    connect(options, callback);
  };
}

/**
 * One Agent per (policy, CA set), so a toolset's calls reuse connections while two toolsets with
 * different trust never share a TLS session. Policies are compared by content.
 */
export class GuardedAgentPool {
  readonly #agents = new Map<string, Agent>();
  readonly #options: Required<GuardedAgentPoolOptions>;
  #closed = false;

  constructor(options: GuardedAgentPoolOptions = {}) {
    this.#options = {
      resolve: options.resolve ?? systemResolver,
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    };
  }

  get(policy: EgressPolicy, options: GuardedAgentOptions = {}): Agent {
    if (this.#closed) throw new Error('GuardedAgentPool is closed');
    compileEgressPolicy(policy); // a bad allow entry fails here, before any connection
    const ca = toPemCertificates(options.ca ?? []);
    const key = `${JSON.stringify([...policy.allow].map((e) => e.trim().toLowerCase()).sort())}|${caSetKey(ca)}`;
    let agent = this.#agents.get(key);
    if (!agent) {
      agent = new Agent({
        connect: guardedConnector(policy, this.#options, ca),
        // Callers own the deadlines (a total one for safeFetch, connect+headers for streams);
        // undici's 300 s idle-body timeout would cut a quiet SSE stream, so it is off.
        bodyTimeout: 0,
      });
      this.#agents.set(key, agent);
    }
    return agent;
  }

  /** Closes every agent: in-flight requests finish, idle sockets close. */
  async close(): Promise<void> {
    this.#closed = true;
    const agents = [...this.#agents.values()];
    this.#agents.clear();
    await Promise.all(agents.map((agent) => agent.close()));
  }
}

/** The process-wide pool used when a caller does not bring its own. */
export const sharedGuardedAgents = new GuardedAgentPool();
