import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { BatonError } from '../domain/errors/baton-error.ts';
import { toBatonError } from '../faces/kit/http-errors.ts';
import type { ErrorFormats } from './error-formats.ts';
import { MAX_URL_BYTES, PARSER_MAX_HEADER_BYTES } from './request-limits.ts';

/**
 * Fastify's `frameworkErrors`: a URL it cannot decode, or a path segment over `maxParamLength`,
 * found while routing, so no route's error handler sees it. Rendered in the format of the path.
 */
export function frameworkErrorHandler(formats: ErrorFormats, bodyLimitBytes: number) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const { status, body } = formats.render(request.url, toBatonError(error, bodyLimitBytes));
    void reply.status(status).send(body);
  };
}

/** The request line at the start of a raw packet, if the packet starts there: method and (partial) target. */
const REQUEST_LINE = /^[A-Z]{3,16} ([^ \r\n]*)/;

/**
 * Node's `clientError`: a request its HTTP parser refused before Fastify saw it (header fields
 * over `PARSER_MAX_HEADER_BYTES`, a malformed request line or header, a request not sent in time).
 * The response is written on the socket by hand, in the format of the request's path when the
 * packet that failed still holds the request line (a request over many packets may not: then the
 * native format).
 */
export function clientErrorHandler(formats: ErrorFormats) {
  return (error: ConnectionError, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const packet = rawPacketText(error);
    const line = REQUEST_LINE.exec(packet);
    const target = line?.[1] ?? '';
    const batonError = describe(error.code, line !== null && (!packet.includes('\n') || target.length > MAX_URL_BYTES));
    const { status, body } = formats.render(target, batonError);
    if (socket.writable) {
      const text = JSON.stringify(body);
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
      );
    }
    socket.destroy();
  };
}

function rawPacketText(error: ConnectionError): string {
  const packet: unknown = error.rawPacket;
  return Buffer.isBuffer(packet) ? packet.toString('latin1') : '';
}

function describe(code: string, lineTooLong: boolean): BatonError {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return lineTooLong
      ? new BatonError(
          'uri_too_long',
          `The URL is longer than Baton reads (${MAX_URL_BYTES} bytes). Send large values in a JSON body instead.`,
        )
      : new BatonError(
          'headers_too_large',
          `The request line and header fields are larger than ${PARSER_MAX_HEADER_BYTES} bytes. Send fewer or shorter headers.`,
        );
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new BatonError('request_timeout', 'The request was not received in time. Send it again.');
  return new BatonError(
    'bad_request',
    `The HTTP request is malformed (${code}): check its request line, header fields and body framing.`,
  );
}
