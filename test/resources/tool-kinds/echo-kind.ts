import { z } from 'zod';
import type { ServerToolKind } from '../../../src/resources/tool-kinds/tool-kind.ts';
import { requireText } from '../../../src/resources/tools/common-rules.ts';

/**
 * A tool kind that exists only in tests, written the way a real one is: `echoTool {name, prefix}`
 * offers one function that answers with `prefix` + its `text` argument. Registering it
 * (`TOOL_KINDS.with(echoKind)`) must be all it takes for Baton to accept, mask, list and run it.
 */
export const echoKind: ServerToolKind = {
  key: 'echoTool',
  collection: 'tools',
  executor: 'server',
  description: 'One of tool_type: answers with its argument (a test kind).',
  schema: z.strictObject({
    name: z.string().optional().describe('Required. The function name.'),
    prefix: z.string().optional(),
  }),
  async validate(_context, member, prefix) {
    requireText(member, 'name', prefix);
    return member;
  },
  displayName: (member) => (typeof member.name === 'string' ? member.name : undefined),
  async definitions({ record, member }) {
    return [
      {
        name: String(member.name),
        description: 'Echoes its text.',
        parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        server: { collection: 'tools', resourceId: record.id },
      },
    ];
  },
  async run({ member, call }) {
    const text = (call.arguments as { text?: unknown }).text;
    return { output: [{ type: 'text', text: `${String(member.prefix ?? '')}${String(text)}` }], isError: false };
  },
};
