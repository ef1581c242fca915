import { expect } from 'vitest';
import type { TestBaton, TestResponse } from '../../helpers/test-baton.ts';

/** The default app of a test Baton, as CES names it. */
export const LOCATION = 'projects/default/locations/global';
export const APP = `${LOCATION}/apps/default`;

/**
 * Asserts a google.rpc.Status error body `{error:{code,message,status,details}}` with the given
 * HTTP status and status name, and returns the error for further checks.
 */
export function expectGoogleError(
  response: TestResponse,
  http: number,
  status: string,
): { code: number; message: string; status: string; details: any[] } {
  expect(response.status, JSON.stringify(response.body)).toBe(http);
  expect(Object.keys(response.body)).toEqual(['error']);
  const error = response.body.error;
  expect(error).toEqual({ code: http, message: expect.any(String), status, details: expect.any(Array) });
  expect(error.details[0]).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', domain: 'baton' });
  return error;
}

/** The field a BadRequest detail names, if any. */
export function violatedField(error: { details: any[] }): string | undefined {
  return error.details.find((detail) => detail['@type'] === 'type.googleapis.com/google.rpc.BadRequest')
    ?.fieldViolations?.[0]?.field;
}

/** A client function tool body in CES form (upper-case Schema types). */
export function clientFunctionTool(name: string, description = `Runs ${name}.`): object {
  return {
    clientFunction: {
      name,
      description,
      parameters: {
        type: 'OBJECT',
        properties: { orderId: { type: 'STRING', description: 'The order number.' } },
        required: ['orderId'],
      },
    },
  };
}

export function mcpToolset(displayName: string, serverAddress = 'https://tools.example.com/mcp/'): object {
  return { displayName, mcpToolset: { serverAddress } };
}

/** POSTs and expects 200, returning the body. */
export async function created(baton: TestBaton, path: string, body: unknown): Promise<any> {
  const response = await baton.request('POST', path, body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

export async function read(baton: TestBaton, name: string): Promise<TestResponse> {
  return baton.request('GET', `/v1/${name}`);
}
