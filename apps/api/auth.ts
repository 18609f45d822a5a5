import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../src/config.js';
import { MemloomError } from '../../src/errors.js';
import { BULL_BOARD_PATH } from './bull-board.js';
import { CONSOLE_ASSETS, CONSOLE_PATH } from './routes/console.js';
import { DOCS_PATH } from './routes/docs.js';
import { DOCTOR_PATH } from './routes/doctor.js';

declare module 'fastify' {
  interface FastifyRequest {
    tenantId: string;
  }
}

const PUBLIC_PATHS = new Set(['/healthz', '/readyz', '/openapi.json', DOCS_PATH, CONSOLE_PATH]);

/** Pages and their static assets hold no data (the data comes from /v1 with the user's key): no key. */
const PUBLIC_PREFIXES = [`${DOCS_PATH}/`, CONSOLE_ASSETS];

/**
 * Who may see a path. Operator surfaces (Bull Board, /metrics, the doctor) show every tenant's
 * jobs, figures or checks, so a tenant's key never opens them: they need a key of
 * MEMLOOM_ADMIN_KEYS once any key is configured (docs/guardrails.md, "Guarantees").
 */
export function accessOf(path: string): 'public' | 'admin' | 'tenant' {
  if (PUBLIC_PATHS.has(path) || PUBLIC_PREFIXES.some((prefix) => path.startsWith(prefix))) return 'public';
  if (path === '/metrics' || path === DOCTOR_PATH || path === BULL_BOARD_PATH || path.startsWith(`${BULL_BOARD_PATH}/`)) return 'admin';
  return 'tenant';
}

function presentedKey(req: FastifyRequest): string | undefined {
  const header = req.headers.authorization;
  if (typeof header === 'string' && header.startsWith('Bearer ')) return header.slice(7).trim() || undefined;
  const key = req.headers['x-api-key'];
  return typeof key === 'string' && key !== '' ? key : undefined;
}

function sameKey(candidate: string, key: string): boolean {
  const a = Buffer.from(candidate);
  const b = Buffer.from(key);
  return a.length === b.length && timingSafeEqual(a, b);
}

const unauthorized = () =>
  new MemloomError('UNAUTHORIZED', 'A valid API key is required (Authorization: Bearer <key> or x-api-key).', { kind: 'unauthorized' });

/**
 * The tenant of a request, from MEMLOOM_API_KEYS; with no key configured every request is the
 * tenant `default` (the API then binds to loopback only). Throws 401 without a valid key and 403
 * for a tenant's key on an operator surface.
 */
export function resolveTenant(config: Config, req: FastifyRequest): string {
  const access = accessOf(req.url.split('?')[0] ?? '');
  const anyKeys = config.MEMLOOM_API_KEYS.size > 0 || config.MEMLOOM_ADMIN_KEYS.length > 0;
  if (access === 'public' || !anyKeys) return 'default';
  const key = presentedKey(req);
  if (!key) throw unauthorized();
  if (access === 'admin') {
    if (config.MEMLOOM_ADMIN_KEYS.some((candidate) => sameKey(candidate, key))) return 'default';
    for (const candidate of config.MEMLOOM_API_KEYS.keys()) {
      if (sameKey(candidate, key))
        throw new MemloomError('FORBIDDEN', 'This surface shows every tenant: it needs a key of MEMLOOM_ADMIN_KEYS.', { kind: 'forbidden' });
    }
    throw unauthorized();
  }
  if (config.MEMLOOM_API_KEYS.size === 0) return 'default'; // admin keys only: tenant routes stay open, loopback only
  for (const [candidate, tenant] of config.MEMLOOM_API_KEYS) if (sameKey(candidate, key)) return tenant;
  throw unauthorized();
}
