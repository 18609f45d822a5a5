import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_PAGE } from '../apps/api/openapi/page.js';
import { getJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';

let m: TestMemloom;

beforeAll(async () => {
  m = await startTestMemloom({ env: { MEMLOOM_API_KEYS: 'k-open:acme' } });
});
afterAll(async () => m?.close());

/** Fastify's `:id` → OpenAPI's `{id}`; HEAD routes (added for every GET) and Bull Board's own sub-routes are not API routes. */
function registered(): Set<string> {
  const out = new Set<string>();
  for (const r of m.app!.routeTable) {
    if (r.method === 'HEAD' || r.method === 'OPTIONS') continue;
    const path = r.url.replace(/:([A-Za-z_]+)/g, '{$1}').replace(/(.)\/$/, '$1');
    if (path.startsWith('/admin/queues/')) continue;
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

  it('/docs is a self-contained page that renders the document (no external script or style)', async () => {
    const res = await fetch(`${m.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const html = await res.text();
    expect(html).toContain("fetch('/openapi.json')");
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\//);
  });

  it('the page\u2019s script renders one entry per operation of the served document', async () => {
    const { body } = await getJson(`${m.url}/openapi.json`);
    const script = DOCS_PAGE.split('<script>')[1]?.split('</script>')[0] ?? '';
    const els: Record<string, { innerHTML: string; textContent: string }> = {
      intro: { innerHTML: '', textContent: '' },
      ops: { innerHTML: '', textContent: '' },
    };
    // The page's own code, run with the two DOM calls it makes and a fetch that answers the document.
    new Function('document', 'fetch', script)({ getElementById: (id: string) => els[id] }, async () => ({ json: async () => body }));
    await waitFor(() => els.ops?.innerHTML);
    const operations = Object.values(body.paths as Record<string, object>).reduce((n, ops) => n + Object.keys(ops).length, 0);
    expect(els.ops?.innerHTML.match(/<details>/g)).toHaveLength(operations);
    expect(els.ops?.innerHTML).toContain('<code>/v1/recall</code>');
    expect(els.intro?.textContent).toBe('');
  });

  it('the API itself still needs the key', async () => {
    expect((await getJson(`${m.url}/v1/stats`)).status).toBe(401);
  });
});
