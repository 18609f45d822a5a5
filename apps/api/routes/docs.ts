import type { FastifyInstance } from 'fastify';
import { openApiDocument } from '../openapi/document.js';
import { DOCS_PAGE } from '../openapi/page.js';
import { VERSION } from '../version.js';

/** GET /openapi.json (OpenAPI 3.1, built from the route catalog) and GET /docs (a page that renders it). */
export function docsRoutes(app: FastifyInstance): void {
  const doc = openApiDocument(VERSION);
  app.get('/openapi.json', async () => doc);
  app.get('/docs', async (_req, reply) => reply.type('text/html; charset=utf-8').send(DOCS_PAGE));
}
