/**
 * The seed scenario of issue 7, end to end on a real memloom (embedded PGlite, real queues, real
 * HTTP, the offline providers): ingest a document, then a session, of one user; improve with
 * feedback, twice; forget only the session, twice. What forgetting the session must undo is
 * everything that exists because of it, including the `feedback` event built from its memories,
 * so every count and every id set returns to what it was after the document alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../src/db/pool.js';
import { runDoctor } from '../src/doctor.js';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';
import { duplicateGroups, NO_DUPLICATES } from './support/pipeline.js';
import { SEED_DOCUMENT, expectEntitiesSupportedOnlyBy, seedSession } from './support/seed.js';

let m: TestMemloom;
beforeAll(async () => {
  m = await startTestMemloom({ roles: { workers: QUEUE_NAMES } });
}, 120_000);
afterAll(async () => m?.close());

const USER = 'seed-alice';
const SESSION_ID = 'seed-s1';

const DOCUMENT = SEED_DOCUMENT;
const SESSION = seedSession(SESSION_ID, USER);

/** Words only the session says (the document says none of them): any trace of the session shows one. */
const SESSION_WORDS = /billing|grafana|staging/i;
const QUESTION = 'which database did we choose for the billing service?';

const sql = async <T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> =>
  withTenant(m.deps.db, 'default', async (tx) => (await tx.query(text, params)).rows as T[]);

const COUNTED = ['events', 'chunks', 'memories', 'memories_active', 'entities', 'edges', 'relations', 'provenance'] as const;
type Counts = Record<(typeof COUNTED)[number], number>;

interface Snapshot {
  counts: Counts;
  /** Rows by id (with what a forget could leave changed on a survivor: status, version link, description). */
  rows: Record<'events' | 'chunks' | 'memories' | 'entities' | 'edges' | 'relations', string[]>;
  /** Every provenance link `type:object:event`. */
  provenance: string[];
}

/** Counts as /v1/stats reports them, plus every derived row and provenance link: "back to before" means the same rows. */
async function snapshot(): Promise<Snapshot> {
  const stats = (await getJson(`${m.url}/v1/stats`)).body as { objects: Counts };
  const keys = async (query: string) => (await sql<{ k: string }>(`${query} ORDER BY 1`)).map((r) => r.k);
  return {
    counts: Object.fromEntries(COUNTED.map((k) => [k, stats.objects[k]])) as Counts,
    rows: {
      events: await keys('SELECT id::text AS k FROM events'),
      chunks: await keys('SELECT id::text AS k FROM chunks'),
      memories: await keys(`SELECT concat_ws(':', id, status, superseded_by) AS k FROM memories`),
      entities: await keys(`SELECT concat_ws(':', id, name, description) AS k FROM entities`),
      edges: await keys(`SELECT concat_ws(':', id, relation, description) AS k FROM edges`),
      relations: await keys('SELECT id::text AS k FROM memory_relations'),
    },
    provenance: await keys(`SELECT concat_ws(':', object_type, object_id, event_id) AS k FROM provenance`),
  };
}

/** Waits until `events` are stored and the pipeline has finished everything received so far. */
async function settle(events: number): Promise<void> {
  await waitFor(
    async () => {
      const s = (await getJson(`${m.url}/v1/stats`)).body as { objects: Counts; pending_events: number };
      return s.objects.events === events && s.pending_events === 0;
    },
    { timeoutMs: 240_000, what: `pipeline to settle at ${events} events` },
  );
}

async function ingest(events: object[]): Promise<string[]> {
  const before = (await snapshot()).counts.events;
  const r = await postJson(`${m.url}/v1/events`, { events });
  expect(r.status).toBe(202);
  expect(r.body.accepted).toBe(events.length);
  await settle(before + events.length);
  return r.body.ids as string[];
}

async function expectNoViolations(): Promise<void> {
  const d = await runDoctor(m.deps);
  expect(d.violations, JSON.stringify(d.tenants)).toBe(0);
}

interface Result {
  id: string;
  type: string;
  content: string;
  source: { event_ids: string[] };
}
async function recall(body: object): Promise<{ recall_id: string; results: Result[] }> {
  const r = await postJson(`${m.url}/v1/recall`, { limit: 20, mode: 'memories', ...body });
  expect(r.status).toBe(200);
  return r.body;
}

