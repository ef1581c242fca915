import type { FastifyRequest } from 'fastify';
import { BatonError } from '../domain/errors/baton-error.ts';

/** The longest request target (path and query) Baton reads: 8 KiB, as most proxies allow. */
export const MAX_URL_BYTES = 8 * 1024;

/** The header fields of one request, in all: 16 KiB, Node's own default limit. */
export const MAX_HEADER_BYTES = 16 * 1024;

/**
 * Node's HTTP parser limit (request line and headers together), set above Baton's own two so that
 * up to it a request still reaches Fastify, whose route prefix picks the face's error format for
 * the 414 or 431. Past it Node refuses the request itself (`client-errors.ts`); kept below the
 * 64 KiB a socket read returns at most, so the packet Node fails on usually still starts with the
 * request line, whose path picks the format there too.
 */
export const PARSER_MAX_HEADER_BYTES = 32 * 1024;

/** Refuses a URL or header fields over Baton's limits; runs first, before authentication reads a header. */
export async function checkRequestSize(request: FastifyRequest): Promise<void> {
  const url = request.raw.url ?? '';
  if (url.length > MAX_URL_BYTES) {
    throw new BatonError(
      'uri_too_long',
      `The URL is ${url.length} bytes long; Baton reads at most ${MAX_URL_BYTES}. Send large values in a JSON body instead.`,
    );
  }
  const raw = request.raw.rawHeaders;
  let bytes = 0;
  // name + ": " + value + CRLF, as on the wire (Node decodes header bytes one to one, as latin1).
  for (let index = 0; index + 1 < raw.length; index += 2) bytes += raw[index]!.length + raw[index + 1]!.length + 4;
  if (bytes > MAX_HEADER_BYTES) {
    throw new BatonError(
      'headers_too_large',
      `The request's header fields take ${bytes} bytes; Baton reads at most ${MAX_HEADER_BYTES}. Send fewer or shorter headers.`,
    );
  }
}
