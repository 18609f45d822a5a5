import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { fileURLToPath } from 'node:url';

/** The console's page, and the prefix of its scripts and style (apps/api/auth.ts keeps both public: they hold no data). */
export const CONSOLE_PATH = '/';
export const CONSOLE_ASSETS = '/console/';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * GET / (the console, apps/console/index.html) and GET /console/<file> (its ES modules and CSS).
 * The files are read once at start into a fixed table, so no request names a path on disk. The
 * page holds no data: everything it shows comes from /v1 with the key the user enters.
 */
export function consoleRoutes(app: FastifyInstance): void {
  // apps/console beside apps/api: the sources, or dist/server/apps/console in the compiled build (scripts/build.mjs copies it).
  const dir = fileURLToPath(new URL('../../console/', import.meta.url));
  const files = new Map<string, { body: Buffer; type: string }>();
  for (const name of readdirSync(dir)) {
    const type = TYPES[path.extname(name)];
    if (type) files.set(name, { body: readFileSync(path.join(dir, name)), type });
  }
  const send = (name: string) => files.get(name);
  app.get(CONSOLE_PATH, async (_req, reply) => {
    const page = send('index.html');
    return reply
      .type(page?.type ?? 'text/html')
      .header('cache-control', 'no-cache')
      .send(page?.body ?? '');
  });
  app.get<{ Params: { file: string } }>(`${CONSOLE_ASSETS}:file`, async (req, reply) => {
    const file = req.params.file === 'index.html' ? undefined : send(req.params.file);
    if (!file) return reply.status(404).send({ error: { code: 'NOT_FOUND', message: `No console file ${req.params.file}` } });
    return reply.type(file.type).header('cache-control', 'no-cache').send(file.body);
  });
}
