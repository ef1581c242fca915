/**
 * The OAI Petstore served by Prism's mock, called by agents of a real Baton: an openApiToolset
 * narrowed to some of its tools, an openApiTool standing for one operation, and the egress guard
 * refusing the same toolset when loopback is not allowed.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestBaton } from '../../helpers/test-baton.ts';
import { startPrism, type PrismServer } from '../../tools/openapi/prism-server.ts';
import {
  APP,
  ask,
  callProgram,
  createAgent,
  createTool,
  createToolset,
  LOOPBACK,
  onlyServerResult,
  startToolBaton,
} from './provider-fixtures.ts';

const PETSTORE = readFileSync(resolve(import.meta.dirname, '../../fixtures/openapi/petstore.yaml'), 'utf8');

const program = callProgram({
  'list pets': { tool: 'listPets', arguments: { limit: 2 } },
  'show pet': { tool: 'showPetById', arguments: { petId: '7' } },
  'create pet': { tool: 'createPets', arguments: { id: 1, name: 'Rex' } },
  'bad limit': { tool: 'listPets', arguments: { limit: 'many' } },
});

/** A schema-valid Pet as Prism generates it. */
const pet = { id: expect.any(Number), name: expect.any(String) };

/** Creates the toolset (narrowed by the agent), a single-operation tool and the agents using them. */
async function seedPetstore(baton: TestBaton, prismUrl: string): Promise<void> {
  await createToolset(baton, 'petstore', {
    displayName: 'Petstore',
    openApiToolset: { openApiSchema: PETSTORE, url: prismUrl },
  });
  await createAgent(baton, 'pets', { toolsets: [{ toolset: 'petstore', toolIds: ['listPets', 'showPetById'] }] });
  // The document has three operations; `name` picks the one this Tool stands for.
  await createTool(baton, 'show-pet', { openApiTool: { openApiSchema: PETSTORE, url: prismUrl, name: 'showPetById' } });
  await createAgent(baton, 'pet-viewer', { tools: ['show-pet'] });
}

describe('Petstore through Prism, from an agent of a real Baton', () => {
  let prism: PrismServer;
  let allowed: TestBaton;
  let closed: TestBaton;

  beforeAll(async () => {
    prism = await startPrism(resolve(import.meta.dirname, '../../fixtures/openapi/petstore.yaml'));
    allowed = await startToolBaton(program, { egressAllow: [LOOPBACK] });
    closed = await startToolBaton(program);
    await seedPetstore(allowed, prism.url);
    await seedPetstore(closed, prism.url);
  });
  afterAll(async () => {
    await allowed?.close();
    await closed?.close();
    await prism?.stop();
  });

  it('offers the toolset narrowed to its toolIds; listPets runs on the server and the answer carries Prism data', async () => {
    const turn = await ask(allowed, 'pets', 'list pets please');
    const result = onlyServerResult(turn, 'listPets');
    expect(result.isError, result.text).toBe(false);
    expect(turn.calls[0]?.input).toEqual({ limit: 2 });
    const pets: unknown = JSON.parse(result.text);
    expect(Array.isArray(pets)).toBe(true);
    expect((pets as unknown[]).length).toBeGreaterThan(0);
    for (const entry of pets as unknown[]) expect(entry).toMatchObject(pet);
    // The model saw the data and answered with it.
    expect(turn.text).toBe(`Done: ${result.text}`);
  });

  it('runs another tool of the narrowed toolset with a path parameter', async () => {
    const turn = await ask(allowed, 'pets', 'show pet 7');
    const result = onlyServerResult(turn, 'showPetById');
    expect(result.isError, result.text).toBe(false);
    expect(JSON.parse(result.text)).toMatchObject(pet);
    expect(turn.text).toContain('Done: {');
  });

  it('does not offer the operation left out of toolIds: a call of it never reaches the API', async () => {
    const turn = await ask(allowed, 'pets', 'create pet Rex');
    // No server call was made: the model's call was refused before any executor ran.
    expect(turn.calls.filter((call) => call.executor === 'server')).toEqual([]);
    expect(turn.text).toMatch(/^Failed: /);
    expect(turn.text).toContain("there is no tool named 'createPets'; available tools: listPets, showPetById");
  });

  it('refuses arguments the operation does not accept before calling the API, and the turn goes on', async () => {
    const turn = await ask(allowed, 'pets', 'bad limit');
    expect(turn.text).toMatch(/^Failed: /);
    expect(turn.text).toContain("'limit' must be integer");
    expect(turn.calls.filter((call) => call.executor === 'server')).toEqual([]);
    expect(turn.reply.choices[0].finish_reason).toBe('stop');
  });

  it('an openApiTool stands for the one operation it names', async () => {
    const tool = await allowed.request('GET', `/v1/${APP}/tools/show-pet`);
    expect(tool.status).toBe(200);
    const turn = await ask(allowed, 'pet-viewer', 'show pet 7');
    const result = onlyServerResult(turn, 'showPetById');
    expect(result.isError, result.text).toBe(false);
    expect(JSON.parse(result.text)).toMatchObject(pet);
    expect(turn.text).toBe(`Done: ${result.text}`);
  });

  it('without loopback in egress.allow, the call is an error result naming egress.allow, and the turn completes', async () => {
    const turn = await ask(closed, 'pets', 'list pets please');
    const result = onlyServerResult(turn, 'listPets');
    expect(result.isError).toBe(true);
    expect(result.text).toContain('egress.allow');
    expect(result.text).toContain('127.0.0.1');
    expect(result.text).toMatch(/loopback/);
    expect(turn.text).toBe(`Failed: ${result.text}`);

    const single = onlyServerResult(await ask(closed, 'pet-viewer', 'show pet 7'), 'showPetById');
    expect(single.isError).toBe(true);
    expect(single.text).toContain('egress.allow');
  });
});
