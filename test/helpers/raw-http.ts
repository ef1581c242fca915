import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** The body parsed as JSON, or its text when it is not JSON. */
  body: any;
}

/**
 * Sends `text` as it is on a fresh TCP connection and reads one HTTP response: for requests no
 * HTTP client will send (a malformed URL, oversized header fields, a bad request line).
 */
export function rawRequest(url: string, text: string | Buffer): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(text));
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = () => {
      if (settled) return;
      const response = parseResponse(Buffer.concat(chunks));
      if (!response) return;
      settled = true;
      socket.destroy();
      resolve(response);
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      finish();
    });
    // The server may reset the connection right after answering, while the client still writes.
    socket.on('error', (error) => {
      finish();
      if (!settled) reject(error);
    });
    socket.on('close', () => {
      finish();
      if (!settled) reject(new Error(`No complete response; got ${JSON.stringify(Buffer.concat(chunks).toString())}`));
    });
  });
}

function parseResponse(data: Buffer): RawResponse | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine, ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  const bodyBytes = data.subarray(end + 4);
  if (bodyBytes.length < length) return undefined;
  const text = bodyBytes.subarray(0, length).toString('utf8');
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: kept as text.
  }
  return { status: Number(statusLine?.split(' ')[1]), headers, body };
}

/** A request as text: the request line, `headers` and `Host`/`Connection: close`, then `body`. */
export function requestText(method: string, target: string, headers: Record<string, string> = {}, body = ''): string {
  const lines = [`${method} ${target} HTTP/1.1`, 'Host: localhost', 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body !== '' && headers['Content-Length'] === undefined) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}
