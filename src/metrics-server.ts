/**
 * GET /metrics (and /healthz) for a process that runs no API role — a `memloom worker` or
 * `memloom scheduler` of a split deployment — on METRICS_PORT, so the job, provider and gate
 * counters of every process can be scraped. Plain node:http: nothing else is served here.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Metrics } from './metrics.js';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** With admin keys configured, /metrics needs one of them, as on the API port. */
function authorized(req: IncomingMessage, adminKeys: readonly string[]): boolean {
  if (adminKeys.length === 0) return true;
  const header = req.headers.authorization;
  const key = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7).trim() : req.headers['x-api-key'];
  if (typeof key !== 'string' || key === '') return false;
  const b = Buffer.from(key);
  return adminKeys.some((k) => {
    const a = Buffer.from(k);
    return a.length === b.length && timingSafeEqual(a, b);
  });
}

export async function startMetricsServer(metrics: Metrics, host: string, port: number, adminKeys: readonly string[] = []): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') {
      res.writeHead(405, { allow: 'GET' }).end();
    } else if (path === '/metrics' && !authorized(req, adminKeys)) {
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end('{"error":{"code":"UNAUTHORIZED","message":"/metrics needs a key of MEMLOOM_ADMIN_KEYS."}}');
    } else if (path === '/metrics') {
      metrics.registry.metrics().then(
        (body) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(body),
        (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${(err as Error).message}\n`),
      );
    } else if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('GET /metrics or /healthz\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as { port: number }).port,
    // Idle keep-alive connections (a scraper's, fetch's) would otherwise hold the close, and so
    // the process's shutdown, until they time out.
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
