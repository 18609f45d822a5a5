import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../src/db/pool.js';
import { startRun } from '../src/db/sql/runs.js';
import { insertMemories, nearestMemoriesBatch, type MemoryInsert } from '../src/db/sql/memories-write.js';
import { contentHash, normalizeText } from '../src/domain/text.js';
import { startTestMemloom, type TestMemloom } from './support/memloom.js';
import { TENANT } from './support/pipeline.js';

/** The neighbours a reconcile pass compares its new units with (src/db/sql/memories-write.ts). */
describe('nearest memories of a user scope', () => {
  let m: TestMemloom;
  beforeAll(async () => {
    m = await startTestMemloom({ roles: { api: false, workers: [] } });
  });
  afterAll(async () => m?.close());

  const texts = ['Alice prefers window seats on long flights', 'Alice works on the billing service', 'Alice moved to Oslo in March'];
  const embed = async (list: string[]) => (await m.deps.providers.embeddings.embed(list, 'document')).vectors;
  const row = (content: string, vector: number[], userId: string | null): MemoryInsert => ({
    kind: 'fact',
    content,
    content_hash: contentHash(normalizeText(content)),
    fts_doc: content,
    vector,
    importance: 5,
    confidence: 0.8,
    event_time: null,
    time_precision: null,
    occurred_at: '2026-11-01T00:00:00.000Z',
    subject_entity_id: null,
    dataset: 'default',
    user_id: userId,
    agent_id: null,
    session_id: null,
    source_event_ids: [],
    version: 1,
  });

  it('returns only the scope’s memories (a user’s, or those of no user), nearest first, plus exact-text matches', async () => {
    const vectors = await embed(texts);
    const { model, dimensions } = m.deps.providers.embeddings;
    await withTenant(m.deps.db, TENANT, async (tx) => {
      const runId = await startRun(tx, { stage: 'extract', jobId: 'neighbours-test' });
      // The same three texts for two users and for no user: only the asked scope may answer.
      const rows = [null, 'nb-alice', 'nb-bob'].flatMap((u) => texts.map((t, i) => row(t, vectors[i] as number[], u)));
      await insertMemories(tx, rows, model, dimensions, runId);
    });
    const [query] = await embed(['Which seats does Alice prefer on flights?']);
    const queries = [
      { vector: query as number[], hash: 'no-such-hash' },
      { vector: vectors[2] as number[], hash: contentHash(normalizeText(texts[1] as string)) },
    ];
    // exactMax 2 puts the three-memory scopes past the exact path: the same answers from the other query.
    for (const [userId, exactMax] of [
      ['nb-alice', undefined],
      [null, undefined],
      ['nb-alice', 2],
      [null, 2],
    ] as const) {
      const found = await withTenant(m.deps.db, TENANT, async (tx) => {
        const ids = (await tx.query<{ id: string }>('SELECT id FROM memories WHERE user_id IS NOT DISTINCT FROM $1', [userId])).rows.map((r) => r.id);
        return { ids, near: await nearestMemoriesBatch(tx, { userId }, queries, { model, dims: dimensions }, 2, exactMax) };
      });
      expect(found.ids).toHaveLength(3);
      const [first, second] = found.near.map((list) => [...list].sort((a, b) => b.similarity - a.similarity));
      // Query 1: the two nearest by vector, the seat preference first; all of this scope.
      expect(first?.map((n) => n.content)).toEqual([texts[0], expect.any(String)]);
      expect(first?.every((n) => found.ids.includes(n.id))).toBe(true);
      // Query 2 (the Oslo vector, the billing text's hash): Oslo itself (similarity 1), and the
      // billing memory as an exact-text match (similarity 1, whatever its vector distance).
      expect(second?.find((n) => n.content === texts[2])?.similarity).toBeCloseTo(1, 5);
      expect(second?.filter((n) => n.content === texts[1]).map((n) => n.similarity)).toContain(1);
      expect(new Set(second?.map((n) => n.content))).toEqual(new Set([texts[1], texts[2]]));
      expect(second?.every((n) => found.ids.includes(n.id))).toBe(true);
    }
  });

  it('answers an empty scope with no neighbours', async () => {
    const [v] = await embed(['Nobody has said anything yet']);
    const near = await withTenant(m.deps.db, TENANT, (tx) =>
      nearestMemoriesBatch(
        tx,
        { userId: 'nb-nobody' },
        [{ vector: v as number[], hash: 'h' }],
        { model: m.deps.providers.embeddings.model, dims: m.deps.providers.embeddings.dimensions },
        2,
      ),
    );
    expect(near).toEqual([[]]);
  });
});
