import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putCachedVectors } from '../src/db/sql/embedding-cache.js';
import { withTenant } from '../src/db/pool.js';
import { insertMemory, relateMemories, supersedeMemory } from '../src/db/sql/memories-write.js';
import { addProvenance } from '../src/db/sql/provenance.js';
import { resolveEntities } from '../src/db/sql/entities.js';
import { startRun } from '../src/db/sql/runs.js';
import { runDoctor } from '../src/doctor.js';
import { contentHash, ftsDocument, normalizeText } from '../src/domain/text.js';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { forgetCommand } from '../apps/cli/commands/forget.js';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';
import { SEED_DOCUMENT, expectEntitiesSupportedOnlyBy, seedSession } from './support/seed.js';

let m: TestMemloom;
beforeAll(async () => {
  m = await startTestMemloom({ roles: { workers: QUEUE_NAMES } });
}, 120_000);
afterAll(async () => m?.close());

const sql = async <T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> =>
  withTenant(m.deps.db, 'default', async (tx) => (await tx.query(text, params)).rows as T[]);

const COUNTED = ['events', 'chunks', 'memories', 'memories_active', 'entities', 'edges', 'relations', 'provenance'] as const;
type Counts = Record<(typeof COUNTED)[number], number>;

async function counts(): Promise<Counts> {
  const { objects } = (await getJson(`${m.url}/v1/stats`)).body as { objects: Counts };
  return Object.fromEntries(COUNTED.map((k) => [k, objects[k]])) as Counts;
}

/** Posts events and waits until the pipeline has finished everything received so far. */
async function ingest(events: object[]): Promise<string[]> {
  const r = await postJson(`${m.url}/v1/events`, { events });
  expect(r.status).toBe(202);
  await settle();
  return r.body.ids as string[];
}

async function settle(): Promise<void> {
  await waitFor(async () => (await getJson(`${m.url}/v1/stats`)).body.pending_events === 0, { timeoutMs: 120_000, what: 'pipeline to settle' });
}

async function expectNoViolations(): Promise<void> {
  const d = await runDoctor(m.deps);
  expect(d.violations, JSON.stringify(d.tenants)).toBe(0);
}

/** Everything derived, by id, so "back to before" means the same rows and not only as many. */
async function derivedIds(): Promise<Record<string, string[]>> {
  const ids = async (table: string) => (await sql<{ id: string }>(`SELECT id FROM ${table} ORDER BY id`)).map((r) => r.id);
  return { memories: await ids('memories'), entities: await ids('entities'), edges: await ids('edges'), relations: await ids('memory_relations') };
}

const forget = (body: object) => postJson(`${m.url}/v1/forget`, body);
const del = async (id: string) => {
  const res = await fetch(`${m.url}/v1/memories/${id}`, { method: 'DELETE' });
  return { status: res.status, body: (await res.json()) as any };
};

const DOCUMENT = SEED_DOCUMENT;
const SESSION = seedSession('forget-s1', 'alice');

