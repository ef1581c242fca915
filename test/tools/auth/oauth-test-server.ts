import { randomUUID } from 'node:crypto';
import {
  OAuth2Server,
  type MutableResponse,
  type MutableToken,
  type TokenRequestIncomingMessage,
} from 'oauth2-mock-server';

/** What one token request carried, as the server saw it. */
export interface SeenTokenRequest {
  contentType: string | undefined;
  /** The Authorization header, decoded per RFC 6749 §2.3.1 (base64, then form-decoded). */
  basic: { clientId: string; clientSecret: string } | undefined;
  body: Record<string, unknown>;
}

/** A real oauth2-mock-server on 127.0.0.1 with knobs the tests turn through its events. */
export interface OAuthTestServer {
  readonly server: OAuth2Server;
  readonly issuerUrl: string;
  readonly tokenEndpoint: string;
  /** Every token request that got an answer, in order. */
  readonly seen: SeenTokenRequest[];
  /** `expires_in` of the next answers; undefined leaves the field out. Default 3600. */
  expiresIn: number | undefined;
  /** When set, the next answers have this status and body instead of a token. */
  failWith: { status: number; body: Record<string, unknown> } | undefined;
  reset(): void;
  close(): Promise<void>;
}

export async function startOAuthTestServer(): Promise<OAuthTestServer> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate('RS256');
  await server.start(0, '127.0.0.1');
  const issuerUrl = server.issuer.url ?? '';

  const state: OAuthTestServer = {
    server,
    issuerUrl,
    tokenEndpoint: `${issuerUrl}/token`,
    seen: [],
    expiresIn: 3600,
    failWith: undefined,
    reset() {
      state.seen.length = 0;
      state.expiresIn = 3600;
      state.failWith = undefined;
    },
    close: () => server.stop(),
  };

  // The mock puts scope and aud in a client-credentials token but not the client: add it from
  // the Basic header, so a decoded token proves which client the server authenticated. The jti
  // makes two tokens minted in the same second differ.
  server.service.on('beforeTokenSigning', (token: MutableToken, req: TokenRequestIncomingMessage) => {
    const basic = decodeBasic(req.headers.authorization);
    token.payload.client_id = basic?.clientId;
    token.payload.jti = randomUUID();
    if (state.expiresIn !== undefined) token.payload.exp = token.payload.iat + state.expiresIn;
  });
  server.service.on('beforeResponse', (response: MutableResponse, req: TokenRequestIncomingMessage) => {
    state.seen.push({
      contentType: req.headers['content-type'],
      basic: decodeBasic(req.headers.authorization),
      body: { ...req.body },
    });
    if (state.failWith) {
      response.statusCode = state.failWith.status;
      response.body = state.failWith.body;
      return;
    }
    if (response.body === '') return;
    if (state.expiresIn === undefined) delete response.body.expires_in;
    else response.body.expires_in = state.expiresIn;
  });
  return state;
}

function decodeBasic(header: string | undefined): SeenTokenRequest['basic'] {
  const match = /^Basic (.+)$/i.exec(header ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const formDecode = (text: string): string => decodeURIComponent(text.replace(/\+/g, ' '));
  return { clientId: formDecode(decoded.slice(0, colon)), clientSecret: formDecode(decoded.slice(colon + 1)) };
}

/** The payload of a JWT, unverified: the tests only read what the server put there. */
export function jwtPayload(token: string): Record<string, unknown> {
  const part = token.split('.')[1];
  if (part === undefined) throw new Error(`not a JWT: ${token.slice(0, 20)}…`);
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
}
