import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../src/db/pool.js';
import { insertMemories, type MemoryInsert } from '../src/db/sql/memories-write.js';
import { addProvenance } from '../src/db/sql/provenance.js';
import { startRun } from '../src/db/sql/runs.js';
import { contentHash, ftsDocument, normalizeText } from '../src/domain/text.js';
import { dream, type DreamResult } from '../workers/dream/handler.js';
import { enqueueDueDreams } from '../workers/maintenance/dream-triggers.js';
import { startTestMemloom, type TestMemloom } from './support/memloom.js';
import { ingest, runStage, TENANT } from './support/pipeline.js';

/**
 * Dream on a large user (issue 19): a run takes at most DREAM_RUN_MAX new memories in batches of
 * DREAM_BATCH (one write transaction each), resumes where it stopped, and ends where dreaming
 * everything at once would: one active memory per statement, every near-duplicate merged into it.
 * Asserted on counts and batches, never on time.
 */
let m: TestMemloom;
const BATCH = 20;
const RUN_MAX = 100;
const TOPICS = 60;
const VARIANTS = 5;
const rows = <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
  withTenant(m.deps.db, TENANT, async (tx) => (await tx.query(text, params)).rows as T[]);

/** Deterministic pseudo-words: distinct statements share no words, so only variants of one are alike. */
function words(seed: number, n: number): string[] {
  let x = seed * 7919 + 17;
  const next = () => (x = (x * 48271) % 2147483647);
  return Array.from({ length: n }, () => Array.from({ length: 7 }, () => 'bcdfghjklmnprstvz'[next() % 17]).join('') + 'aeiou'[next() % 5]);
}

/** The same statement written five ways (inner punctuation; distinct content hashes): near-duplicates that must merge. */
function variants(topic: number): string[] {
  const w = words(topic + 1, 6);
  const joined = (i: number, sep: string) => `${w.slice(0, i).join(' ')}${sep} ${w.slice(i).join(' ')}`;
  return [w.join(' '), joined(1, ','), joined(2, ';'), joined(3, ' -'), joined(4, ':')];
}

async function seed(userId: string, texts: string[], prefix: string): Promise<void> {
  const eventIds = await ingest(
    m.deps,
    texts.map((t, i) => ({ user_id: userId, session_id: `${prefix}-${i}`, content: `evidence: ${t}` })),
  );
  const { vectors } = await m.deps.providers.embeddings.embed(texts, 'document');
  const { model, dimensions } = m.deps.providers.embeddings;
  await withTenant(m.deps.db, TENANT, async (tx) => {
    const runId = await startRun(tx, { stage: 'test', jobId: undefined });
    const inserts: MemoryInsert[] = texts.map((t, i) => ({
      kind: 'fact',
      content: t,
      content_hash: contentHash(normalizeText(t)),
      fts_doc: ftsDocument(t),
      vector: vectors[i]!,
      importance: 5,
      confidence: 0.7,
      event_time: null,
      time_precision: null,
      occurred_at: new Date().toISOString(),
      subject_entity_id: null,
      dataset: 'default',
      user_id: userId,
      agent_id: null,
      session_id: `${prefix}-${i}`,
      source_event_ids: [eventIds[i]!],
      version: 1,
    }));
    const ids = await insertMemories(tx, inserts, model, dimensions, runId);
    await addProvenance(
      tx,
      'memory',
      ids.map((r, i) => ({ objectId: r.id, eventIds: [eventIds[i]!] })),
      runId,
    );
  });
}

const runDream = async (userId: string) => (await runStage(m.deps, dream, { tenantId: TENANT, userId, trigger: 'manual' })).result as DreamResult;

beforeAll(async () => {
  m = await startTestMemloom({
    roles: { workers: [] },
    env: { DREAM_BATCH: String(BATCH), DREAM_RUN_MAX: String(RUN_MAX), DREAM_MEMORIES: '1000000', DREAM_SESSIONS: '1000000' },
  });
  // Variants interleaved across topics, as a long conversation repeats itself over time.
  const texts: string[] = [];
  for (let v = 0; v < VARIANTS; v++) for (let t = 0; t < TOPICS; t++) texts.push(variants(t)[v]!);
  await seed('big', texts, 'big');
}, 300_000);
afterAll(async () => m?.close());

describe('dream on a large user', () => {
  it('works in bounded batches, leaves a backlog at the run cap, and resumes where it stopped', async () => {
    const total = TOPICS * VARIANTS;
    const runs: DreamResult[] = [];
    for (let r = 0; r < 10; r++) {
      runs.push(await runDream('big'));
      if (!runs[runs.length - 1]!.backlog) break;
      // A backlog makes the next trigger check queue a dream at once, whatever the thresholds.
      const [state] = await rows<{ dream_backlog: boolean }>(`SELECT dream_backlog FROM user_state WHERE user_id = 'big'`);
      expect(state!.dream_backlog).toBe(true);
    }
    // Each run looked at no more than its cap, in write batches of at most DREAM_BATCH new memories.
    for (const r of runs) {
      expect(r.memories).toBeLessThanOrEqual(RUN_MAX);
      expect(r.batches).toBeGreaterThanOrEqual(Math.ceil(r.memories / BATCH));
    }
    expect(runs.slice(0, -1).every((r) => r.backlog && r.memories === RUN_MAX)).toBe(true);
    // Every memory looked at once, however many runs it took (superseded ones are skipped).
    expect(runs.reduce((n, r) => n + r.memories, 0)).toBeLessThanOrEqual(total);
    expect(runs.length).toBeGreaterThanOrEqual(2);

    // The end state of dreaming everything at once: one active memory per statement.
    const [counts] = await rows<{ active: number; superseded: number }>(
      `SELECT count(*) FILTER (WHERE status = 'active')::int AS active, count(*) FILTER (WHERE status = 'superseded')::int AS superseded FROM memories WHERE user_id = 'big'`,
    );
    expect(counts).toEqual({ active: TOPICS, superseded: total - TOPICS });
    expect(runs.reduce((n, r) => n + r.merged, 0)).toBe(total - TOPICS);
    // Each survivor carries the evidence of its five variants: five sessions, a crystal.
    const [crystals] = await rows<{ n: number }>(`SELECT count(*)::int AS n FROM memories WHERE user_id = 'big' AND status = 'active' AND is_crystal`);
    expect(crystals!.n).toBe(TOPICS);
  }, 300_000);

  it('costs what is new: a second run looks at nothing, a later one only at the memories added since', async () => {
    const again = await runDream('big');
    expect(again).toMatchObject({ memories: 0, merged: 0, links: 0, crystals: 0, backlog: false });
    expect(await enqueueDueDreams(m.deps)).toEqual({ enqueued: 0 });

    await seed('big', variants(TOPICS + 1), 'late');
    const later = await runDream('big');
    expect(later.memories).toBeLessThanOrEqual(VARIANTS);
    expect(later.merged).toBe(VARIANTS - 1);
    expect(later.backlog).toBe(false);
  }, 120_000);
});
