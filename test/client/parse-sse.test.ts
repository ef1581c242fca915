import { parseSse, SseDecoder, type SseMessage } from '@baton/client';
import { describe, expect, it } from 'vitest';

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function collect(chunks: string[]): Promise<SseMessage[]> {
  const messages: SseMessage[] = [];
  for await (const message of parseSse(streamOf(chunks))) messages.push(message);
  return messages;
}

describe('parseSse', () => {
  it('reads events split anywhere across chunks, with CRLF, LF or CR line ends', async () => {
    const text = 'event: message.delta\r\ndata: {"a":1}\r\n\r\nevent: done\ndata: x\n\ndata: lone\r\r';
    const whole = await collect([text]);
    // Every split point, including between the CR and the LF of a pair.
    for (let cut = 1; cut < text.length; cut++)
      expect(await collect([text.slice(0, cut), text.slice(cut)])).toEqual(whole);
    expect(whole).toEqual([
      { event: 'message.delta', data: '{"a":1}', id: undefined, retry: undefined },
      { event: 'done', data: 'x', id: undefined, retry: undefined },
      { event: 'message', data: 'lone', id: undefined, retry: undefined },
    ]);
  });

  it('joins data lines, skips comments, keeps the last id, reads retry, drops an unfinished frame', async () => {
    const messages = await collect([
      ': keep-alive\n',
      'id: 7\nretry: 1500\ndata: one\ndata:two\n\n',
      'event: tool_call.resolved\ndata: {}\n\n',
      'data: cut off',
    ]);
    expect(messages).toEqual([
      { event: 'message', data: 'one\ntwo', id: '7', retry: 1500 },
      { event: 'tool_call.resolved', data: '{}', id: '7', retry: undefined },
    ]);
  });

  it('decodes UTF-8 split between chunks', async () => {
    const bytes = new TextEncoder().encode('data: café ☕\n\n');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const byte of bytes) controller.enqueue(Uint8Array.of(byte));
        controller.close();
      },
    });
    const messages: SseMessage[] = [];
    for await (const message of parseSse(stream)) messages.push(message);
    expect(messages.map((message) => message.data)).toEqual(['café ☕']);
  });

  it('ignores frames with no data and unknown fields', () => {
    const decoder = new SseDecoder();
    expect(decoder.push('event: ping\n\nfoo: bar\ndata: [DONE]\n\n')).toEqual([
      { event: 'message', data: '[DONE]', id: undefined, retry: undefined },
    ]);
  });
});
