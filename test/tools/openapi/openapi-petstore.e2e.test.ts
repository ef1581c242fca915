/**
 * End to end against a spec no one here wrote: the OpenAPI Initiative's Petstore examples
 * (test/fixtures/openapi, copied verbatim from OAI/OpenAPI-Specification), served by Stoplight
 * Prism's mock server, which answers with schema-valid data and validates what it receives.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { argumentsValidator } from '../../../src/tools/openapi/openapi-arguments.ts';
import { toJsonSchema } from '../../../src/tools/openapi/openapi-json-schema.ts';
import { buildRequest } from '../../../src/tools/openapi/openapi-request.ts';
import { toToolOutput } from '../../../src/tools/openapi/openapi-response.ts';
import { OpenApiToolset } from '../../../src/tools/openapi/openapi-toolset.ts';
import { fetchSend } from './fetch-send.ts';
import { startPrism, type PrismServer } from './prism-server.ts';

const FIXTURES = resolve(import.meta.dirname, '../../fixtures/openapi');

/** Parses a successful output and checks it against the operation's 200 response schema. */
function schemaValid(toolset: OpenApiToolset, toolName: string, text: string): unknown {
  const operation = toolset.operations.find((candidate) => candidate.name === toolName);
  const schema = operation?.responses['200']?.content?.['application/json']?.schema;
  const value: unknown = JSON.parse(text);
  // The same 2020-12 + formats checker the toolset uses for arguments, here on the response.
  expect(argumentsValidator(toJsonSchema(schema, '3.0', 'response'))(value)).toBeUndefined();
  return value;
}

describe('Petstore (petstore.yaml) through prism', () => {
  let prism: PrismServer;
  let toolset: OpenApiToolset;
  beforeAll(async () => {
    const file = resolve(FIXTURES, 'petstore.yaml');
    prism = await startPrism(file);
    // The spec's server is petstore.swagger.io/v1; `url` points the toolset at the mock instead.
    toolset = await OpenApiToolset.fromText(readFileSync(file, 'utf8'), { url: prism.url });
  });
  afterAll(async () => {
    await prism?.stop();
  });

  it('offers one tool per operation', () => {
    expect(toolset.serverUrl).toBe(prism.url);
    expect(toolset.tools.map((tool) => tool.name)).toEqual(['listPets', 'createPets', 'showPetById']);
    expect(toolset.tools[0]?.description).toBe('List all pets\n\n(GET /pets)');
    expect(toolset.tools[2]?.parameters).toMatchObject({
      properties: { petId: { type: 'string' } },
      required: ['petId'],
    });
  });

  it('lists pets and shows one, with schema-valid outputs', async () => {
    const list = await toolset.call('listPets', { limit: 2 }, { send: fetchSend });
    expect(list.isError, list.text).toBe(false);
    const pets = schemaValid(toolset, 'listPets', list.text);
    expect(Array.isArray(pets)).toBe(true);

    const one = await toolset.call('showPetById', { petId: 'rex 1' }, { send: fetchSend });
    expect(one.isError, one.text).toBe(false);
    expect(schemaValid(toolset, 'showPetById', one.text)).toMatchObject({
      id: expect.any(Number),
      name: expect.any(String),
    });
  });

  it('refuses an invalid argument before calling the API', async () => {
    const output = await toolset.call('listPets', { limit: 500 }, { send: fetchSend });
    expect(output).toEqual({ isError: true, text: "invalid arguments for listPets: 'limit' must be <= 100" });
    const unknown = await toolset.call('listPets', { limit: 1, color: 'red' }, { send: fetchSend });
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toContain("must NOT have additional properties ('color')");
  });

  it("turns prism's 422 for a request that breaks the spec into an error result", async () => {
    const operation = toolset.operations.find((candidate) => candidate.name === 'listPets');
    if (operation === undefined) throw new Error('no listPets');
    // Built directly, skipping the argument check, so the API itself gets to refuse it.
    const response = await fetchSend(buildRequest(operation, { limit: 'lots' }, toolset.serverUrl));
    const output = toToolOutput(response, operation, { maxBytes: 10_000 });
    expect(output.isError).toBe(true);
    expect(output.text).toMatch(/^HTTP 422 Unprocessable Entity: \{"code":-?\d+,"message":"[^"]*"\}$/);
  });
});

describe('Petstore expanded (petstore-expanded.yaml) through prism', () => {
  let prism: PrismServer;
  let toolset: OpenApiToolset;
  beforeAll(async () => {
    const file = resolve(FIXTURES, 'petstore-expanded.yaml');
    prism = await startPrism(file);
    toolset = await OpenApiToolset.fromText(readFileSync(file, 'utf8'), { url: prism.url });
  });
  afterAll(async () => {
    await prism?.stop();
  });

  it('names the operationId with spaces as a valid tool name', () => {
    expect(toolset.tools.map((tool) => tool.name)).toEqual(['findPets', 'addPet', 'find_pet_by_id', 'deletePet']);
  });

  it('finds pets by tags (repeated query keys) and one pet by id', async () => {
    const found = await toolset.call('findPets', { tags: ['dog', 'cat'], limit: 3 }, { send: fetchSend });
    expect(found.isError, found.text).toBe(false);
    expect(Array.isArray(schemaValid(toolset, 'findPets', found.text))).toBe(true);

    const pet = await toolset.call('find_pet_by_id', { id: 7 }, { send: fetchSend });
    expect(pet.isError, pet.text).toBe(false);
    expect(schemaValid(toolset, 'find_pet_by_id', pet.text)).toMatchObject({
      id: expect.any(Number),
      name: expect.any(String),
    });
  });

  it('adds a pet with a JSON body and deletes one (204)', async () => {
    const added = await toolset.call('addPet', { body: { name: 'Rex', tag: 'dog' } }, { send: fetchSend });
    expect(added.isError, added.text).toBe(false);
    expect(schemaValid(toolset, 'addPet', added.text)).toMatchObject({ name: expect.any(String) });

    const missingBody = await toolset.call('addPet', {}, { send: fetchSend });
    expect(missingBody).toEqual({
      isError: true,
      text: "invalid arguments for addPet: the arguments must have required property 'body'",
    });

    expect(await toolset.call('deletePet', { id: 1 }, { send: fetchSend })).toEqual({
      isError: false,
      text: 'HTTP 204 No Content: empty response body',
    });
  });

  it('maps a 404 from the API to an error result with status and body', async () => {
    // Prism's Prefer header asks the mock for a given status; it travels like an auth header would.
    const output = await toolset.call(
      'find_pet_by_id',
      { id: 7 },
      { send: fetchSend, auth: { headers: { Prefer: 'code=404' } } },
    );
    expect(output.isError).toBe(true);
    expect(output.text).toMatch(/^HTTP 404 Not Found: \{"code":-?\d+,"message":"[^"]*"\}$/);
  });

  it('truncates a response beyond the cap with a marker', async () => {
    const output = await toolset.call('find_pet_by_id', { id: 7 }, { send: fetchSend, maxResponseBytes: 10 });
    expect(output.isError).toBe(false);
    expect(output.text).toMatch(/^.{10}… \[truncated: response larger than 10 bytes\]$/);
  });
});
