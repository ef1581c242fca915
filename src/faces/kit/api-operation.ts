import type { z } from 'zod';

/**
 * One HTTP operation of a face, as the API document (`GET /openapi.json`) describes it. Each face
 * keeps a list of these beside its routes, built from the zod schemas its routes parse with, so
 * the document and the validation cannot drift; the server turns the lists into OpenAPI
 * (src/server/openapi/). A route a face registers without an entry here fails a test.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * A JSON (or SSE) body: its zod schema, converted to JSON Schema for the document. A schema (or a
 * part of one) named with `.meta({ id })` is shown once, among the document's components.
 */
export interface ApiBody {
  /** What the route validates with (a request) or what its view returns (a response). */
  schema?: z.ZodType;
  description?: string;
  /** The body may be left out (a request). */
  optional?: boolean;
}

export interface ApiResponse extends ApiBody {
  description: string;
  /**
   * The same response as Server-Sent Events when the request asks for a stream: what the events
   * are, in words (each event's `data` is JSON).
   */
  eventStream?: string;
  /** A body that is not JSON (the reference page, metrics): its media type. */
  mediaType?: string;
}

/** The error body a face answers with, in its own format (see `error-body-schemas.ts`). */
export interface ApiErrorFormat {
  /** The name of its schema among the document's components. */
  name: string;
  schema: z.ZodType;
  description: string;
}

export interface ApiOperation {
  method: HttpMethod;
  /** The route pattern exactly as the face registers it with Fastify: `/v1/threads/:id`, `/v1/models/*`. */
  route: string;
  /**
   * The path in the document when it is not the route's (`:id` → `{id}`): a custom method served
   * by one pattern (`sessions/{session}:runSession`), or a wildcard given a name.
   */
  path?: string;
  operationId: string;
  summary: string;
  description?: string;
  /** The group the reference page shows the operation in. */
  tag: string;
  /** Descriptions of the path parameters, by name (every one of the path's parameters is a string). */
  pathParams?: Readonly<Record<string, string>>;
  /** The query string, as the route parses it. */
  query?: z.ZodObject;
  body?: ApiBody;
  /** Successful answers by HTTP status. */
  responses: Readonly<Record<number, ApiResponse>>;
  /** Refusals and failures (4XX, 5XX) come in this format. */
  errors: ApiErrorFormat;
  externalDocs?: { url: string; description?: string };
  /**
   * For a route that checks its caller itself with a secret other than an API key (`/metrics`):
   * the OpenAPI security scheme it takes instead.
   */
  ownSecurity?: { name: string; scheme: Readonly<Record<string, string>> };
}
