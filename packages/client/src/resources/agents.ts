import type { Transport } from '../http/transport.ts';
import type { Agent } from '../wire/agents.ts';
import type { Page } from '../wire/common.ts';
import { callSettings, type CallOptions } from './call-options.ts';

/** `/v1/agents`: read the agents the key's app can talk to. */
export class Agents {
  constructor(private readonly http: Transport) {}

  list(query: { limit?: number; after?: string } = {}, options?: CallOptions): Promise<Page<Agent>> {
    return this.http.json({ method: 'GET', path: '/v1/agents', query, ...callSettings(options) });
  }

  get(name: string, options?: CallOptions): Promise<Agent> {
    return this.http.json({ method: 'GET', path: `/v1/agents/${encodeURIComponent(name)}`, ...callSettings(options) });
  }
}
