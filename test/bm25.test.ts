import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { upgradeFullTextKeys } from '../src/db/fts-upgrade.js';
import { withTenant } from '../src/db/pool.js';
import { FTS_KEYS_VERSION, ftsDocument } from '../src/domain/text.js';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { keywordSearch, rareTerms, termWeights } from '../src/db/sql/recall-bm25.js';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';
import { createScratchDatabase, type ScratchDatabase } from './support/server-mode.js';
import { SERVER_MODE } from './support/server-db.js';

const KEYS = { acme: 'ka', globex: 'kb' } as const;
type Tenant = keyof typeof KEYS;
/** A word as full-text keys hold it (its Porter stem). */
const tok = (word: string) => ftsDocument(word);
const tenantOf: Tenant = 'globex';
const auth = (t: Tenant) => ({ authorization: `Bearer ${KEYS[t]}` });

let m: TestMemloom;

const sql = async <T = Record<string, unknown>>(tenant: Tenant, text: string, params: unknown[] = []): Promise<T[]> =>
  withTenant(m.deps.db, tenant, async (tx) => (await tx.query(text, params)).rows as T[]);

async function ingest(tenant: Tenant, events: object[]): Promise<string[]> {
  const r = await postJson(`${m.url}/v1/events`, { events }, auth(tenant));
  expect(r.status).toBe(202);
  await waitFor(async () => (await getJson(`${m.url}/v1/stats`, auth(tenant))).body.pending_events === 0, { timeoutMs: 120_000, what: 'pipeline to settle' });
  return r.body.ids as string[];
}

/**
 * The statistics as stored, and as counted from scratch from the rows they describe; each line
 * is one row of the statistics. Lengths are sums of tenths, so rounding hides float order only.
 */
async function statistics(tenant: Tenant, frequencies: 'with pending deltas' | 'folded'): Promise<{ stored: string[]; counted: string[] }> {
  const lines = async (q: string) => (await sql<{ l: string }>(tenant, q)).map((r) => r.l).sort();
  // Document frequencies as recall reads them (termWeights): bm25_terms plus the deltas not yet
  // folded; or, after a fold, bm25_terms alone (no delta left, no row at zero).
  const storedTerms =
    frequencies === 'folded'
      ? `SELECT concat_ws('|', 'term', corpus, user_key, dataset, term, df) AS l FROM bm25_terms`
      : `SELECT concat_ws('|', 'term', corpus, user_key, dataset, term, sum(df)) AS l FROM (
           SELECT corpus, user_key, dataset, term, df FROM bm25_terms
           UNION ALL SELECT corpus, user_key, dataset, u.term, sign FROM bm25_term_deltas, unnest(terms) AS u(term)) s
         GROUP BY corpus, user_key, dataset, term HAVING sum(df) <> 0`;
  const stored = [
    ...(await lines(`SELECT concat_ws('|', 'docs', corpus, user_key, dataset, docs, round(total_len::numeric, 2)) AS l FROM bm25_docs`)),
    ...(await lines(storedTerms)),
    ...(await lines(`SELECT concat_ws('|', 'session', user_key, dataset, session_id, chunks, round(len::numeric, 2)) AS l FROM bm25_sessions`)),
  ];
  const docs = (table: string, where: string) =>
    `SELECT concat_ws('|', 'docs', '${table}', coalesce(user_id, ''), dataset, count(*), round(sum(fts_len)::numeric, 2)) AS l FROM ${table} WHERE ${where} GROUP BY user_id, dataset`;
  const terms = (table: string, where: string) =>
    `SELECT concat_ws('|', 'term', '${table}', coalesce(user_id, ''), dataset, term, count(*)) AS l FROM ${table}, unnest(tsvector_to_array(fts)) term WHERE ${where} GROUP BY user_id, dataset, term`;
  const counted = [
    ...(await lines(docs('chunks', 'true'))),
    ...(await lines(docs('memories', `status = 'active'`))),
    ...(await lines(terms('chunks', 'true'))),
    ...(await lines(terms('memories', `status = 'active'`))),
    ...(await lines(`SELECT concat_ws('|', 'session', coalesce(user_id, ''), dataset, session_id, count(*), round(sum(memloom_own_length(fts))::numeric, 2)) AS l
                     FROM chunks WHERE session_id IS NOT NULL GROUP BY user_id, dataset, session_id`)),
  ];
  return { stored: stored.sort(), counted: counted.sort() };
}