/** Ids of the objects of one type an event supports. */
const supportedBy = async (eventId: string, type: string) =>
  (await sql<{ object_id: string }>('SELECT object_id FROM provenance WHERE event_id = $1 AND object_type = $2 ORDER BY 1', [eventId, type])).map(
    (r) => r.object_id,
  );
const idsOf = (rows: string[]) => rows.map((r) => r.slice(0, 36));
const feedback = (recallId: string) => postJson(`${m.url}/v1/feedback`, { recall_id: recallId, score: 5 });
const forgetSession = () => postJson(`${m.url}/v1/forget`, { session_id: SESSION_ID });

describe('seed scenario: ingest, improve, forget', () => {
  let docId: string;
  let sessionIds: string[];
  let A: Snapshot; // after the document
  let B: Snapshot; // after the session
  let C: Snapshot; // after the improve
  let shared: Array<{ id: string; name: string }>;
  let recallId: string;
  let feedbackEventId: string;

  it('ingests a document and a session, and the session adds chunks, memories, entities and provenance', async () => {
    [docId] = (await ingest([{ type: 'document', user_id: USER, content: DOCUMENT }])) as [string];
    A = await snapshot();
    expect(A.counts.events).toBe(1);
    for (const k of ['chunks', 'memories', 'entities', 'provenance'] as const) expect(A.counts[k], k).toBeGreaterThan(0);
    await expectNoViolations();

    sessionIds = await ingest(SESSION);
    B = await snapshot();
    expect(B.counts.events).toBe(A.counts.events + SESSION.length);
    expect(B.counts.memories).toBeGreaterThan(A.counts.memories);
    expect(B.counts.entities).toBeGreaterThan(A.counts.entities);
    expect(B.counts.provenance).toBeGreaterThan(A.counts.provenance);
    expect(B.counts.chunks).toBeGreaterThanOrEqual(A.counts.chunks);
    expect(B.counts.edges).toBeGreaterThanOrEqual(A.counts.edges);
    // Nothing the document made was lost or duplicated by the session.
    expect(idsOf(B.rows.entities)).toEqual(expect.arrayContaining(idsOf(A.rows.entities)));
    expect(await duplicateGroups(m.deps.db)).toEqual(NO_DUPLICATES);
    // The session reused the document's entities instead of creating its own copies.
    shared = await sql<{ id: string; name: string }>(
      `SELECT e.id, e.name FROM entities e
       WHERE EXISTS (SELECT 1 FROM provenance p WHERE p.object_type = 'entity' AND p.object_id = e.id AND p.event_id = $1)
         AND EXISTS (SELECT 1 FROM provenance p WHERE p.object_type = 'entity' AND p.object_id = e.id AND p.event_id = ANY($2::uuid[]))`,
      [docId, sessionIds],
    );
    expect(shared.map((e) => e.name)).toContain('PostgreSQL');
    await expectNoViolations();
  }, 300_000);

  it('improves with a good score: the feedback event reuses existing entities and memories, adds provenance, and appears in recall', async () => {
    const asked = await recall({ query: QUESTION, user_id: USER, limit: 5 });
    recallId = asked.recall_id;
    // The answer the feedback approves is made of what the session said (and maybe of the document too).
    expect(asked.results.some((x) => x.source.event_ids.some((id) => sessionIds.includes(id)))).toBe(true);

    const r = await feedback(recallId);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ duplicate: false, lowered: 0 });
    feedbackEventId = r.body.event_id as string;
    expect(feedbackEventId).toMatch(/^[0-9a-f-]{36}$/);
    await settle(B.counts.events + 1);
    C = await snapshot();

    expect(C.counts.events).toBe(B.counts.events + 1);
    expect(C.counts.provenance).toBeGreaterThan(B.counts.provenance);
    // Reuse, not duplication: the same entities and memories as before, each supported by one more event.
    expect(idsOf(C.rows.entities)).toEqual(idsOf(B.rows.entities));
    expect(idsOf(C.rows.memories)).toEqual(idsOf(B.rows.memories));
    expect(await duplicateGroups(m.deps.db)).toEqual(NO_DUPLICATES);
    const entities = await supportedBy(feedbackEventId, 'entity');
    const memories = await supportedBy(feedbackEventId, 'memory');
    expect(entities.length).toBeGreaterThan(0);
    expect(memories.length).toBeGreaterThan(0);
    expect(idsOf(B.rows.entities)).toEqual(expect.arrayContaining(entities));
    expect(idsOf(B.rows.memories)).toEqual(expect.arrayContaining(memories));
    expect(entities).toContain(shared.find((e) => e.name === 'PostgreSQL')?.id);
    // Every provenance link from before is still there; the new ones are all the feedback event's.
    expect(C.provenance).toEqual(expect.arrayContaining(B.provenance));
    expect(C.provenance.filter((p) => !B.provenance.includes(p)).every((p) => p.endsWith(`:${feedbackEventId}`))).toBe(true);

    const again = await recall({ query: QUESTION, user_id: USER, limit: 5 });
    expect(again.results.some((x) => x.source.event_ids.includes(feedbackEventId))).toBe(true);
    await expectNoViolations();
  }, 300_000);

  it('improves again with the same feedback and nothing changes', async () => {
    const r = await feedback(recallId);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ duplicate: true, event_id: feedbackEventId });
    await settle(C.counts.events);
    expect(await snapshot()).toEqual(C);
    await expectNoViolations();
  }, 300_000);

  it('forgets only the session: every count and id returns to its value before the session, shared entities stay', async () => {
    const r = await forgetSession();
    expect(r.status).toBe(200);
    expect(r.body.nothing_to_forget).toBe(false);
    // The feedback event quoted the session's memories, so it goes with the session.
    expect(r.body.removed).toMatchObject({
      events: SESSION.length + 1,
      feedback_events: 1,
      chunks: C.counts.chunks - A.counts.chunks,
      memories: C.counts.memories - A.counts.memories,
      entities: C.counts.entities - A.counts.entities,
      edges: C.counts.edges - A.counts.edges,
      relations: C.counts.relations - A.counts.relations,
      provenance: C.counts.provenance - A.counts.provenance,
    });

    expect(await snapshot()).toEqual(A);
    await expectEntitiesSupportedOnlyBy(
      sql,
      shared.map((e) => e.id),
      docId,
    );
    // The stored feedback stays (it is the user's rating) but no longer points at an event.
    expect(await sql('SELECT event_id FROM feedback WHERE recall_id = $1', [recallId])).toEqual([{ event_id: null }]);
    await expectNoViolations();
  }, 120_000);

  it('no longer stores or recalls anything derived from the session', async () => {
    const gone = [...sessionIds, feedbackEventId];
    const traces = await sql<{ n: number }>(
      `SELECT ((SELECT count(*) FROM events WHERE content ~* $1) + (SELECT count(*) FROM chunks WHERE content ~* $1)
             + (SELECT count(*) FROM memories WHERE content ~* $1) + (SELECT count(*) FROM entities WHERE name ~* $1 OR description ~* $1)
             + (SELECT count(*) FROM edges WHERE description ~* $1))::int AS n`,
      [SESSION_WORDS.source],
    );
    expect(traces).toEqual([{ n: 0 }]);
    for (const mode of ['memories', 'chunks', 'graph', 'auto']) {
      for (const query of [QUESTION, 'billing service PostgreSQL', 'Grafana dashboards', 'upgrade Redis staging']) {
        for (const scope of [{}, { user_id: USER }]) {
          const { results } = await recall({ query, mode, ...scope });
          expect(
            results.filter((x) => x.source.event_ids.some((id) => gone.includes(id)) || SESSION_WORDS.test(JSON.stringify(x))),
            `${mode} "${query}"`,
          ).toEqual([]);
        }
      }
    }
    // The document is still recalled: recall works, it just has nothing of the session left.
    const doc = await recall({ query: 'PostgreSQL hybrid search', user_id: USER });
    expect(doc.results.some((x) => x.source.event_ids.includes(docId))).toBe(true);
  }, 120_000);

  it('forgets again and nothing changes; the same feedback again cannot bring the session back', async () => {
    const again = await forgetSession();
    expect(again.status).toBe(200);
    expect(again.body.nothing_to_forget).toBe(true);
    expect(Object.values(again.body.removed).every((n) => n === 0)).toBe(true);
    expect(await snapshot()).toEqual(A);

    const r = await feedback(recallId);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ duplicate: true, event_id: null });
    await settle(A.counts.events);
    expect(await snapshot()).toEqual(A);
    await expectNoViolations();
  }, 120_000);
});
