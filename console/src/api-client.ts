import type {
  AgentSummary,
  AnswerOutcome,
  CesResource,
  IssuedWebhookEndpoint,
  ListPage,
  Principal,
  Thread,
  ThreadMessage,
  ToolCall,
  ToolDefinition,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointCreate,
} from './api-types.ts';

/** An error the server answered with, carrying its own message so the page can show it verbatim. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null,
    /** The request field at fault (native errors name it), so a form can mark that field. */
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/**
 * Reads both error dialects Baton speaks: native `{error:{type,code,message}}` and CES's
 * `google.rpc.Status` `{error:{code:number,message,status}}`.
 */
export async function errorFromResponse(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as {
      error?: { message?: unknown; code?: unknown; status?: unknown; param?: unknown };
    };
    const error = body.error;
    if (error && typeof error.message === 'string') {
      const code = typeof error.code === 'string' ? error.code : typeof error.status === 'string' ? error.status : null;
      const param = typeof error.param === 'string' ? error.param : null;
      return new ApiError(response.status, error.message, code, param);
    }
  } catch {
    // Not JSON: a proxy page or a plain-text answer; fall through to the status line.
  }
  return new ApiError(
    response.status,
    text.trim() !== '' ? text.trim().slice(0, 300) : `HTTP ${response.status} ${response.statusText}`,
    null,
  );
}

type Query = Record<string, string | number | undefined>;

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query))
    if (value !== undefined && value !== '') params.set(key, String(value));
  const search = params.toString();
  return search === '' ? path : `${path}?${search}`;
}

/**
 * The console's only door to the server: same origin (the console is served by Baton), every
 * request with the signed-in key. A 401 anywhere means the key is no longer good, so the app is
 * told once and can sign the person out instead of showing a page of failures.
 */
export class ApiClient {
  constructor(
    readonly key: string,
    private readonly onUnauthorized: (error: ApiError) => void = () => {},
  ) {}

  /** For requests made outside `request` (the ledger stream): a 401 there means the same. */
  reportUnauthorized(error: ApiError): void {
    this.onUnauthorized(error);
  }

  get headers(): Record<string, string> {
    return { authorization: `Bearer ${this.key}` };
  }

  async request<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const response = await fetch(path, {
      method,
      headers: {
        ...this.headers,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      ...(signal ? { signal } : {}),
    });
    if (!response.ok) {
      const error = await errorFromResponse(response);
      if (response.status === 401) this.reportUnauthorized(error);
      throw error;
    }
    return (await response.json()) as T;
  }

  me(): Promise<Principal> {
    return this.request('GET', '/v1/me');
  }

  listCalls(query: Query, signal?: AbortSignal): Promise<ListPage<ToolCall>> {
    return this.request('GET', withQuery('/v1/tool-calls', query), undefined, signal);
  }

  getCall(id: string): Promise<ToolCall> {
    return this.request('GET', `/v1/tool-calls/${encodeURIComponent(id)}`);
  }

  getCallTool(id: string): Promise<ToolDefinition> {
    return this.request('GET', `/v1/tool-calls/${encodeURIComponent(id)}/tool`);
  }

  decide(id: string, approve: boolean, reason: string): Promise<AnswerOutcome> {
    return this.request('POST', `/v1/tool-calls/${encodeURIComponent(id)}/decision`, {
      approve,
      ...(reason.trim() !== '' ? { reason: reason.trim() } : {}),
    });
  }

  submitResult(id: string, content: string, isError: boolean): Promise<AnswerOutcome> {
    return this.request('POST', `/v1/tool-calls/${encodeURIComponent(id)}/result`, {
      content,
      ...(isError ? { is_error: true } : {}),
    });
  }

  getThread(id: string): Promise<Thread> {
    return this.request('GET', `/v1/threads/${encodeURIComponent(id)}`);
  }

  /** Deletes the thread and every row of it (a running turn is refused with 409 `conversation_running`). */
  deleteThread(id: string): Promise<{ id: string; deleted: true }> {
    return this.request('DELETE', `/v1/threads/${encodeURIComponent(id)}`);
  }

  listThreads(query: Query): Promise<ListPage<Thread>> {
    return this.request('GET', withQuery('/v1/threads', query));
  }

  /** The whole transcript, page by page; capped so a huge thread cannot freeze the tab. */
  async threadMessages(id: string, maxPages = 20): Promise<ThreadMessage[]> {
    const messages: ThreadMessage[] = [];
    let after: string | undefined;
    for (let page = 0; page < maxPages; page += 1) {
      const result = await this.request<ListPage<ThreadMessage>>(
        'GET',
        withQuery(`/v1/threads/${encodeURIComponent(id)}/messages`, { limit: 100, after }),
      );
      messages.push(...result.data);
      if (!result.has_more || result.next_cursor === null) break;
      after = result.next_cursor;
    }
    return messages;
  }

  listAgents(query: Query = {}): Promise<ListPage<AgentSummary>> {
    return this.request('GET', withQuery('/v1/agents', query));
  }

  /** The app's webhook endpoints, oldest first (one list: the API does not page them). App admins only. */
  listWebhookEndpoints(): Promise<{ object: 'list'; data: WebhookEndpoint[] }> {
    return this.request('GET', '/v1/webhook-endpoints');
  }

  getWebhookEndpoint(id: string): Promise<WebhookEndpoint> {
    return this.request('GET', webhookPath(id));
  }

  /** A new endpoint; the answer carries its signing secret, which the server never shows again. */
  createWebhookEndpoint(body: WebhookEndpointCreate): Promise<IssuedWebhookEndpoint> {
    return this.request('POST', '/v1/webhook-endpoints', body);
  }

  /** `enabled: true` also re-enables an endpoint Baton disabled, and forgets its failures. */
  setWebhookEndpointEnabled(id: string, enabled: boolean): Promise<WebhookEndpoint> {
    return this.request('PATCH', webhookPath(id), { enabled });
  }

  /** Deletes the endpoint; its pending deliveries are dropped. */
  deleteWebhookEndpoint(id: string): Promise<WebhookEndpoint & { deleted: true }> {
    return this.request('DELETE', webhookPath(id));
  }

  /** A new secret, shown once; the old one keeps signing beside it for `graceSeconds`. */
  rotateWebhookSecret(id: string, graceSeconds: number): Promise<IssuedWebhookEndpoint> {
    return this.request('POST', `${webhookPath(id)}/rotate-secret`, { grace_seconds: graceSeconds });
  }

  listWebhookDeliveries(id: string, query: Query): Promise<ListPage<WebhookDelivery>> {
    return this.request('GET', withQuery(`${webhookPath(id)}/deliveries`, query));
  }

  /** Sends a delivery again now; 409 `webhook_delivery_in_flight` while an attempt is under way. */
  resendWebhookDelivery(id: string, deliveryId: string): Promise<WebhookDelivery> {
    return this.request('POST', `${webhookPath(id)}/deliveries/${encodeURIComponent(deliveryId)}/resend`);
  }

  /** CES collections (`tools`, `toolsets`) of the signed-in app, Google-style pages. */
  listCes(
    appResource: string,
    collection: 'tools' | 'toolsets',
    pageToken?: string,
  ): Promise<{ tools?: CesResource[]; toolsets?: CesResource[]; nextPageToken?: string }> {
    return this.request('GET', withQuery(`/v1/${appResource}/${collection}`, { pageSize: 100, pageToken }));
  }
}

function webhookPath(id: string): string {
  return `/v1/webhook-endpoints/${encodeURIComponent(id)}`;
}