async function expectExact(tenant: Tenant): Promise<void> {
  const pending = await statistics(tenant, 'with pending deltas');
  expect(pending.stored.length).toBeGreaterThan(0);
  expect(pending.stored).toEqual(pending.counted);
  // A fold moves every delta into bm25_terms and changes no frequency.
  await sql(tenant, 'SELECT memloom_bm25_fold(1)');
  expect(await sql(tenant, 'SELECT 1 FROM bm25_term_deltas')).toEqual([]);
  const folded = await statistics(tenant, 'folded');
  expect(folded.stored).toEqual(pending.stored);
  expect(folded.stored).toEqual(folded.counted);
  await expectKeyCopy(tenant);
}

/** chunk_keys, which keyword recall reads, holds exactly the chunks' keys and scope columns. */
async function expectKeyCopy(tenant: Tenant): Promise<void> {
  const rows = (table: string) =>
    sql<{ l: string }>(
      tenant,
      `SELECT concat_ws('|', id, tenant_id, dataset, user_id, agent_id, session_id, occurred_at, fts::text, fts_len) AS l FROM ${table} ORDER BY id`,
    );
  const chunks = await rows('chunks');
  expect(chunks.length).toBeGreaterThan(0);
  expect(await rows('chunk_keys')).toEqual(chunks);
}

/** Every chunk key (text and vector) is already what a full rebuild (memloom_refresh_chunk_keys) computes. */
async function expectCanonicalKeys(tenant: Tenant): Promise<void> {
  const keys = () => sql<{ id: string; f: string; v: string | null }>(tenant, 'SELECT id, fts::text AS f, embedding::text AS v FROM chunks ORDER BY id');
  const before = await keys();
  expect(before.length).toBeGreaterThan(0);
  await sql(tenant, `SELECT memloom_refresh_chunk_keys(array_agg(id), 'all') FROM chunks`);
  expect(await keys()).toEqual(before);
  await expectKeyCopy(tenant);
}

const turns = (user: string, session: string, texts: string[], extra: object = {}) =>
  texts.map((content, i) => ({
    user_id: user,
    session_id: session,
    content,
    occurred_at: new Date(Date.UTC(2026, 10, 2, 10, 0, i)).toISOString(),
    metadata: { speaker: i % 2 ? 'Robin' : 'Sasha' },
    ...extra,
  }));

