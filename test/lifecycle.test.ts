import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../src/db/pool.js';
import { insertMemories, insertMemory, relateMemories, supersedeMemory, type MemoryInsert } from '../src/db/sql/memories-write.js';
import { addProvenance } from '../src/db/sql/provenance.js';
import { startRun } from '../src/db/sql/runs.js';
import { decayValue } from '../src/domain/decay.js';
import { contentHash, ftsDocument, normalizeText } from '../src/domain/text.js';
import { MAINTENANCE_TASKS } from '../src/queue/scheduler.js';
import { refreshDecay } from '../workers/maintenance/lifecycle.js';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';
import { ingest, TENANT } from './support/pipeline.js';

let m: TestMemloom;
const DAY = 86_400_000;
const at = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString();
const rows = <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
  withTenant(m.deps.db, TENANT, async (tx) => (await tx.query(text, params)).rows as T[]);

interface Seed {
  content: string;
  kind?: string;
  importance?: number;
  /** When the supporting event happened. */
  daysAgo: number;
  /** When the memory was recorded (default: like daysAgo). */
  createdDaysAgo?: number;
  accessCount?: number;
  lastAccessDaysAgo?: number;
  ttl?: string;
}

/** A memory supported by one stored event, with its timestamps and signals set as given. */
async function seed(userId: string, it: Seed): Promise<string> {
  const [eventId] = await ingest(m.deps, [
    { user_id: userId, content: `evidence: ${it.content}`, occurred_at: at(it.daysAgo), ...(it.ttl ? { ttl: it.ttl } : {}) },
  ]);
  const { vectors } = await m.deps.providers.embeddings.embed([it.content], 'document');
  return withTenant(m.deps.db, TENANT, async (tx) => {
    const runId = await startRun(tx, { stage: 'test', jobId: undefined });
    const { id } = await insertMemory(
      tx,
      {
        kind: it.kind ?? 'fact',
        content: it.content,
        content_hash: contentHash(normalizeText(it.content)),
        fts_doc: ftsDocument(it.content),
        vector: vectors[0]!,
        importance: it.importance ?? 5,
        confidence: 0.8,
        event_time: null,
        time_precision: null,
        occurred_at: at(it.daysAgo),
        subject_entity_id: null,
        dataset: 'default',
        user_id: userId,
        agent_id: null,
        session_id: null,
        source_event_ids: [eventId!],
        version: 1,
      },
      m.deps.providers.embeddings.model,
      m.deps.providers.embeddings.dimensions,
      runId,
    );
    await addProvenance(tx, 'memory', [{ objectId: id, eventIds: [eventId!] }], runId);
    await tx.query('UPDATE memories SET created_at = $2 WHERE id = $1', [id, at(it.createdDaysAgo ?? it.daysAgo)]);
    if (it.accessCount || it.lastAccessDaysAgo !== undefined) {
      await tx.query('INSERT INTO memory_signals (memory_id, access_count, last_accessed_at) VALUES ($1, $2, $3)', [
        id,
        it.accessCount ?? 0,
        it.lastAccessDaysAgo === undefined ? null : at(it.lastAccessDaysAgo),
      ]);
    }
    return id;
  });
}
const statusOf = async (id: string) => (await rows<{ status: string }>('SELECT status FROM memories WHERE id = $1', [id]))[0]?.status;

beforeAll(async () => {
  m = await startTestMemloom({ roles: { workers: ['maintenance'], scheduler: true }, env: { TTL_SWEEP_INTERVAL_MS: '300', TTL_DEFAULTS: 'episode:P30D' } });
}, 300_000);
afterAll(async () => m?.close());

describe('schedules', () => {
  it('registers one job scheduler per maintenance task with its configured interval', async () => {
    const schedulers = await m.deps.queues.get('maintenance').getJobSchedulers();
    const every = Object.fromEntries(schedulers.map((s) => [s.key, Number(s.every)]));
    expect(Object.keys(every).sort()).toEqual(MAINTENANCE_TASKS.map((t) => `maintenance-${t}`).sort());
    expect(every['maintenance-ttl-sweep']).toBe(300);
    expect(every['maintenance-decay']).toBe(86_400_000);
    expect(every['maintenance-dream-triggers']).toBe(600_000);
    expect(every['maintenance-briefing']).toBe(3_600_000);
  });
});

