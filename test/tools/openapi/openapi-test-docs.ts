/** Small OpenAPI documents written for these tests (the end-to-end test uses the public Petstore). */
import YAML from 'yaml';

export function doc30(paths: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    openapi: '3.0.3',
    info: { title: 'Test API', version: '1.0.0' },
    servers: [{ url: 'https://api.example.com/v1' }],
    paths,
    ...extra,
  };
}

export function toYaml(document: unknown): string {
  return YAML.stringify(document);
}

export const ok = { '200': { description: 'ok' } };

/** A compact API with path, query, header and body parameters and `$ref`s, in YAML. */
export const THINGS_YAML = `
openapi: 3.0.3
info: { title: Things, version: "2" }
servers:
  - url: https://{region}.things.example/api
    variables:
      region: { default: eu, enum: [eu, us] }
paths:
  /things/{thingId}:
    parameters:
      - $ref: '#/components/parameters/ThingId'
    get:
      operationId: getThing
      summary: Get one thing
      parameters:
        - { name: fields, in: query, schema: { type: array, items: { type: string } } }
        - { name: X-Trace, in: header, required: true, schema: { type: string } }
      responses:
        '200':
          description: the thing
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Thing' }
    put:
      operationId: putThing
      requestBody:
        required: true
        content:
          application/json:
            schema: { $ref: '#/components/schemas/Thing' }
      responses: { '204': { description: saved } }
components:
  parameters:
    ThingId: { name: thingId, in: path, required: true, schema: { type: string } }
  schemas:
    Thing:
      type: object
      required: [id, name]
      properties:
        id: { type: string, readOnly: true }
        name: { type: string, example: lamp }
        colour: { type: string, nullable: true, enum: [red, blue] }
        weight: { type: number, minimum: 0, exclusiveMinimum: true }
        parts: { type: array, items: { $ref: '#/components/schemas/Part' } }
    Part:
      type: object
      properties:
        label: { type: string }
`;