describe('forget', () => {
  it('forgets a session: every count returns to its value before it, shared entities stay, recall no longer finds it', async () => {
    // Alice's own document: entities are per user, so a shared one is shared within her graph.
    const [docId] = await ingest([{ type: 'document', user_id: 'alice', content: DOCUMENT }]);
    const before = await counts();
    const idsBefore = await derivedIds();
    await expectNoViolations();

    const sessionIds = await ingest(SESSION);
    const during = await counts();
    expect(during.events).toBe(before.events + 3);
    expect(during.memories).toBeGreaterThan(before.memories);
    expect(during.provenance).toBeGreaterThan(before.provenance);
    const shared = await sql<{ id: string; name: string }>(
      `SELECT e.id, e.name FROM entities e
       WHERE EXISTS (SELECT 1 FROM provenance p WHERE p.object_type = 'entity' AND p.object_id = e.id AND p.event_id = $1)
         AND EXISTS (SELECT 1 FROM provenance p WHERE p.object_type = 'entity' AND p.object_id = e.id AND p.event_id = ANY($2::uuid[]))`,
      [docId, sessionIds],
    );
    expect(shared.map((e) => e.name)).toContain('PostgreSQL');
    const fromSession = async (body: object) => {
      const r = await postJson(`${m.url}/v1/recall`, { limit: 50, ...body });
      expect(r.status).toBe(200);
      return (r.body.results as Array<{ source: { event_ids: string[] } }>).filter((x) => x.source.event_ids.some((id) => sessionIds.includes(id)));
    };
    expect((await fromSession({ query: 'billing service PostgreSQL', user_id: 'alice' })).length).toBeGreaterThan(0);
    await expectNoViolations();
    // A cached embedder (OpenAI, USE-lite) keeps the session's texts as vectors in the cache; local
    // hashing caches nothing (src/embeddings.ts), so they are put there as such a model would have.
    const sessionHashes = SESSION.map((e) => contentHash(e.content));
    await withTenant(m.deps.db, 'default', (tx) =>
      putCachedVectors(
        tx,
        'text-embedding-3-small',
        sessionHashes.map((hash) => ({ hash, vector: [0.6, 0.8, 0] })),
      ),
    );
    expect(await sql('SELECT 1 FROM embedding_cache WHERE text_hash = ANY($1::text[])', [sessionHashes])).toHaveLength(SESSION.length);

    const first = await forget({ session_id: 'forget-s1' });
    expect(first.status).toBe(200);
    expect(first.body.nothing_to_forget).toBe(false);
    expect(first.body.removed).toMatchObject({ events: 3, chunks: during.chunks - before.chunks, memories: during.memories - before.memories });
    expect(first.body.removed.provenance).toBe(during.provenance - before.provenance);

    expect(await counts()).toEqual(before);
    expect(await derivedIds()).toEqual(idsBefore);
    await expectEntitiesSupportedOnlyBy(
      sql,
      shared.map((e) => e.id),
      docId as string,
    );
    for (const mode of ['memories', 'chunks', 'graph', 'auto']) {
      for (const query of ['billing service PostgreSQL', 'Grafana dashboards', 'upgrade Redis staging']) {
        expect(await fromSession({ query, mode })).toEqual([]);
        expect(await fromSession({ query, mode, user_id: 'alice' })).toEqual([]);
      }
    }
    // No vector of a forgotten text survives in the embedding cache.
    const cached = await sql('SELECT 1 FROM embedding_cache WHERE text_hash = ANY($1::text[])', [sessionHashes]);
    expect(cached).toEqual([]);
    await expectNoViolations();

    const again = await forget({ session_id: 'forget-s1' });
    expect(again.status).toBe(200);
    expect(again.body.nothing_to_forget).toBe(true);
    expect(Object.values(again.body.removed).every((n) => n === 0)).toBe(true);
    expect(await counts()).toEqual(before);
  }, 240_000);

  it('a late job for a forgotten event creates nothing, and waiting jobs for it are removed', async () => {
    const [eventId] = await ingest([
      { session_id: 'forget-late', user_id: 'dave', content: 'We decided to use Kafka for the audit log.', metadata: { speaker: 'Dave' } },
    ]);
    const id = eventId as string;
    // A delayed job still waiting when the event is forgotten: forget removes it.
    const waiting = await m.deps.queues.get('embed').add('embed', { tenantId: 'default', eventIds: [id] }, { jobId: `late-waiting-${id}`, delay: 600_000 });
    const r = await forget({ event_id: id });
    expect(r.body.removed.events).toBe(1);
    expect(r.body.jobs_removed).toBeGreaterThanOrEqual(1);
    expect(await m.deps.queues.get('embed').getJob(waiting.id as string)).toBeUndefined();
    const after = await counts();

    // Jobs that arrive after the forget run to completion and write nothing.
    const late = [
      await m.deps.queues.get('triage').add('triage', { tenantId: 'default', eventIds: [id] }, { jobId: `late-triage-${id}` }),
      await m.deps.queues.get('chunk').add('chunk', { tenantId: 'default', eventIds: [id] }, { jobId: `late-chunk-${id}` }),
      await m.deps.queues.get('embed').add('embed', { tenantId: 'default', eventIds: [id] }, { jobId: `late-embed-${id}` }),
      await m.deps.queues.get('extract').add('extract', { tenantId: 'default', extractKey: 'session:forget-late' }, { jobId: `late-extract-${id}` }),
    ];
    await waitFor(
      async () => {
        const states = await Promise.all(late.map((j) => j.getState()));
        return states.every((s) => s === 'completed');
      },
      { timeoutMs: 60_000, what: 'late jobs to complete' },
    );
    await settle();
    expect(await counts()).toEqual(after);
    expect(await sql('SELECT 1 FROM chunks WHERE event_id = $1 UNION ALL SELECT 1 FROM provenance WHERE event_id = $1', [id])).toEqual([]);
    await expectNoViolations();
  }, 120_000);

  it('DELETE /v1/memories/:id removes one memory and makes the version it replaced current again', async () => {
    const [eventId] = await ingest([
      { session_id: 'forget-versions', user_id: 'erin', content: 'We decided to use MySQL for reporting.', metadata: { speaker: 'Erin' } },
    ]);
    const vector = Array.from({ length: m.deps.providers.embeddings.dimensions }, (_, i) => (i === 0 ? 1 : 0));
    const { oldId, newId } = await withTenant(m.deps.db, 'default', async (tx) => {
      const runId = await startRun(tx, { stage: 'test', jobId: 'forget-test' });
      const write = (content: string, version: number) =>
        insertMemory(
          tx,
          {
            kind: 'fact',
            content,
            content_hash: contentHash(normalizeText(content)),
            fts_doc: ftsDocument(content),
            vector,
            importance: 5,
            confidence: 0.8,
            event_time: null,
            time_precision: null,
            occurred_at: new Date().toISOString(),
            subject_entity_id: null,
            dataset: 'default',
            user_id: 'erin',
            agent_id: null,
            session_id: 'forget-versions',
            source_event_ids: [eventId as string],
            version,
          },
          m.deps.providers.embeddings.model,
          m.deps.providers.embeddings.dimensions,
          runId,
        );
      const old = await write('The reporting database is MySQL 5.7.', 1);
      const next = await write('The reporting database is MySQL 8.0.', 2);
      await supersedeMemory(tx, old.id, next.id);
      const rel = await relateMemories(tx, next.id, old.id, 'replaces', true);
      await addProvenance(
        tx,
        'memory',
        [
          { objectId: old.id, eventIds: [eventId as string] },
          { objectId: next.id, eventIds: [eventId as string] },
        ],
        runId,
      );
      if (rel) await addProvenance(tx, 'relation', [{ objectId: rel, eventIds: [eventId as string] }], runId);
      return { oldId: old.id, newId: next.id };
    });
    await expectNoViolations();

    const r = await del(newId);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ deleted: true, id: newId, removed: { memories: 1, relations: 1, provenance: 2 }, updated: { memories_reactivated: 1 } });
    const [old] = await sql<{ status: string; superseded_by: string | null }>('SELECT status, superseded_by FROM memories WHERE id = $1', [oldId]);
    expect(old).toEqual({ status: 'active', superseded_by: null });
    expect(await sql('SELECT 1 FROM events WHERE id = $1', [eventId])).toHaveLength(1);
    await expectNoViolations();

    expect((await del(newId)).status).toBe(404);
    expect((await del('not-a-uuid')).status).toBe(400);
  }, 120_000);

  it('forgets a user and a dataset, counting what went', async () => {
    const bob = [
      {
        session_id: 'forget-b1',
        user_id: 'bob',
        dataset: 'team-b',
        content: 'We decided to use Terraform for the network setup.',
        metadata: { speaker: 'Bob' },
      },
      { session_id: 'forget-b2', user_id: 'bob', dataset: 'team-b', content: 'I prefer Ansible for configuration management.', metadata: { speaker: 'Bob' } },
    ];
    const carol = [
      {
        session_id: 'forget-c1',
        user_id: 'carol',
        dataset: 'team-c',
        content: 'We decided to use Svelte for the admin console.',
        metadata: { speaker: 'Carol' },
      },
      { type: 'document', dataset: 'team-c', content: 'The admin console is written in Svelte and talks to the API over HTTP.' },
    ];
    const start = await counts();
    await ingest([...bob, ...carol]);
    expect((await counts()).events).toBe(start.events + 4);
    await postJson(`${m.url}/v1/recall`, { query: 'network setup', user_id: 'bob' });

    const byUser = await forget({ user_id: 'bob' });
    expect(byUser.status).toBe(200);
    expect(byUser.body.removed).toMatchObject({ events: 2, recalls: 1 });
    expect(byUser.body.removed.memories).toBeGreaterThan(0);
    expect(await sql(`SELECT 1 FROM memories WHERE user_id = 'bob' UNION ALL SELECT 1 FROM events WHERE user_id = 'bob'`)).toEqual([]);
    await expectNoViolations();

    const out: string[] = [];
    await forgetCommand(
      m.config,
      m.deps.log,
      {
        positionals: [],
        flags: new Map([
          ['dataset', 'team-c'],
          ['url', m.url],
        ]),
      },
      { stdout: { write: (s: string) => out.push(s) } as unknown as NodeJS.WritableStream },
    );
    const byDataset = JSON.parse(out.join(''));
    expect(byDataset.removed.events).toBe(2);
    expect(byDataset.removed.chunks).toBeGreaterThanOrEqual(2);
    expect(await counts()).toEqual(start);
    await expectNoViolations();
  }, 240_000);

  it("clears a shared entity's description only when the forgotten events alone had given it", async () => {
    const [creator, echo, other] = (await ingest([
      { session_id: 'forget-d1', user_id: 'frank', content: 'The Quillfeather service stores invoices.' },
      { session_id: 'forget-d2', user_id: 'frank', content: 'Quillfeather is an invoice archive.' },
      { session_id: 'forget-d3', user_id: 'frank', content: 'Nobody has touched Brassbolt lately.' },
    ])) as [string, string, string];
    const vector = Array.from({ length: m.deps.providers.embeddings.dimensions }, (_, i) => (i === 1 ? 1 : 0));
    const entity = (name: string, description: string) => ({
      name,
      normalized: name.toLowerCase(),
      type: 'test_thing',
      description,
      ftsDoc: ftsDocument(`${name} ${description}`),
      vector,
    });
    const link = async (ids: string[], eventId: string) =>
      withTenant(m.deps.db, 'default', async (tx) => {
        const runId = await startRun(tx, { stage: 'test', jobId: 'forget-desc' });
        await addProvenance(
          tx,
          'entity',
          ids.map((objectId) => ({ objectId, eventIds: [eventId] })),
          runId,
        );
      });
    // Created (with their descriptions) from `creator`, then supported by later events in other transactions.
    const [kept, cleared] = await withTenant(m.deps.db, 'default', async (tx) => {
      const ids = await resolveEntities(
        tx,
        { dataset: 'default', userId: 'frank' },
        [entity('Zephyr Ledger', 'invoice archive'), entity('Zephyr Vault', 'cold storage')],
        m.deps.providers.embeddings.model,
        m.deps.providers.embeddings.dimensions,
        2,
      );
      const runId = await startRun(tx, { stage: 'test', jobId: 'forget-desc' });
      await addProvenance(
        tx,
        'entity',
        ids.map((objectId) => ({ objectId, eventIds: [creator] })),
        runId,
      );
      return ids as [string, string];
    });
    await link([kept], echo);
    await link([cleared], other);

    const r = await forget({ event_id: creator });
    expect(r.body.updated.entity_descriptions_cleared).toBe(1);
    const rows = await sql<{ id: string; description: string }>('SELECT id, description FROM entities WHERE id = ANY($1::uuid[])', [[kept, cleared]]);
    expect(Object.fromEntries(rows.map((x) => [x.id, x.description]))).toEqual({ [kept]: 'invoice archive', [cleared]: '' });
    await expectNoViolations();
  }, 120_000);

  it('doctor counts an orphan memory and a dangling provenance row', async () => {
    const [eventId] = await ingest([{ session_id: 'forget-doctor', user_id: 'gina', content: 'I prefer Vim for quick edits.', metadata: { speaker: 'Gina' } }]);
    const vector = Array.from({ length: m.deps.providers.embeddings.dimensions }, (_, i) => (i === 2 ? 1 : 0));
    const orphanId = await withTenant(m.deps.db, 'default', async (tx) => {
      const runId = await startRun(tx, { stage: 'test', jobId: 'forget-doctor' });
      const content = 'An orphan memory nobody supports.';
      const orphan = await insertMemory(
        tx,
        {
          kind: 'fact',
          content,
          content_hash: contentHash(normalizeText(content)),
          fts_doc: ftsDocument(content),
          vector,
          importance: 5,
          confidence: 0.8,
          event_time: null,
          time_precision: null,
          occurred_at: new Date().toISOString(),
          subject_entity_id: null,
          dataset: 'default',
          user_id: 'gina',
          agent_id: null,
          session_id: null,
          source_event_ids: [],
          version: 1,
        },
        m.deps.providers.embeddings.model,
        m.deps.providers.embeddings.dimensions,
        runId,
      );
      await addProvenance(tx, 'edge', [{ objectId: randomUUID(), eventIds: [eventId as string] }], runId);
      return orphan.id;
    });
    const d = await runDoctor(m.deps, ['default']);
    expect(d.violations).toBe(2);
    expect(d.tenants.default).toMatchObject({ memories_without_provenance: 1, provenance_without_object: 1 });

    expect((await del(orphanId)).status).toBe(200);
    await sql(`DELETE FROM provenance p WHERE p.object_type = 'edge' AND NOT EXISTS (SELECT 1 FROM edges g WHERE g.id = p.object_id)`);
    await expectNoViolations();
  }, 120_000);

  it('answers 400 unless exactly one scope is given (user_id may only accompany session_id)', async () => {
    for (const body of [
      {},
      { session_id: 'a', dataset: 'b' },
      { dataset: 'a', user_id: 'b' },
      { session_id: 'a', user_id: 'b', dataset: 'c' },
      { session: 'a' },
      { event_id: 'not-a-uuid' },
      { user_id: '' },
    ]) {
      expect((await forget(body)).status).toBe(400);
    }
  });
});
