/**
 * The facade the rest of Baton uses: an OpenAPI toolset built from inline spec text, listing its
 * tools (name, description, parameters) and running a call end to end — arguments checked,
 * request built, sent through the injected `send`, response mapped. Creation fails with an
 * OpenApiError (INVALID_ARGUMENT, "toolset not created"); a call never throws, every failure is
 * an error result the model can read, so a broken API does not break the turn.
 */
import { argumentsValidator } from './openapi-arguments.ts';
import { parseOpenApiDocument } from './openapi-document.ts';
import { OpenApiError } from './openapi-error.ts';
import type { OpenApiLimits } from './openapi-limits.ts';
import {
  operationsFromDocument,
  selectOperations,
  type OpenApiOperationTool,
  type SkippedOperation,
} from './openapi-operations.ts';
import { buildRequest } from './openapi-request.ts';
import { toToolOutput } from './openapi-response.ts';
import { serverUrl } from './openapi-server-url.ts';
import type { JsonObject, RequestAuth, SendFunction, ToolOutput } from './openapi-types.ts';

export const DEFAULT_MAX_RESPONSE_BYTES = 100_000;

export interface ToolDefinition {
  name: string;
  description: string;
  parameters: JsonObject;
}

export interface OpenApiToolsetOptions {
  /** CES `url`: replaces a `$env_var` placeholder in the server URL, or the whole server URL. */
  url?: string;
  /** CES `ignoreUnknownFields`: drop response fields the response schema does not describe. */
  ignoreUnknownFields?: boolean;
  /** Only these tools (by tool name or operationId); all when absent or empty. */
  toolIds?: string[];
}

/**
 * A compiled toolset as plain data (structured-clone safe): what reading the document produced,
 * sent back from the worker that read it (openapi-worker.ts). Building the toolset from it is cheap.
 */
export interface OpenApiToolsetData {
  readonly serverUrl: string;
  readonly operations: OpenApiOperationTool[];
  readonly skipped: SkippedOperation[];
  readonly ignoreUnknownFields: boolean;
}

export interface CallOptions {
  send: SendFunction;
  auth?: RequestAuth;
  maxResponseBytes?: number;
}

function describeUrl(url: string): string {
  // Never echo the query string: it may carry an API key added by `auth`.
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return 'the API';
  }
}

export class OpenApiToolset {
  readonly tools: ToolDefinition[];
  private readonly byName: Map<string, OpenApiOperationTool>;
  private readonly validators = new Map<string, (args: unknown) => string | undefined>();

  private constructor(
    readonly serverUrl: string,
    readonly operations: OpenApiOperationTool[],
    /** Operations left out, with why (a request body type we cannot send, say). */
    readonly skipped: SkippedOperation[],
    private readonly ignoreUnknownFields: boolean,
  ) {
    this.tools = operations.map((operation) => ({
      name: operation.name,
      description: operation.description,
      parameters: operation.parameters,
    }));
    this.byName = new Map(operations.map((operation) => [operation.name, operation]));
  }

  /** Parses and checks the spec, resolves the server URL and builds the tools, in this thread; throws OpenApiError. */
  static async fromText(
    text: string,
    options: OpenApiToolsetOptions = {},
    limits?: OpenApiLimits,
  ): Promise<OpenApiToolset> {
    return OpenApiToolset.fromData(await OpenApiToolset.compile(text, options, limits));
  }

  /** A toolset from what `compile` produced (in a worker, say): no parsing, no checks. */
  static fromData(data: OpenApiToolsetData): OpenApiToolset {
    return new OpenApiToolset(data.serverUrl, data.operations, data.skipped, data.ignoreUnknownFields);
  }

  /**
   * The expensive part of `fromText`: parse, validate and dereference the document (within
   * `limits`), resolve the server URL, convert every operation and check its argument schema
   * compiles. Throws OpenApiError (OpenApiLimitError past a limit).
   */
  static async compile(
    text: string,
    options: OpenApiToolsetOptions = {},
    limits?: OpenApiLimits,
  ): Promise<OpenApiToolsetData> {
    const document = await parseOpenApiDocument(text, limits);
    const base = serverUrl(document, options.url);
    const { tools, skipped } = operationsFromDocument(document);
    const selected = selectOperations(tools, options.toolIds);
    for (const operation of selected) {
      try {
        argumentsValidator(operation.parameters);
      } catch (error) {
        throw new OpenApiError(
          `the parameters of ${operation.name} do not form a valid JSON Schema: ${(error as Error).message}`,
          `paths.${operation.path}.${operation.method}`,
        );
      }
    }
    return {
      serverUrl: base,
      operations: selected,
      skipped,
      ignoreUnknownFields: options.ignoreUnknownFields === true,
    };
  }

  /** Runs one tool call; every failure comes back as `{ isError: true }` with a readable reason. */
  async call(toolName: string, args: unknown, options: CallOptions): Promise<ToolOutput> {
    const operation = this.byName.get(toolName);
    if (operation === undefined) {
      return {
        isError: true,
        text: `unknown tool '${toolName}'; this toolset has ${[...this.byName.keys()].join(', ') || 'no tools'}`,
      };
    }
    let check = this.validators.get(toolName);
    if (check === undefined) {
      check = argumentsValidator(operation.parameters);
      this.validators.set(toolName, check);
    }
    const problem = check(args ?? {});
    if (problem !== undefined) return { isError: true, text: `invalid arguments for ${toolName}: ${problem}` };

    let request;
    try {
      request = buildRequest(operation, args, this.serverUrl, options.auth === undefined ? {} : { auth: options.auth });
    } catch (error) {
      if (error instanceof OpenApiError)
        return { isError: true, text: `invalid arguments for ${toolName}: ${error.message}` };
      throw error;
    }
    let response;
    try {
      response = await options.send(request);
    } catch (error) {
      return {
        isError: true,
        text: `${request.method} ${describeUrl(request.url)} failed: ${(error as Error).message}`,
      };
    }
    return toToolOutput(response, operation, {
      maxBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      ignoreUnknownFields: this.ignoreUnknownFields,
    });
  }
}
