import { connect } from 'node:net';

export interface RawRequest {
  method: string;
  /** The request target as bytes on the wire: may hold invalid UTF-8, control characters, anything. */
  target: Buffer | string;
  headers?: Array<[string, Buffer | string]>;
  body?: Buffer | string;
}

export interface RawResponse {
  status: number;
  head: string;
  body: string;
}

/**
 * One HTTP/1.1 request written byte for byte on a socket. fetch and node:http refuse to send what a
 * hostile client would (control characters in headers, invalid UTF-8 in the target), so tests of
 * the server's boundary write the bytes themselves. Status 0: the server closed without answering.
 */
export function rawRequest(port: number, req: RawRequest, timeoutMs = 30_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms for ${req.method} ${String(req.target).slice(0, 80)}`));
    }, timeoutMs);
    socket.once('error', (err) => {
      clearTimeout(timer);
      // A reset after the answer was read (the server closes on a bad request) is not a failure.
      if (chunks.length > 0) resolve(parse(Buffer.concat(chunks)));
      else reject(err);
    });
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.once('end', () => {
      clearTimeout(timer);
      resolve(parse(Buffer.concat(chunks)));
    });
    socket.once('connect', () => {
      const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body);
      const lines: Buffer[] = [
        Buffer.concat([Buffer.from(`${req.method} `), Buffer.isBuffer(req.target) ? req.target : Buffer.from(req.target), Buffer.from(' HTTP/1.1\r\n')]),
      ];
      lines.push(Buffer.from(`host: 127.0.0.1:${port}\r\nconnection: close\r\n`));
      for (const [name, value] of req.headers ?? [])
        lines.push(Buffer.concat([Buffer.from(`${name}: `), Buffer.isBuffer(value) ? value : Buffer.from(value), Buffer.from('\r\n')]));
      if (body !== undefined) lines.push(Buffer.from(`content-length: ${body.length}\r\n`));
      lines.push(Buffer.from('\r\n'));
      if (body !== undefined) lines.push(body);
      // Not end(): a half-closed socket makes node's HTTP server drop a request still in flight.
      socket.write(Buffer.concat(lines));
    });
  });
}

function parse(raw: Buffer): RawResponse {
  const text = raw.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  const head = end < 0 ? text : text.slice(0, end);
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(head);
  return { status: match ? Number(match[1]) : 0, head, body: end < 0 ? '' : raw.subarray(end + 4).toString('utf8') };
}
