import http from 'node:http';

/**
 * The fetch the hook gives its API client: node:http, for the few plain requests a hook run makes.
 * Node's global fetch (undici) loads its module and compiles its HTTP parser's WebAssembly on the
 * first request: a process that made one request took 232 ms with fetch and 116 ms with node:http
 * (2026-12-07, 2-core VM), and the hook runs on every turn of an agent. Only what the client reads
 * is answered: status, headers, the body as text. Failures look like fetch's (`cause` carries
 * the network code; an abort rejects with the signal's reason), so the client words them the same.
 */
export const httpFetch = (async (input: string | URL, init: RequestInit = {}) => {
  const url = new URL(String(input));
  const transport = url.protocol === 'https:' ? await import('node:https') : http;
  const signal = init.signal ?? undefined;
  return new Promise<Response>((resolve, reject) => {
    const fail = (err: Error) => reject(signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: err }));
    const req = transport.request(url, { method: init.method ?? 'GET', headers: init.headers as Record<string, string>, signal }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('error', fail);
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        const status = res.statusCode ?? 0;
        resolve({
          ok: status >= 200 && status < 300,
          status,
          headers: { get: (name: string) => [res.headers[name.toLowerCase()] ?? null].flat()[0] ?? null },
          text: async () => text,
          json: async () => JSON.parse(text),
        } as unknown as Response);
      });
    });
    req.on('error', fail);
    if (init.body !== undefined && init.body !== null && typeof init.body !== 'string') req.destroy(new Error('httpFetch sends string bodies only'));
    else req.end(init.body ?? undefined);
  });
}) as typeof fetch;