describe('TTL expiry', () => {
  it('hard-deletes expired memories with their provenance and relations, and makes what they replaced current again', async () => {
    const keep = await seed('ttl', { content: 'The VPN certificate is renewed every spring.', daysAgo: 3, ttl: 'P365D' });
    const gone = await seed('ttl', { content: 'The temporary office door code is 4711.', daysAgo: 3, ttl: 'P1D' });
    const older = await seed('ttl', { content: 'The wifi password is kept in the vault.', daysAgo: 20 });
    // Expired in the same transaction that relates it: a sweep between its seed and the relation
    // would delete it first (the sweep runs every 300 ms).
    const correction = await seed('ttl', { content: 'The wifi password is kept in the office safe.', daysAgo: 2, ttl: 'P365D' });
    const relation = await withTenant(m.deps.db, TENANT, async (tx) => {
      await supersedeMemory(tx, older, correction);
      const id = await relateMemories(tx, correction, older, 'replaces', true);
      await tx.query(`UPDATE memories SET expires_at = now() - interval '1 day' WHERE id = $1`, [correction]);
      return id;
    });
    // seed() inserts without the per-kind defaults, like rows written before insert applied them:
    // the sweep gives this episode its default expiry (40 days ago + 30 days) and deletes it.
    const oldEpisode = await seed('ttl', { content: 'We had a team offsite in the mountains.', kind: 'episode', daysAgo: 40 });
    const newEpisode = await seed('ttl', { content: 'We had a team lunch at the harbour.', kind: 'episode', daysAgo: 10 });

    // The sweep runs every 300 ms, so one run may come between the seeds above: wait for the one
    // that has seen them all (the new episode's default expiry is set by the same pass).
    await waitFor(
      async () =>
        (await rows('SELECT 1 FROM memories WHERE id = ANY($1::uuid[])', [[gone, correction, oldEpisode]])).length === 0 &&
        (await rows('SELECT 1 FROM memories WHERE id = $1 AND expires_at IS NOT NULL', [newEpisode])).length === 1,
      { timeoutMs: 120_000, what: 'the sweep' },
    );
    expect(await rows(`SELECT 1 FROM provenance WHERE object_type = 'memory' AND object_id = ANY($1::uuid[])`, [[gone, correction, oldEpisode]])).toEqual([]);
    expect(await rows('SELECT 1 FROM memory_relations WHERE id = $1', [relation])).toEqual([]);
    expect(await rows('SELECT status, superseded_by FROM memories WHERE id = $1', [older])).toEqual([{ status: 'active', superseded_by: null }]);
    expect(await statusOf(keep)).toBe('active');
    const [episode] = await rows<{ expires_at: Date }>('SELECT expires_at FROM memories WHERE id = $1', [newEpisode]);
    expect(episode!.expires_at.getTime()).toBeGreaterThan(Date.now());
  }, 180_000);
});

