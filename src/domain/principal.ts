import type { ApiKeyRole } from './records.ts';

/** Who makes a request: the API key's app, the key itself and its role. */
export interface Principal {
  appId: string;
  keyId: string;
  role: ApiKeyRole;
  /** A worker key's tools: it may only claim and answer their calls. Absent for an ordinary key. */
  toolScope?: readonly string[];
}
