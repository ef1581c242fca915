import { BatonError } from '../../domain/errors/baton-error.ts';
import type { InputItem } from '../../engine/index.ts';

/**
 * Compaction (`POST /v1/responses/compact`): the user's messages are kept as they are, and
 * everything else — assistant text, tool calls and their outputs — is condensed into one opaque
 * `compaction` item. Sent back as input, that item becomes one assistant message recalling the
 * condensed part, so a long transcript costs a fraction of its tokens and stays valid (no call
 * without its output can survive compaction).
 *
 * The content is the client's own transcript, so it is encoded, not encrypted: a versioned
 * prefix and base64url JSON. A tampered item can only change what the client itself tells the model.
 */

const PREFIX = 'baton.compaction.v1.';
const MAX_LINE = 2_000;

interface CompactionPayload {
  /** Lines recalling the condensed items, oldest first. */
  lines: string[];
}

export function encodeCompaction(lines: string[]): string {
  const payload: CompactionPayload = { lines };
  return PREFIX + Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

/** Decodes a compaction item into the input it stands for; a malformed one is a 400 naming it. */
export function decodeCompaction(encrypted: string, param: string): InputItem[] {
  const bad = () =>
    new BatonError(
      'invalid_compaction',
      `${param} is not a compaction produced by this server: send back the compaction item exactly as POST /v1/responses/compact returned it.`,
      {
        param,
      },
    );
  if (!encrypted.startsWith(PREFIX)) throw bad();
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(encrypted.slice(PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  const lines = (payload as Partial<CompactionPayload> | null)?.lines;
  if (!Array.isArray(lines) || !lines.every((line) => typeof line === 'string')) throw bad();
  if (lines.length === 0) return [];
  return [
    {
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: `Summary of the earlier part of this conversation:\n${lines.join('\n')}` }],
    },
  ];
}

function clip(text: string): string {
  return text.length <= MAX_LINE ? text : `${text.slice(0, MAX_LINE)}…`;
}

/** One line per condensed item. */
export function compactionLine(item: InputItem): string | null {
  switch (item.type) {
    case 'reasoning':
      // Reasoning is the model's own, bound to it: a summary of the conversation leaves it out.
      return null;
    case 'message': {
      const text = item.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join(' ');
      return item.role === 'user' ? null : clip(`${item.role === 'system' ? 'Instruction' : 'Assistant'}: ${text}`);
    }
    case 'function_call':
      return clip(`Called ${item.name}(${item.arguments}) [${item.callId}]`);
    case 'function_call_output': {
      const output = item.output.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join(' ');
      return clip(`Result of ${item.callId}${item.isError ? ' (error)' : ''}: ${output}`);
    }
  }
}