// The same SQL on both databases: embedded PGlite, and a PostgreSQL server (fresh database, Redis
// queues). The server suite (npm run test:server) gives every memloom a server already: one pass.
describe.each(SERVER_MODE ? (['server'] as const) : (['embedded', 'server'] as const))('on %s PostgreSQL', (mode) => {
  let db: ScratchDatabase | undefined;
  beforeAll(async () => {
    db = mode === 'server' && !SERVER_MODE ? await createScratchDatabase('memloom_bm25') : undefined;
    const env = { MEMLOOM_API_KEYS: 'ka:acme,kb:globex', TTL_SWEEP_INTERVAL_MS: '300', ...(db ? { DATABASE_URL: db.url } : {}) };
    m = await startTestMemloom({ env, redis: SERVER_MODE ? undefined : mode === 'server', roles: { workers: QUEUE_NAMES, scheduler: true } });
  }, 180_000);
  afterAll(async () => {
    await m?.close();
    await db?.drop();
  });

  describe('BM25 statistics', () => {
    it('equal a count from scratch after inserts, a correction, a TTL delete and forgets', async () => {
      await ingest(
        'acme',
        turns('u1', 'trip', [
          'We booked the ferry to Helsinki for the conference.',
          'The hotel near the harbour was fully booked.',
          'I prefer window seats on long flights.',
        ]),
      );
      await ingest('acme', turns('u2', 'garden', ['The tomatoes need watering every second day.', 'We planted basil next to the tomatoes.']));
      // Fewer deltas than a fold waits for: recall reads them pending, with the frequencies a fold gives.
      expect((await sql('acme', 'SELECT 1 FROM bm25_term_deltas')).length).toBeGreaterThan(0);
      const weights = (table: 'chunks' | 'memories') =>
        withTenant(m.deps.db, 'acme', (tx) => termWeights(tx, table, { userId: 'u1' }, tok('booked ferry Helsinki window seats tomatoes')));
      const pendingWeights = [await weights('chunks'), await weights('memories')];
      expect(pendingWeights[0]?.find((t) => t.term === tok('booked'))?.df).toBeGreaterThan(0);
      await expectExact('acme');
      expect([await weights('chunks'), await weights('memories')]).toEqual(pendingWeights);
      await expectCanonicalKeys('acme');
      // BM25 ranks on either database (on a server, auto's retrievers run on separate connections).
      for (const recallMode of ['chunks', 'auto']) {
        const r = await postJson(`${m.url}/v1/recall`, { query: 'When is the ferry to Helsinki?', user_id: 'u1', mode: recallMode }, auth('acme'));
        expect(r.status).toBe(200);
        expect((r.body.results as Array<{ content: string }>)[0]?.content, recallMode).toMatch(/ferry/i);
      }

      // A correction supersedes the old version: only active memories count.
      const [memory] = await sql<{ id: string }>('acme', `SELECT id FROM memories WHERE user_id = 'u1' AND status = 'active' ORDER BY created_at LIMIT 1`);
      const res = await fetch(`${m.url}/v1/memories/${memory!.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', ...auth('acme') },
        body: JSON.stringify({ content: 'The user prefers aisle seats on long flights.' }),
      });
      expect(res.status).toBe(200);
      await expectExact('acme');

      // The TTL sweep hard-deletes expired memories.
      const expired = await sql<{ id: string }>('acme', `UPDATE memories SET expires_at = now() - interval '1 second' WHERE user_id = 'u2' RETURNING id`);
      expect(expired.length).toBeGreaterThan(0);
      await waitFor(async () => (await sql<{ n: number }>('acme', `SELECT count(*)::int AS n FROM memories WHERE user_id = 'u2'`))[0]?.n === 0, {
        timeoutMs: 30_000,
        what: 'TTL sweep',
      });
      await expectExact('acme');

      // Forget one event, then a whole session.
      const [, middle] = await sql<{ id: string }>('acme', `SELECT id FROM events WHERE user_id = 'u1' ORDER BY occurred_at`);
      expect((await postJson(`${m.url}/v1/forget`, { event_id: middle!.id }, auth('acme'))).status).toBe(200);
      await expectExact('acme');
      expect((await postJson(`${m.url}/v1/forget`, { session_id: 'garden' }, auth('acme'))).status).toBe(200);
      await expectExact('acme');
      expect(await sql('acme', `SELECT * FROM bm25_sessions WHERE session_id = 'garden'`)).toEqual([]);
    });
  });

  describe('keyword search in a large scope', () => {
    it('preselects through the rare terms only when that gives the rows a scan of every matching row gives', async () => {
      // 2,000 memories of one user: every one says alpha, half beta, a third gamma, a few zeta or eta,
      // and omega / omegb always together (so their rows count twice in the estimate); repetitions
      // vary, so bounds and scores differ between rows.
      await sql(
        'acme',
        `INSERT INTO memories (kind, content, content_hash, fts, user_id, occurred_at, valid_from)
         SELECT 'fact', c, md5(c), to_tsvector('simple', c), 'big', now(), now() FROM (
           SELECT concat_ws(' ', repeat('alpha ', 1 + g % 3), CASE WHEN g % 2 = 0 THEN repeat('beta ', 1 + g % 5) END,
                  CASE WHEN g % 3 = 0 THEN 'gamma' END, CASE WHEN g % 37 = 0 THEN repeat('zeta ', 1 + g % 4) END,
                  CASE WHEN g % 25 = 1 THEN 'eta' END, CASE WHEN g % 16 = 3 THEN 'omega omegb' END, 'filler' || (g % 11), 'row' || g) AS c
           FROM generate_series(1, 2000) g) x`,
      );
      const paths: Record<string, string> = {};
      for (const q of ['alpha gamma eta', 'gamma eta beta alpha', 'omega omegb alpha beta', 'zeta alpha beta', 'alpha beta']) {
        const [fast, full, split] = await withTenant(m.deps.db, 'acme', async (tx) => [
          await keywordSearch(tx, 'memories', { userId: 'big' }, q, 10, 0, { candidates: 'rare-first' }),
          await keywordSearch(tx, 'memories', { userId: 'big' }, q, 10, 0, { candidates: 'all' }),
          rareTerms(await termWeights(tx, 'memories', { userId: 'big' }, q), 200),
        ]);
        paths[q] = split ? split.rare.join(' ') : 'none';
        expect(fast.length, q).toBe(10);
        expect(fast, q).toEqual(full);
      }
      // the rare pass is kept for the first two, falls back on the third (125 rows, counted twice)
      expect(paths).toEqual({
        'alpha gamma eta': 'eta gamma',
        'gamma eta beta alpha': 'eta gamma',
        'omega omegb alpha beta': 'omega omegb',
        'zeta alpha beta': 'none',
        'alpha beta': 'none',
      });
    });

    it('in a chunk scope beyond 8 × the preselection, reads every row with a rare term however old, and of the others the newest only', async () => {
      // 2,000 turns of one user, one a minute: every one says alpha; the oldest 400 say it twice
      // (so a scan of every row ranks them first), and five spread over the history say zeta.
      const base = Date.UTC(2026, 0, 1);
      await sql(
        'acme',
        `WITH src AS (
           SELECT g, concat_ws(' ', CASE WHEN g <= 400 THEN 'alpha alpha' ELSE 'alpha' END, CASE WHEN g % 400 = 7 THEN 'zeta' END, 'row' || g) AS c,
                  to_timestamp(${base / 1000} + g * 60) AS at
           FROM generate_series(1, 2000) g),
         ev AS (
           INSERT INTO events (idem_key, content, content_hash, status, user_id, session_id, occurred_at)
           SELECT 'hist-' || g, c, md5(c), 'done', 'hist', 'hist-' || (g / 100), at FROM src RETURNING id, content, user_id, session_id, occurred_at)
         INSERT INTO chunks (event_id, idx, content, start_offset, end_offset, tokens, content_hash, user_id, session_id, occurred_at, fts)
         SELECT id, 0, content, 0, length(content), 3, md5(content), user_id, session_id, occurred_at, setweight(to_tsvector('simple', content), 'D') FROM ev`,
      );
      const search = (candidates: 'rare-first' | 'all') =>
        withTenant(m.deps.db, 'acme', (tx) => keywordSearch(tx, 'chunks', { userId: 'hist' }, 'alpha zeta', 10, 0, { candidates }));
      const rowOf = async (hits: Array<{ id: string }>) =>
        (
          await sql<{ g: number }>('acme', `SELECT substring(content from 'row([0-9]+)')::int AS g FROM chunks WHERE id = ANY($1::uuid[])`, [
            hits.map((h) => h.id),
          ])
        )
          .map((r) => r.g)
          .sort((a, b) => a - b);
      const zeta = [7, 407, 807, 1207, 1607];
      // A scan of every row: the five zeta rows, then the old rows that say alpha twice.
      const full = await rowOf(await search('all'));
      expect(full.filter((g) => zeta.includes(g))).toEqual(zeta);
      expect(full.filter((g) => !zeta.includes(g)).every((g) => g <= 400)).toBe(true);
      // Bounded: the five zeta rows (the oldest too), then rows among the newest 1,600 only.
      const bounded = await rowOf(await search('rare-first'));
      expect(bounded).toHaveLength(10);
      expect(bounded.filter((g) => zeta.includes(g))).toEqual(zeta);
      expect(bounded.filter((g) => !zeta.includes(g)).every((g) => g > 400)).toBe(true);
      // Their keys are not the pipeline's (no neighbours): the context-key tests below check every key.
      await sql('acme', `DELETE FROM events WHERE user_id = 'hist'`);
    });

    it('splits off the rarest terms that fit the budget, and bounds a row without them by the rest', () => {
      const t = (term: string, df: number, w: number, n = 2000) => ({ term, df, w, avgdl: 5, n });
      expect(rareTerms([t('alpha', 2000, 0.01), t('zeta', 40, 3.6), t('beta', 750, 0.7)], 200)).toEqual({ rare: ['zeta', 'beta'], restBound: 0.01 });
      expect(rareTerms([t('alpha', 2000, 0.01), t('zeta', 240, 2.1), t('nowhere', 0, 7.9)], 200)).toEqual({ rare: ['nowhere', 'zeta'], restBound: 0.01 });
      // rare terms in fewer rows than the preselection keeps, nothing rare enough, everything fits, a small scope: no split
      expect(rareTerms([t('alpha', 2000, 0.01), t('zeta', 40, 3.6), t('nowhere', 0, 7.9)], 200)).toBeUndefined();
      expect(rareTerms([t('alpha', 2000, 0.01), t('beta', 900, 0.5)], 200)).toBeUndefined();
      expect(rareTerms([t('zeta', 240, 2.1), t('beta', 500, 0.7)], 200)).toBeUndefined();
      expect(rareTerms([t('alpha', 1500, 0.01, 1500), t('zeta', 240, 2.1, 1500)], 200)).toBeUndefined();
    });
  });

  describe('context keys', () => {
    /** The lexemes of a chunk's key by part: own text (D), time and speaker (A), previous (C), next and second previous (B). */
    async function keyParts(tenant: Tenant, content: string): Promise<Record<'own' | 'meta' | 'prev' | 'next', string[]>> {
      const [row] = await sql<Record<string, string[]>>(
        tenant,
        `SELECT tsvector_to_array(ts_filter(fts, '{d}')) AS own, tsvector_to_array(ts_filter(fts, '{a}')) AS meta,
                tsvector_to_array(ts_filter(fts, '{c}')) AS prev, tsvector_to_array(ts_filter(fts, '{b}')) AS next
         FROM chunks WHERE content = $1`,
        [content],
      );
      expect(row, content).toBeDefined();
      return row as Record<'own' | 'meta' | 'prev' | 'next', string[]>;
    }

    it('carry the previous and next turn of the same session, user and tenant, also when the next arrives later, and lose a forgotten one', async () => {
      // The same session id for two users and in two tenants, and a second session of the user.
      await ingest('acme', turns('ann', 's1', ['alphaone opens the session']));
      await ingest('acme', turns('bob', 's1', ['bravoone from another user']));
      await ingest('globex', turns('ann', 's1', ['charlieone in another tenant']));
      await ingest('acme', [
        { user_id: 'ann', session_id: 's2', content: 'deltaone in another session', occurred_at: new Date(Date.UTC(2026, 10, 2, 10, 0, 1)).toISOString() },
      ]);
      expect((await keyParts('acme', 'alphaone opens the session')).next).toEqual([]);

      // Turns arrive one by one; the first turn's key gains the second as its next turn.
      const [second] = await ingest('acme', [{ ...turns('ann', 's1', ['', 'alphatwo replies'])[1] }]);
      await ingest('acme', [{ ...turns('ann', 's1', ['', '', 'alphathree closes'])[2] }]);
      const first = await keyParts('acme', 'alphaone opens the session');
      expect(first.next).toContain(tok('alphatwo'));
      // Stemmed as the query's words are ("Monday" meets "mondai"), unlike the raw words a rebuild once took from the event.
      expect(first.meta).toEqual(expect.arrayContaining(['november', '2026', 'monday', 'sasha'].map(tok)));
      expect(first.meta).toContain('mondai');
      const middle = await keyParts('acme', 'alphatwo replies');
      expect(middle.prev).toContain(tok('alphaone'));
      expect(middle.next).toContain(tok('alphathree'));
      // The last turn's key holds the turn before it and, weighted as a next turn, the one before that.
      const last = await keyParts('acme', 'alphathree closes');
      expect(last.prev).toEqual([tok('alphatwo'), tok('replies')].sort());
      expect(last.next).toEqual([tok('alphaone'), tok('opens'), tok('session')].sort());

      const everyKey = async (t: Tenant) =>
        (await sql<{ content: string; words: string[] }>(t, 'SELECT content, tsvector_to_array(fts) AS words FROM chunks')).map((r) => ({
          ...r,
          words: r.words.join(' '),
        }));
      for (const { content, words } of await everyKey('acme')) {
        if (content.startsWith('alpha')) expect(words, content).not.toMatch(/bravo|charlie|delta/);
        if (content.startsWith('bravo')) expect(words, content).not.toMatch(/alpha|charlie|delta/);
        if (content.startsWith('delta')) expect(words, content).not.toMatch(/alpha|bravo|charlie/);
      }
      for (const { words } of await everyKey('globex')) expect(words).not.toMatch(/alpha|bravo|delta/);

      // Forgetting the middle turn takes its text out of its neighbours' keys, which now meet.
      expect((await postJson(`${m.url}/v1/forget`, { event_id: second }, auth('acme'))).status).toBe(200);
      const after = await keyParts('acme', 'alphaone opens the session');
      expect(after.next).toContain(tok('alphathree'));
      expect([...after.own, ...after.prev, ...after.next, ...after.meta]).not.toContain(tok('alphatwo'));
      expect((await keyParts('acme', 'alphathree closes')).prev).toContain(tok('alphaone'));
      expect((await keyParts('acme', 'alphathree closes')).next).toEqual([]);
      await expectExact('acme');
    });

    it('are written finished: a full rebuild changes none, also after turns arriving out of order and several of a session in one batch', async () => {
      const at = (ms: number) => new Date(Date.UTC(2026, 10, 3, 9, 0, 0) + ms).toISOString();
      const turn = (content: string, ms: number, speaker = 'Kim') => ({
        user_id: 'cat',
        session_id: 's3',
        content,
        occurred_at: at(ms),
        metadata: { speaker },
      });
      await ingest('acme', [turn('echoone first', 0), turn('echothree third', 3000), turn('echofive fifth', 5000, 'Lee')]);
      // Late arrivals between existing turns, one batch: each lands between two and next to another new one.
      await ingest('acme', [turn('echotwo second', 2000, 'Lee'), turn('echotwohalf second and a half', 2500), turn('echofour fourth', 4000)]);
      await ingest('acme', [turn('echozero before all', -1000)]);
      expect((await keyParts('acme', 'echoone first')).prev).toContain(tok('echozero'));
      expect((await keyParts('acme', 'echoone first')).next).toContain(tok('echotwo'));
      expect((await keyParts('acme', 'echothree third')).prev).toContain(tok('echotwohalf'));
      expect((await keyParts('acme', 'echothree third')).next).toContain(tok('echofour'));
      expect((await keyParts('acme', 'echofive fifth')).prev).toContain(tok('echofour'));
      // The second previous turn, across late arrivals: echotwo before echotwohalf before echothree.
      expect((await keyParts('acme', 'echothree third')).next).toContain(tok('echotwo'));
      expect((await keyParts('acme', 'echofour fourth')).next).toContain(tok('echotwohalf'));
      expect((await keyParts('acme', 'echoone first')).next).not.toContain(tok('echothree'));
      await expectCanonicalKeys('acme');
      await expectExact('acme');
    });
  });

  describe('a tokenizer upgrade', () => {
    it('rewrites every full-text key written by an older tokenizer to what the pipeline writes now, statistics exact, once', async () => {
      await ingest(
        'globex',
        turns('dee', 'kitchen', [
          'Melanie painted a sunset on Monday.',
          'Her paintings of sunsets are supportive gifts.',
          'Caroline researched adoption agencies.',
        ]),
      );
      const keys = async () => ({
        chunks: await sql(tenantOf, 'SELECT id, fts::text AS f FROM chunks ORDER BY id'),
        memories: await sql(tenantOf, 'SELECT id, fts::text AS f FROM memories ORDER BY id'),
        entities: await sql(tenantOf, 'SELECT id, fts::text AS f FROM entities ORDER BY id'),
        edges: await sql(tenantOf, 'SELECT id, fts::text AS f FROM edges ORDER BY id'),
      });
      const now = await keys();
      expect(now.chunks.length).toBeGreaterThan(0);
      expect(now.memories.length).toBeGreaterThan(0);
      // Keys as an older tokenizer wrote them: unstemmed words, the time and speaker words raw.
      await sql(
        tenantOf,
        `UPDATE chunks c SET fts = to_tsvector('simple', c.content)
           || setweight(to_tsvector('simple', concat_ws(' ', to_char(c.occurred_at AT TIME ZONE 'UTC', 'FMmonth YYYY FMday'), e.metadata->>'speaker')), 'A')
         FROM events e WHERE e.id = c.event_id`,
      );
      await sql(tenantOf, `SELECT memloom_refresh_chunk_keys(array_agg(id), 'fts') FROM chunks`);
      await sql(tenantOf, `UPDATE memories SET fts = to_tsvector('simple', content)`);
      await sql(tenantOf, `UPDATE entities SET fts = to_tsvector('simple', name)`);
      await sql(tenantOf, `UPDATE edges SET fts = to_tsvector('simple', relation)`);
      expect(await keys()).not.toEqual(now);
      const owner = new pg.Client({ connectionString: m.deps.dbUrl });
      await owner.connect();
      try {
        await owner.query(`UPDATE memloom_settings SET value = 'light-1' WHERE name = 'fts_keys'`);
        const rewritten = await upgradeFullTextKeys(owner);
        expect(rewritten).toBeGreaterThanOrEqual(now.chunks.length + now.memories.length);
        expect(await keys()).toEqual(now);
        await expectExact(tenantOf);
        await expectCanonicalKeys(tenantOf);
        // Recorded: the next start rewrites nothing.
        expect((await owner.query('SELECT value FROM memloom_settings WHERE name = $1', ['fts_keys'])).rows[0]?.value).toBe(FTS_KEYS_VERSION);
        expect(await upgradeFullTextKeys(owner)).toBe(0);
      } finally {
        await owner.end();
      }
      // A stemmed query finds the rewritten keys: "painting" meets "painted" and "paintings".
      const r = await postJson(`${m.url}/v1/recall`, { query: 'Who likes painting?', user_id: 'dee', mode: 'chunks' }, auth(tenantOf));
      expect(r.status).toBe(200);
      expect(
        (r.body.results as Array<{ content: string }>)
          .slice(0, 2)
          .map((x) => x.content)
          .sort(),
      ).toEqual(['Her paintings of sunsets are supportive gifts.', 'Melanie painted a sunset on Monday.']);
    });
  });
});
