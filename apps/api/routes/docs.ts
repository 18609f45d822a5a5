import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { openApiDocument } from '../openapi/document.js';
import { VERSION } from '../version.js';

/** Where the interactive reference answers; its assets are under it (apps/api/auth.ts keeps them public). */
export const DOCS_PATH = '/docs';

/**
 * GET /openapi.json (OpenAPI 3.1, built from the route catalog) and GET /docs, Swagger UI over it:
 * its scripts and styles come from the installed package (no CDN, so it works offline), the
 * validator badge is off (it would call an outside service), and "Try it out" calls this instance
 * (`servers: [{url: '/'}]`) with the key given under "Authorize", or the one the console holds.
 */
export async function docsRoutes(app: FastifyInstance): Promise<void> {
  const doc = openApiDocument(VERSION);
  app.get('/openapi.json', async () => doc);
  await app.register(fastifySwagger, { mode: 'static', specification: { document: doc as never } });
  await app.register(fastifySwaggerUi, {
    routePrefix: DOCS_PATH,
    validatorUrl: false,
    theme: { title: 'memloom API reference' },
    uiConfig: {
      deepLinking: true,
      // Without the top bar: its box loads any URL, and this page is about this instance's API.
      layout: 'BaseLayout',
      persistAuthorization: false,
      tryItOutEnabled: true,
      // Serialized into the page's script, where `ui` is Swagger UI's instance: the console keeps
      // the key in sessionStorage (apps/console/api.js), so a signed-in user tries requests at once.
      onComplete: function preauthorize() {
        const key = window.sessionStorage.getItem('memloom.key');
        if (key) ui.preauthorizeApiKey('bearer', key);
      },
    } as never,
  });
}

// The page's globals, for the type checker only (this file's lib has no DOM).
declare const window: { sessionStorage: { getItem(key: string): string | null } };
declare const ui: { preauthorizeApiKey(name: string, key: string): void };
