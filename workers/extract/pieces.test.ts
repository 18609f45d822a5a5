import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMemloom, type TestMemloom } from '../../test/support/memloom.js';
import { poisonWrites } from '../../test/support/owner-sql.js';
import { ingest, runStage, sql, TENANT, throughEmbed } from '../../test/support/pipeline.js';
import { extract } from './handler.js';
import { PIECE_LIMITS, splitPass } from './pieces.js';
import type { Prepared } from './prepare.js';

const entity = (name: string) => ({ name, normalized: name.toLowerCase(), type: 'concept', description: '', ftsDoc: name, eventIds: ['e1'] });
const memory = (i: number, names: string[]) => ({
  kind: 'fact' as const,
  content: `fact ${i}`,
  hash: `h${i}`,
  ftsDoc: `fact ${i}`,
  importance: 5,
  confidence: 0.8,
  eventTime: null,
  timePrecision: null,
  subject: names[0] ?? null,
  entities: names,
  eventIds: ['e1'],
  occurredAt: '2026-12-01T00:00:00.000Z',
  slot: null,
});

function pass(memories: number, triplets: number, loose: number): Prepared {
  const names = Array.from({ length: memories * 2 + loose }, (_, i) => `N${i}`);
  return {
    entities: names.map(entity),
    memories: Array.from({ length: memories }, (_, i) => memory(i, [`N${2 * i}`, `N${2 * i + 1}`])),
    triplets: Array.from({ length: triplets }, (_, i) => ({
      source: `N${i % names.length}`,
      relation: 'knows',
      target: `N${(i * 7 + 1) % names.length}`,
      description: '',
      eventIds: ['e1'],
      validAt: '2026-12-01T00:00:00.000Z',
    })),
  };
}

const vectorsOf = (p: Prepared) => ({ entities: p.entities.map((_, i) => [i]), memories: p.memories.map((_, i) => [1000 + i]) });

describe('splitPass', () => {
  it('leaves a pass within the limits whole', () => {
    const p = pass(3, 2, 1);
    const pieces = splitPass(p, vectorsOf(p), undefined);
    expect(pieces).toHaveLength(1);
    expect(pieces[0]?.prepared).toBe(p);
  });

  it('cuts a large pass into pieces within the limits: every unit and triplet once, in order, each with the entities it names and their vectors', () => {
    const p = pass(100, 150, 300);
    const decisions = p.memories.map((_, i) => (i % 3 === 0 ? { action: 'ADD' as const } : undefined));
    const pieces = splitPass(p, vectorsOf(p), decisions);
    expect(pieces.length).toBeGreaterThan(5);
    for (const piece of pieces) {
      expect(piece.prepared.memories.length).toBeLessThanOrEqual(PIECE_LIMITS.memories);
      expect(piece.prepared.triplets.length).toBeLessThanOrEqual(PIECE_LIMITS.triplets);
      expect(piece.prepared.entities.length).toBeLessThanOrEqual(PIECE_LIMITS.entities);
      const names = new Set(piece.prepared.entities.map((e) => e.normalized));
      for (const m of piece.prepared.memories) for (const n of m.entities) expect(names.has(n.toLowerCase())).toBe(true);
      for (const t of piece.prepared.triplets) expect([names.has(t.source.toLowerCase()), names.has(t.target.toLowerCase())]).toEqual([true, true]);
      // vectors and decisions travel with their rows
      piece.prepared.entities.forEach((e, i) => expect(piece.vectors.entities[i]).toEqual([p.entities.indexOf(e)]));
      piece.prepared.memories.forEach((m, i) => {
        expect(piece.vectors.memories[i]).toEqual([1000 + p.memories.indexOf(m)]);
        expect(piece.decisions?.[i]).toEqual(decisions[p.memories.indexOf(m)]);
      });
    }
    expect(pieces.flatMap((x) => x.prepared.memories)).toEqual(p.memories);
    expect(pieces.flatMap((x) => x.prepared.triplets)).toEqual(p.triplets);
    expect(new Set(pieces.flatMap((x) => x.prepared.entities))).toEqual(new Set(p.entities));
    expect(new Set(pieces.map((x) => x.key)).size).toBe(pieces.length);
  });
});

