import type { BatonError } from '../../domain/errors/baton-error.ts';
import type { AgentService } from '../../resources/agents/agent-service.ts';
import type { Engine } from '../../engine/index.ts';
import type { ToolProvider } from '../../engine/index.ts';
import type { Store } from '../../store/store.ts';
import type { SecretCipher } from '../../tools/secrets/secret-cipher.ts';
import type { ToolsetInspector } from '../../resources/tools/app-tool-provider.ts';
import type { PageTokenCodec } from '../../resources/aip/page-token.ts';
import './face-request.ts';

/** Server-held keys: the secret store's cipher and the page-token codec (derived from one key). */
export interface ServerKeys {
  secrets: SecretCipher;
  pageTokens: PageTokenCodec;
}

/** Periodic clean-up a face needs (run by the sweeper, safe in several processes at once). */
export type SweepChore = () => Promise<unknown>;

/** Renders an error in a face's own format, with the HTTP status that face uses for it. */
export type ErrorRenderer = (error: BatonError) => { status: number; body: object };

/** What every face's routes receive. */
export interface FaceContext {
  store: Store;
  engine: Engine;
  agents: AgentService;
  /** Errors (auth, bad JSON, not found, …) under `prefix` are rendered by `render` instead of the native format. */
  useErrorFormat(prefix: string, render: ErrorRenderer): void;
  /** Registers clean-up to run on every sweeper pass. */
  addSweepChore(chore: SweepChore): void;
  keys: ServerKeys;
  /** Server-executed tools, so faces can name a server call's source (a Tool, a toolset's tool). */
  tools: ToolProvider;
  /** Lists a toolset's tools from its source (CES `:retrieveTools`); absent when tests inject fake `tools`. */
  toolsets?: ToolsetInspector | undefined;
}
