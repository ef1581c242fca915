/**
 * A typed view of the parts of a dereferenced OpenAPI 3.0/3.1 document that toolsets use. The
 * parser validated the document, so these shapes hold; only what we read is typed, and `raw`
 * keeps the whole dereferenced document for anything else.
 */
import type { JsonObject, JsonValue } from '../../domain/records.ts';
import type { CarriedCredentials } from '../http/redirects.ts';

export type { JsonObject, JsonValue };

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

export interface OpenApiServerVariable {
  default: string;
  enum?: string[];
  description?: string;
}

export interface OpenApiServer {
  url: string;
  description?: string;
  variables?: Record<string, OpenApiServerVariable>;
}

export interface OpenApiMediaType {
  schema?: JsonObject;
}

export interface OpenApiParameter {
  name: string;
  in: ParameterLocation;
  description?: string;
  required?: boolean;
  deprecated?: boolean;
  schema?: JsonObject;
  /** Instead of `schema`: exactly one media type describing the serialised value. */
  content?: Record<string, OpenApiMediaType>;
  style?: string;
  explode?: boolean;
}

export interface OpenApiRequestBody {
  description?: string;
  required?: boolean;
  content: Record<string, OpenApiMediaType>;
}

export interface OpenApiResponse {
  description?: string;
  content?: Record<string, OpenApiMediaType>;
}

export interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  deprecated?: boolean;
  parameters?: OpenApiParameter[];
  requestBody?: OpenApiRequestBody;
  responses?: Record<string, OpenApiResponse>;
}

export type OpenApiPathItem = { parameters?: OpenApiParameter[] } & Partial<Record<HttpMethod, OpenApiOperation>>;

export interface OpenApiDocument {
  /** The `openapi` field as written, e.g. `3.0.3`. */
  openapi: string;
  /** The major.minor line: decides how schemas are converted (3.0 has `nullable`, 3.1 is JSON Schema). */
  version: '3.0' | '3.1';
  title: string;
  servers: OpenApiServer[];
  paths: Record<string, OpenApiPathItem>;
  /** The whole document with internal `$ref`s replaced (recursive ones are left as `$ref`). */
  raw: JsonObject;
}

/** What a request executor hands to `send`: everything already serialised. */
export interface OutgoingRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** Which of the headers and query parameters hold the toolset's credentials (never sent to another origin). */
  credentials?: CarriedCredentials;
}

/** What `send` returns; `truncated` says the body was cut at the caller's size cap. */
export interface IncomingResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  truncated: boolean;
}

/** The network, injected: in production the egress-guarded fetch, in tests a small adapter. */
export type SendFunction = (request: OutgoingRequest) => Promise<IncomingResponse>;

/** Credentials the caller resolved (API key, bearer, OAuth token), merged into each request. */
export interface RequestAuth {
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

/** A tool result as the model sees it. */
export interface ToolOutput {
  isError: boolean;
  text: string;
}
