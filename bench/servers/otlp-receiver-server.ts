import { OtlpReceiver } from '../../test/helpers/otlp-receiver.ts';

/**
 * The OTLP/HTTP receiver of the telemetry phase (bench/telemetry.ts), in a process of its own so
 * decoding spans takes no time from the load generator or from Baton: it decodes every export
 * request (protobuf) and counts the spans, keeping none. IPC `stats` → `{ requests, spans }`.
 */
const receiver = await new OtlpReceiver(false).start();

process.on('message', (message: { id: number; cmd: string }) => {
  if (message.cmd === 'stats')
    process.send?.({ id: message.id, result: { requests: receiver.requests, spans: receiver.received } });
  else process.send?.({ id: message.id, error: `unknown command ${message.cmd}` });
});
process.on('SIGTERM', () => void receiver.close().then(() => process.exit(0)));
process.send?.({ type: 'ready', url: receiver.url, pid: process.pid });
