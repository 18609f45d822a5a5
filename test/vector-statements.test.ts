import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../src/db/pool.js';
import { putCachedVectors, getCachedVectors } from '../src/db/sql/embedding-cache.js';
import { resolveEntities } from '../src/db/sql/entities.js';
import { nearestMemoriesBatch } from '../src/db/sql/memories-write.js';
import { MAX_VECTORS_PER_STATEMENT } from '../src/db/sql/vector.js';
import { startTestMemloom, type TestMemloom } from './support/memloom.js';
import { TENANT } from './support/pipeline.js';

/**
 * Writers and readers that take a list of vectors cut it to statements PostgreSQL accepts: a list
 * longer than MAX_VECTORS_PER_STATEMENT used to throw `vectorList: 12000 vectors in one statement`
 * and fail the job of a large event for good.
 */
describe('more vectors than one statement takes', () => {
  let m: TestMemloom;
  beforeAll(async () => {
    m = await startTestMemloom({ roles: { api: false, workers: [] } });
  });
  afterAll(async () => m?.close());

  const n = MAX_VECTORS_PER_STATEMENT + 123;
  const vector = (i: number) => {
    const v = new Array<number>(m.deps.providers.embeddings.dimensions).fill(0);
    v[i % v.length] = 1;
    v[(i * 7 + 3) % v.length] = 0.5;
    return v;
  };

  it('resolves and inserts that many entities, ids in input order', async () => {
    const { model, dimensions } = m.deps.providers.embeddings;
    const inputs = Array.from({ length: n }, (_, i) => ({
      name: `Tool ${i}`,
      normalized: `tool ${i}`,
      type: 'tool',
      description: '',
      ftsDoc: `tool ${i}`,
      vector: vector(i),
    }));
    const ids = await withTenant(m.deps.db, TENANT, (tx) => resolveEntities(tx, { dataset: 'default', userId: null }, inputs, model, dimensions, 2));
    expect(new Set(ids).size).toBe(n);
    const again = await withTenant(m.deps.db, TENANT, (tx) => resolveEntities(tx, { dataset: 'default', userId: null }, inputs, model, dimensions, 2));
    expect(again).toEqual(ids);
  });

  it('finds neighbours for that many query vectors, one list per query', async () => {
    const queries = Array.from({ length: n }, (_, i) => ({ vector: vector(i), hash: `h${i}` }));
    const found = await withTenant(m.deps.db, TENANT, (tx) =>
      nearestMemoriesBatch(tx, { userId: 'nobody' }, queries, { model: m.deps.providers.embeddings.model, dims: m.deps.providers.embeddings.dimensions }, 5),
    );
    expect(found).toHaveLength(n);
  });

  it('caches that many vectors', async () => {
    const entries = Array.from({ length: n }, (_, i) => ({ hash: `cache-${i}`, vector: vector(i) }));
    await withTenant(m.deps.db, TENANT, (tx) => putCachedVectors(tx, 'test-model', entries));
    const cached = await withTenant(m.deps.db, TENANT, (tx) =>
      getCachedVectors(
        tx,
        'test-model',
        entries.map((e) => e.hash),
      ),
    );
    expect(cached.size).toBe(n);
  });

  it('answers a cached vector only at the dimensions asked, and replaces an entry of other dimensions', async () => {
    const get = (dims: number) => withTenant(m.deps.db, TENANT, (tx) => getCachedVectors(tx, 'dims-model', ['t'], dims));
    const put = (vector: number[]) => withTenant(m.deps.db, TENANT, (tx) => putCachedVectors(tx, 'dims-model', [{ hash: 't', vector }]));
    await put([1, 0, 0]);
    expect((await get(3)).get('t')).toEqual([1, 0, 0]);
    // The model's dimensions changed (EMBEDDINGS_DIMENSIONS): the old vector is not an answer.
    expect((await get(4)).size).toBe(0);
    await put([0, 1, 0, 0]);
    expect((await get(4)).get('t')).toEqual([0, 1, 0, 0]);
    expect((await get(3)).size).toBe(0);
  });
});