describe('TTL at insert', () => {
  /** A memory's expiry, and what the kind's default and the short-ttl event would give it. */
  interface Expiry {
    id: string;
    expires_at: Date | null;
    by_default: Date;
    by_event: Date;
  }

  it("sets expires_at when a memory is inserted: the kind's default without an event ttl, the event ttl when there is one", async () => {
    const episodeTtl = m.deps.config.TTL_DEFAULTS.get('episode');
    expect(episodeTtl).toBeDefined();
    expect(m.deps.config.TTL_DEFAULTS.has('fact')).toBe(false);
    const [plain, short] = (await ingest(m.deps, [
      { user_id: 'ttl-insert', content: 'evidence without a ttl', occurred_at: at(1) },
      { user_id: 'ttl-insert', content: 'evidence with a short ttl', occurred_at: at(1), ttl: 'P2D' },
    ])) as [string, string];
    const texts = [
      'We had a retro about the release.',
      'The release branch is cut on Mondays.',
      'We had a quick call about the outage.',
      'We had a demo of the new dashboard.',
    ];
    const { vectors } = await m.deps.providers.embeddings.embed(texts, 'document');
    const row = (i: number, kind: string, eventId: string): MemoryInsert => ({
      kind,
      content: texts[i]!,
      content_hash: contentHash(normalizeText(texts[i]!)),
      fts_doc: ftsDocument(texts[i]!),
      vector: vectors[i]!,
      importance: 5,
      confidence: 0.8,
      event_time: null,
      time_precision: null,
      occurred_at: at(1),
      subject_entity_id: null,
      dataset: 'default',
      user_id: 'ttl-insert',
      agent_id: null,
      session_id: null,
      source_event_ids: [eventId],
      version: 1,
    });
    const { model, dimensions } = m.deps.providers.embeddings;
    // Read inside the inserting transaction: the scheduled sweep (every 300 ms here) cannot see
    // these rows yet, so whatever expires_at they have was written by the insert itself.
    const got = await withTenant(m.deps.db, TENANT, async (tx) => {
      const runId = await startRun(tx, { stage: 'test', jobId: undefined });
      const ids = await insertMemories(
        tx,
        [row(0, 'episode', plain), row(1, 'fact', plain), row(2, 'episode', short)],
        model,
        dimensions,
        runId,
        m.deps.config.TTL_DEFAULTS,
      );
      const single = await insertMemory(tx, row(3, 'episode', plain), model, dimensions, runId, m.deps.config.TTL_DEFAULTS);
      expect([...ids, single].every((x) => x.inserted)).toBe(true);
      const { rows: r } = await tx.query<Expiry>(
        `SELECT m.id, m.expires_at, m.occurred_at + $2::interval AS by_default, ev.occurred_at + ev.ttl AS by_event
         FROM unnest($1::uuid[]) WITH ORDINALITY AS x(id, ord) JOIN memories m ON m.id = x.id JOIN events ev ON ev.id = $3 ORDER BY x.ord`,
        [[...ids.map((x) => x.id), single.id], episodeTtl, short],
      );
      return r;
    });
    const [episode, fact, episodeWithTtl, episodeSingle] = got as [Expiry, Expiry, Expiry, Expiry];
    expect(episode.expires_at?.getTime()).toBe(episode.by_default.getTime());
    expect(episodeSingle.expires_at?.getTime()).toBe(episodeSingle.by_default.getTime());
    expect(episode.expires_at!.getTime()).toBeGreaterThan(Date.now());
    expect(fact.expires_at).toBeNull();
    expect(episodeWithTtl.expires_at?.getTime()).toBe(episodeWithTtl.by_event.getTime());
    expect(episodeWithTtl.expires_at!.getTime()).toBeLessThan(episodeWithTtl.by_default.getTime());
  });
});

