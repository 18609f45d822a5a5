import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, startTestMemloom, type TestMemloom } from './support/memloom.js';

let m: TestMemloom;

beforeAll(async () => {
  m = await startTestMemloom({ env: { MEMLOOM_API_KEYS: 'k-open:acme' } });
});
afterAll(async () => m?.close());

/** Fastify's `:id` → OpenAPI's `{id}`; HEAD routes (added for every GET) and the own sub-routes of Bull Board and Swagger UI are not API routes. */
function registered(): Set<string> {
  const out = new Set<string>();
  for (const r of m.app!.routeTable) {
    if (r.method === 'HEAD' || r.method === 'OPTIONS') continue;
    const path = r.url.replace(/:([A-Za-z_]+)/g, '{$1}').replace(/(.)\/$/, '$1');
    if (path.startsWith('/admin/queues/') || path.startsWith('/docs/')) continue;
    out.add(`${r.method} ${path}`);
  }
  return out;
}

describe('OpenAPI document', () => {
  it('is served without a key and validates as OpenAPI 3.1', async () => {
    const res = await getJson(`${m.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const result = await new Validator().validate(res.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists exactly the routes Fastify registered', async () => {
    const { body } = await getJson(`${m.url}/openapi.json`);
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries(body.paths as Record<string, Record<string, unknown>>))
      for (const method of Object.keys(ops)) documented.add(`${method.toUpperCase()} ${path}`);
    const routes = registered();
    expect(routes.size).toBeGreaterThan(20);
    expect([...routes].filter((r) => !documented.has(r)).sort()).toEqual([]);
    expect([...documented].filter((r) => !routes.has(r)).sort()).toEqual([]);
  });

  it('describes request bodies and parameters from the zod schemas the routes parse with', async () => {
    const { body } = await getJson(`${m.url}/openapi.json`);
    const recall = body.paths['/v1/recall'].post.requestBody.content['application/json'].schema;
    expect(recall.required).toEqual(['query']);
    expect(recall.properties.mode.enum).toEqual(['memories', 'chunks', 'graph', 'auto']);
    expect(recall.additionalProperties).toBe(false);
    const exportParams = body.paths['/v1/export'].get.parameters.map((p: { name: string }) => p.name);
    expect(exportParams).toEqual(['format', 'user_id', 'dataset', 'vectors']);
    const events = body.paths['/v1/events'].post;
    expect(events.parameters.map((p: { name: string; required: boolean }) => [p.name, p.required])).toEqual([
      ['wait', false],
      ['timeout_ms', false],
    ]);
    expect(events.parameters[0].schema.enum).toEqual(['searchable']);
    expect(events.parameters[1].schema).toMatchObject({ minimum: 0, maximum: 30_000, default: 5_000 });
    expect(events.responses['202'].content['application/json'].schema.properties.searchable.type).toBe('boolean');
    const memoryGet = body.paths['/v1/memories/{id}'].get;
    expect(memoryGet.parameters).toEqual([expect.objectContaining({ name: 'id', in: 'path', required: true })]);
    expect(body.paths['/healthz'].get.security).toEqual([]);
    expect(body.paths['/v1/stats'].get.security).toBeUndefined();
  });

  it('/docs is Swagger UI over the served document, its assets served by memloom (no other host), without a key', async () => {
    const res = await fetch(`${m.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const html = await res.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((x) => x[1] ?? '');
    expect(assets).toContain('/docs/static/swagger-ui-bundle.js');
    for (const asset of assets) {
      expect(asset.startsWith('/docs/')).toBe(true);
      const res = await fetch(`${m.url}${asset}`);
      await res.arrayBuffer();
      expect(res.status, asset).toBe(200);
    }
    const init = await (await fetch(`${m.url}/docs/static/swagger-initializer.js`)).text();
    expect(init).toContain('validatorUrl: null');
    const served = await getJson(`${m.url}/docs/json`);
    expect(served.body).toEqual((await getJson(`${m.url}/openapi.json`)).body);
  });

  it('the API itself still needs the key', async () => {
    expect((await getJson(`${m.url}/v1/stats`)).status).toBe(401);
  });
});
