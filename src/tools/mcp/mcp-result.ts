import type { ContentPart } from '../../domain/records.ts';

/** The parts of an MCP `tools/call` result Baton reads (the SDK's type is a wide union). */
export interface McpCallResult {
  content?: readonly McpContent[];
  structuredContent?: unknown;
  isError?: boolean;
}

type McpContent =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'audio'; data: string; mimeType: string }
  | { type: 'resource'; resource: { uri: string; mimeType?: string; text?: string; blob?: string } }
  | { type: 'resource_link'; uri: string; name?: string; description?: string }
  | { type: string; [key: string]: unknown };

/**
 * An MCP tool result as a Baton tool output: text stays text, images stay images, audio and
 * binary resources become files, links and text resources become text. `structuredContent`
 * is the output when the server sent no content blocks (the spec lets it send both, the same data).
 */
export function toToolOutput(result: McpCallResult): { output: ContentPart[]; isError: boolean } {
  const output: ContentPart[] = [];
  for (const block of result.content ?? []) {
    const part = toPart(block);
    if (part) output.push(part);
  }
  if (output.length === 0 && result.structuredContent !== undefined)
    output.push({ type: 'text', text: JSON.stringify(result.structuredContent) });
  if (output.length === 0) output.push({ type: 'text', text: '' });
  return { output, isError: result.isError === true };
}

function toPart(block: McpContent): ContentPart | undefined {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: String(block.text) };
    case 'image':
      return { type: 'image', mediaType: String(block.mimeType), data: String(block.data) };
    case 'audio':
      return { type: 'file', mediaType: String(block.mimeType), data: String(block.data), url: null, filename: null };
    case 'resource': {
      const resource = block.resource as { uri: string; mimeType?: string; text?: string; blob?: string };
      if (typeof resource.text === 'string')
        return { type: 'text', text: `[resource ${resource.uri}]\n${resource.text}` };
      return {
        type: 'file',
        mediaType: resource.mimeType ?? 'application/octet-stream',
        data: resource.blob ?? '',
        url: null,
        filename: resource.uri,
      };
    }
    case 'resource_link':
      return { type: 'text', text: `[resource link] ${String(block.name ?? '')} ${String(block.uri)}`.trim() };
    default:
      return undefined;
  }
}
