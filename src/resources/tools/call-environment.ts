import type { JsonValue } from '../../domain/records.ts';
import { isJsonObject } from '../json-objects.ts';
import type { EgressPolicy } from '../../tools/http/address-policy.ts';
import type { SandboxToolContext } from '../../tools/sandbox/tool-context.ts';

/** What a server tool's executor knows about the call beyond its arguments. */
export interface CallEnvironment {
  appId: string;
  conversationId: string;
  callId: string;
  /** The CES session's variables (empty outside sessions): bearer tokens, custom headers, ctx. */
  variables: Readonly<Record<string, JsonValue>>;
  sessionId: string | null;
  agentName: string | null;
  signal: AbortSignal;
  /** The whole call's budget; HTTP requests get it as their deadline. */
  timeoutMs: number;
  policy: EgressPolicy;
  /** Resolves a secret resource name of the call's app to its value. */
  readSecret(reference: string): Promise<string>;
}

/** The `ctx` sandboxed code receives (a copy: writes are not shared back). */
export function sandboxContext(environment: CallEnvironment): SandboxToolContext {
  return {
    ...(environment.sessionId ? { sessionId: environment.sessionId } : {}),
    ...(environment.agentName ? { agentName: environment.agentName } : {}),
    invocationId: environment.callId,
    variables: environment.variables,
  };
}

/** CES `tlsConfig.caCerts[].cert` values: extra CAs trusted for this resource only. */
export function caCertsOf(tlsConfig: JsonValue | undefined): string[] {
  const certs = isJsonObject(tlsConfig) && Array.isArray(tlsConfig.caCerts) ? tlsConfig.caCerts : [];
  return certs.flatMap((entry) => (isJsonObject(entry) && typeof entry.cert === 'string' ? [entry.cert] : []));
}