describe('decay and archiving', () => {
  const policy = { halfLifeDays: 30, importanceFloor: 7 };

  it('writes the decay of every active memory: halving per half-life, lifted by access, confidence untouched', async () => {
    const fresh = await seed('dec', { content: 'Decay probe: recorded today about the build cache.', daysAgo: 0 });
    const month = await seed('dec', { content: 'Decay probe: a month old fact about the runners.', daysAgo: 30 });
    const used = await seed('dec', { content: 'Decay probe: two months old but recalled often.', daysAgo: 60, accessCount: 5, lastAccessDaysAgo: 60 });
    const now = new Date();
    await refreshDecay(m.deps, now);
    const got = await rows<{ id: string; decay: number; confidence: number; occurred_at: Date; last_accessed_at: Date | null; access_count: number }>(
      `SELECT m.id, coalesce(s.decay, 1) AS decay, m.confidence, m.occurred_at, s.last_accessed_at, coalesce(s.access_count, 0) AS access_count
       FROM memories m LEFT JOIN memory_signals s ON s.memory_id = m.id WHERE m.id = ANY($1::uuid[])`,
      [[fresh, month, used]],
    );
    for (const r of got) {
      const want = decayValue(
        { kind: 'fact', importance: 5, occurredAt: r.occurred_at, lastAccessedAt: r.last_accessed_at, accessCount: r.access_count },
        policy,
        now,
      );
      expect(r.decay).toBeCloseTo(want, 4);
      expect(r.confidence).toBeCloseTo(0.8, 5);
    }
    const byId = Object.fromEntries(got.map((r) => [r.id, r.decay]));
    expect(byId[fresh]).toBe(1);
    expect(byId[month]).toBeCloseTo(0.5, 2);
    expect(byId[used]!).toBeGreaterThan(0.25);
  });

  it('archives only when all four conditions hold, and each one alone keeps a memory active', async () => {
    const old = { daysAgo: 200 };
    const archivable = await seed('arc', { content: 'Archive probe: a stale fact nobody asked about.', ...old });
    const lowImportanceDecision = await seed('arc', { content: 'Archive probe: a minor decision from long ago.', kind: 'decision', importance: 5, ...old });
    const decayHigh = await seed('arc', { content: 'Archive probe: old enough but not decayed yet.', daysAgo: 100 });
    const accessed = await seed('arc', { content: 'Archive probe: decayed but recalled once.', ...old, accessCount: 1, lastAccessDaysAgo: 200 });
    const rated = await seed('arc', { content: 'Archive probe: decayed but rated in a feedback.', ...old });
    const recent = await seed('arc', { content: 'Archive probe: about old events, recorded last week.', daysAgo: 200, createdDaysAgo: 7 });
    const superseded = await seed('arc', { content: 'Archive probe: an old version of something.', ...old });
    const protectedDecision = await seed('arc', { content: 'Archive probe: an important decision from long ago.', kind: 'decision', importance: 8, ...old });
    await withTenant(m.deps.db, TENANT, async (tx) => {
      await supersedeMemory(tx, superseded, recent);
      const { rows: r } = await tx.query<{ id: string }>(`INSERT INTO recall_log (query, result_ids) VALUES ('probe', $1::uuid[]) RETURNING id`, [[rated]]);
      await tx.query('INSERT INTO feedback (recall_id, score) VALUES ($1, 3)', [r[0]!.id]);
    });

    const now = new Date();
    const result = await refreshDecay(m.deps, now);
    expect(result.archived).toBeGreaterThanOrEqual(2);
    expect(await statusOf(archivable)).toBe('archived');
    expect(await statusOf(lowImportanceDecision)).toBe('archived');
    expect(await statusOf(decayHigh)).toBe('active');
    expect(await statusOf(accessed)).toBe('active');
    expect(await statusOf(rated)).toBe('active');
    expect(await statusOf(recent)).toBe('active');
    expect(await statusOf(superseded)).toBe('superseded');
    expect(await statusOf(protectedDecision)).toBe('active');
    const [d] = await rows<{ decay: number }>('SELECT decay FROM memory_signals WHERE memory_id = $1', [protectedDecision]);
    expect(d!.decay).toBeGreaterThanOrEqual(0.35);
    // a second refresh at the same time changes nothing more
    expect(await refreshDecay(m.deps, now)).toEqual({ updated: 0, archived: 0 });
  });

  it('keeps archived memories out of default recall, and restores them', async () => {
    const [{ id }] = (await rows<{ id: string }>(`SELECT id FROM memories WHERE user_id = 'arc' AND status = 'archived' AND kind = 'fact'`)) as [
      { id: string },
    ];
    const recallIds = async () =>
      (
        (await postJson(`${m.url}/v1/recall`, { query: 'stale fact nobody asked about', user_id: 'arc', mode: 'memories' })).body.results as Array<{
          id: string;
        }>
      ).map((x) => x.id);
    expect(await recallIds()).not.toContain(id);

    const r = await postJson(`${m.url}/v1/memories/${id}/restore`, {});
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id, status: 'active', restored: true });
    expect(await rows('SELECT m.status, s.decay, s.access_count FROM memories m JOIN memory_signals s ON s.memory_id = m.id WHERE m.id = $1', [id])).toEqual([
      { status: 'active', decay: 1, access_count: 1 },
    ]);
    expect(await recallIds()).toContain(id);
    await refreshDecay(m.deps);
    expect(await statusOf(id)).toBe('active');

    expect((await postJson(`${m.url}/v1/memories/${id}/restore`, {})).body.restored).toBe(false);
    const [sup] = await rows<{ id: string }>(`SELECT id FROM memories WHERE user_id = 'arc' AND status = 'superseded'`);
    expect((await postJson(`${m.url}/v1/memories/${sup!.id}/restore`, {})).status).toBe(409);
    expect((await postJson(`${m.url}/v1/memories/00000000-0000-4000-8000-000000000000/restore`, {})).status).toBe(404);
    expect((await postJson(`${m.url}/v1/memories/nope/restore`, {})).status).toBe(400);
    expect((await getJson(`${m.url}/v1/memories/${id}`)).body.status).toBe('active');
  });
});
