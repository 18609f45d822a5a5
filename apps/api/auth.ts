import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../src/config.js';
import { MemloomError } from '../../src/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    tenantId: string;
  }
}

const PUBLIC_PATHS = new Set(['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs']);

/** Keys from MEMLOOM_API_KEYS; with none configured every request is the tenant `default` (loopback only). */
export function resolveTenant(config: Config, req: FastifyRequest): string {
  if (config.MEMLOOM_API_KEYS.size === 0) return 'default';
  const path = req.url.split('?')[0] ?? '';
  if (PUBLIC_PATHS.has(path)) return 'default';
  const header = req.headers.authorization;
  const key = header?.startsWith('Bearer ') ? header.slice(7).trim() : (req.headers['x-api-key'] as string | undefined);
  if (key) {
    for (const [candidate, tenant] of config.MEMLOOM_API_KEYS) {
      const a = Buffer.from(candidate);
      const b = Buffer.from(key);
      if (a.length === b.length && timingSafeEqual(a, b)) return tenant;
    }
  }
  throw new MemloomError('UNAUTHORIZED', 'A valid API key is required (Authorization: Bearer <key> or x-api-key).', { kind: 'unauthorized' });
}

export function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1' || host.startsWith('127.');
}
