import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BatonError } from '../../../src/domain/errors/baton-error.ts';
import { acceptProtoFieldNames, jsonNameOf } from '../../../src/faces/ces/proto-field-names.ts';
import { TOOL_KINDS } from '../../../src/resources/index.ts';
import { toolRequestSchemas } from '../../../src/resources/tools/tool-schemas.ts';
import { toolsetRequestSchemas } from '../../../src/resources/toolsets/toolset-schemas.ts';
import { runSessionRequestSchema } from '../../../src/faces/ces/sessions/session-wire.ts';

const toolsets = toolsetRequestSchemas(TOOL_KINDS);
const tools = toolRequestSchemas(TOOL_KINDS);

function thrown(run: () => unknown): BatonError {
  try {
    run();
  } catch (error) {
    if (error instanceof BatonError) return error;
    throw error;
  }
  throw new Error('expected a BatonError');
}

/** The one conversion of proto field names (`display_name`) to JSON names (`displayName`), by the request schema. */
describe('proto field names', () => {
  it('converts names as protobuf does', () => {
    expect(jsonNameOf('display_name')).toBe('displayName');
    expect(jsonNameOf('api_key_secret_version')).toBe('apiKeySecretVersion');
    expect(jsonNameOf('service_agent_id_token_auth_config')).toBe('serviceAgentIdTokenAuthConfig');
    expect(jsonNameOf('displayName')).toBe('displayName');
  });

  it('renames the fields of every message the schema describes, at any depth, in lists too', () => {
    const { message } = acceptProtoFieldNames(toolsets.create, {
      parent: 'p',
      toolset_id: 'crm',
      toolset: {
        display_name: 'CRM',
        execution_type: 'SYNCHRONOUS',
        tool_fake_config: { enable_fake_mode: true, code_block: { js_code: 'x' } },
        mcp_toolset: {
          server_address: 'https://example.com/mcp/',
          api_authentication: {
            api_key_config: { key_name: 'X-Api-Key', api_key_secret_version: 's', request_location: 'HEADER' },
          },
          tls_config: { ca_certs: [{ display_name: 'ca', cert: 'AAAA' }] },
          tool_overrides: [{ tool: 't', name_override: 'n' }],
        },
      },
    });
    expect(message).toEqual({
      parent: 'p',
      toolsetId: 'crm',
      toolset: {
        displayName: 'CRM',
        executionType: 'SYNCHRONOUS',
        toolFakeConfig: { enableFakeMode: true, codeBlock: { jsCode: 'x' } },
        mcpToolset: {
          serverAddress: 'https://example.com/mcp/',
          apiAuthentication: {
            apiKeyConfig: { keyName: 'X-Api-Key', apiKeySecretVersion: 's', requestLocation: 'HEADER' },
          },
          tlsConfig: { caCerts: [{ displayName: 'ca', cert: 'AAAA' }] },
          toolOverrides: [{ tool: 't', nameOverride: 'n' }],
        },
      },
    });
  });

  it('leaves free-form data alone: schemas, maps, Structs, strings, unknown fields', () => {
    const parameters = {
      type: 'OBJECT',
      properties: { zip_code: { type: 'STRING' } },
      required: ['zip_code'],
      additional_properties: false,
    };
    const tool = acceptProtoFieldNames(tools.create, {
      parent: 'p',
      tool: { client_function: { name: 'get_nearest_store', parameters, response: { store_name: {} } } },
    }).message as any;
    expect(tool.tool.clientFunction.parameters).toEqual(parameters);
    expect(tool.tool.clientFunction.response).toEqual({ store_name: {} });

    const headers = { x_api_key: '$context.variables.api_key' };
    const toolset = acceptProtoFieldNames(toolsets.create, {
      parent: 'p',
      toolset: {
        mcp_toolset: { custom_headers: headers, service_directory_config: { service: 'x', some_field: 1 } },
        display_nme: 'typo',
      },
    }).message as any;
    expect(toolset.toolset.mcpToolset.customHeaders).toEqual(headers);
    expect(toolset.toolset.mcpToolset.serviceDirectoryConfig).toEqual({ service: 'x', some_field: 1 });
    // Not a field in either spelling: left for the schema to name as written.
    expect(toolset.toolset.display_nme).toBe('typo');

    const session = acceptProtoFieldNames(runSessionRequestSchema, {
      config: { session: 's', use_tool_fakes: true },
      inputs: [
        { variables: { customer_id: 'c1' } },
        {
          tool_responses: {
            tool_responses: [{ id: '1', display_name: 'd', response: { store_name: 'Alibaba' } }],
          },
        },
      ],
    }).message as any;
    expect(session.config.useToolFakes).toBe(true);
    expect(session.inputs[0].variables).toEqual({ customer_id: 'c1' });
    expect(session.inputs[1].toolResponses.toolResponses[0]).toEqual({
      id: '1',
      displayName: 'd',
      response: { store_name: 'Alibaba' },
    });
  });

  it('refuses a field given in both spellings, naming both', () => {
    const error = thrown(() =>
      acceptProtoFieldNames(toolsets.create, {
        parent: 'p',
        toolset: { mcp_toolset: { server_address: 'https://a/mcp/', serverAddress: 'https://b/mcp/' } },
      }),
    );
    expect(error.code).toBe('duplicate_field');
    expect(error.message).toContain("'toolset.mcp_toolset.server_address'");
    expect(error.message).toContain("'toolset.mcp_toolset.serverAddress'");
    expect(error.param).toBe('toolset.mcp_toolset.serverAddress');
    expect(error.details).toEqual({
      fields: ['toolset.mcp_toolset.server_address', 'toolset.mcp_toolset.serverAddress'],
    });
  });

  it('reads update masks in either spelling, keeping map keys as written', () => {
    const { message } = acceptProtoFieldNames(
      toolsets.update,
      { toolset: {}, update_mask: 'display_name, mcp_toolset.server_address,mcpToolset.custom_headers.x_key,*' },
      { fieldMasks: { updateMask: 'toolset' } },
    );
    expect((message as any).updateMask).toBe('displayName,mcpToolset.serverAddress,mcpToolset.customHeaders.x_key,*');
  });

  it('words errors back in the client’s spelling: the field violation and the message', () => {
    const accepted = acceptProtoFieldNames(toolsets.create, {
      parent: 'p',
      toolset: { mcp_toolset: { tls_config: { ca_certs: [{ cert: 'x' }] } }, displayName: 'D' },
    });
    const field = 'toolset.mcpToolset.tlsConfig.caCerts[0].cert';
    const reworded = accepted.inClientSpelling(
      new BatonError(
        'invalid_field',
        `${field} is not a certificate; see toolset.mcpToolset and toolset.displayName.`,
        {
          param: field,
        },
      ),
    );
    expect(reworded.param).toBe('toolset.mcp_toolset.tls_config.ca_certs[0].cert');
    expect(reworded.message).toBe(
      'toolset.mcp_toolset.tls_config.ca_certs[0].cert is not a certificate; see toolset.mcp_toolset and toolset.displayName.',
    );
    expect(reworded.code).toBe('invalid_field');
    // Nothing renamed: the very same error.
    const plain = acceptProtoFieldNames(toolsets.create, { parent: 'p', toolset: {} });
    const error = new BatonError('invalid_field', 'x', { param: 'toolset.displayName' });
    expect(plain.inClientSpelling(error)).toBe(error);
  });

  it('keeps `__proto__` an ordinary (unknown) field and follows zod schemas and JSON Schemas alike', () => {
    const body = JSON.parse('{"parent":"p","toolset":{"__proto__":{"polluted":true},"display_name":"D"}}');
    const { message } = acceptProtoFieldNames(toolsets.create, body) as { message: any };
    expect(Object.getPrototypeOf(message.toolset)).toBe(Object.prototype);
    expect(Object.hasOwn(message.toolset, '__proto__')).toBe(true);
    expect(({} as any).polluted).toBeUndefined();
    expect(message.toolset.displayName).toBe('D');

    const inputSchema = z.toJSONSchema(z.strictObject({ outer_field: z.strictObject({ innerField: z.string() }) }));
    expect(acceptProtoFieldNames(inputSchema, { outer_field: { inner_field: 'x' } }).message).toEqual({
      outer_field: { innerField: 'x' },
    });
  });
});