describe('an extraction pass too large for one transaction', () => {
  let m: TestMemloom;
  beforeAll(async () => {
    m = await startTestMemloom({ env: { EXTRACT_DEBOUNCE_MS: '0' }, roles: { api: false, workers: [] } });
  });
  afterAll(async () => m?.close());

  // ~130 preferences: as many memory units, twice as many entities, a triplet each.
  const names = ['Kalo', 'Mira', 'Tenvos', 'Belra', 'Zenpo', 'Luxdar', 'Quimi', 'Raten'];
  const lines = Array.from({ length: 130 }, (_, i) => {
    const a = `${names[i % 8]}${i}`;
    return i === 80 ? `I prefer Poisonberry${i} over ${a}.` : `I prefer ${a} over ${names[(i + 3) % 8]}${i + 1000}.`;
  });
  const content = lines.join(' ');

  async function memoriesOf(user: string) {
    return sql<{ content: string; confidence: number; version: number; status: string; sources: number }>(
      m.deps.db,
      `SELECT m.content, m.confidence, m.version, m.status,
              (SELECT count(*) FROM provenance p WHERE p.object_type = 'memory' AND p.object_id = m.id)::int AS sources
       FROM memories m WHERE m.user_id = $1 ORDER BY 1`,
      [user],
    );
  }

  it('is written in pieces of bounded size; a pass that failed midway resumes past the pieces it committed and ends as an uninterrupted pass', async () => {
    const [reference] = await ingest(m.deps, [{ session_id: 'big-ref', user_id: 'u-ref', role: 'user', content }]);
    const [event] = await ingest(m.deps, [{ session_id: 'big', user_id: 'u-big', role: 'user', content }]);
    await throughEmbed(m.deps, [reference as string, event as string]);

    await runStage(m.deps, extract, { tenantId: TENANT, extractKey: 'session:big-ref' });
    const perRun = await sql<{ memories: number; provenance: number }>(
      m.deps.db,
      `SELECT (SELECT count(*) FROM memories x WHERE x.run_id = r.id)::int AS memories, (SELECT count(*) FROM provenance p WHERE p.run_id = r.id)::int AS provenance
       FROM pipeline_runs r WHERE r.stage = 'extract' AND r.piece_key IS NOT NULL`,
    );
    expect(perRun.length).toBeGreaterThan(4);
    expect(Math.max(...perRun.map((r) => r.memories))).toBeLessThanOrEqual(PIECE_LIMITS.memories);
    // a piece links at most its units, entities and triplets to the one event
    expect(Math.max(...perRun.map((r) => r.provenance))).toBeLessThanOrEqual(PIECE_LIMITS.memories + PIECE_LIMITS.entities + PIECE_LIMITS.triplets);
    const expected = await memoriesOf('u-ref');
    expect(expected.length).toBeGreaterThan(100);

    // A genuine database error in a later piece: the pass fails after committing the pieces before it.
    const cure = await poisonWrites(m.deps, 'memories', 'content', 'Poisonberry');
    try {
      await expect(runStage(m.deps, extract, { tenantId: TENANT, extractKey: 'session:big' })).rejects.toThrow();
    } finally {
      await cure();
    }
    const committed = await sql<{ n: number }>(
      m.deps.db,
      `SELECT count(*)::int AS n FROM pipeline_runs WHERE piece_key IS NOT NULL AND id IN (SELECT run_id FROM memories WHERE user_id = 'u-big')`,
    );
    expect(committed[0]?.n).toBeGreaterThan(1);
    expect((await sql<{ status: string }>(m.deps.db, 'SELECT status FROM events WHERE id = $1', [event]))[0]?.status).toBe('embedded');

    // The retry writes only the pieces after them: no unit of a committed piece is confirmed again.
    const { result } = await runStage(m.deps, extract, { tenantId: TENANT, extractKey: 'session:big' });
    expect(result.events).toBe(1);
    expect(result.memories_confirmed).toBe(0);
    expect(await memoriesOf('u-big')).toEqual(expected);
    expect((await sql<{ status: string }>(m.deps.db, 'SELECT status FROM events WHERE id = $1', [event]))[0]?.status).toBe('done');
  });
});
