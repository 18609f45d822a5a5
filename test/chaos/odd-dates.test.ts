import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../../src/db/migrator.js';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from '../support/memloom.js';
import { asDatabaseOwner } from '../support/owner-sql.js';
import { apiStats, sql } from '../support/pipeline.js';

/**
 * Times PostgreSQL or JavaScript cannot hold, in every place an event carries one: dates in its
 * text in unusual notations (year 300000, 10/10/99999, 6-digit ISO years, BC, 2^53 epoch seconds),
 * `occurred_at` at the ends of the range, TTLs of millions of years, and a stored event from before
 * the boundary checked (year 0 in UTC). Every event ends `done`, no job fails, and the rows it left
 * read back and export. They used to fail whole chunk batches ("date/time field value out of
 * range") and extraction ("timestamp out of range", 15 attempts).
 */
const CONTENTS = [
  'We met in the year 300000 and decided to use Redis for the queue.',
  'The deadline for the Apollo launch is 10/10/99999, Alice decided.',
  'Released on +300000-01-01T00:00:00Z and again on 275760-09-13T00:00:00Z.',
  'In 500 BC we decided to use Rome as the capital; born -000500-01-01.',
  'It happened 9007199254740992 seconds after the epoch, I decided to use Kafka.',
  'Meeting on 9999-12-31T23:59:59-14:00 with Alice about PostgreSQL.',
  'Meeting on 0001-01-01T00:00:00+14:00 with Bob about Redis.',
  'On March 3, 275760 we moved to Mars. I prefer 2 June 300000 over June 2 1999.',
  'That was 999 years ago and 999 months ago; I decided to use Grafana last week.',
  '99999年1月1日我们决定使用 PostgreSQL。2026年13月45日也是。',
];

describe('times outside the stored range', () => {
  let m: TestMemloom;
  beforeAll(async () => {
    m = await startTestMemloom({ env: { EXTRACT_DEBOUNCE_MS: '100' }, roles: { api: true, workers: ['triage', 'chunk', 'embed', 'extract', 'briefing'] } });
  });
  afterAll(async () => m?.close());

  it('are refused at the boundary or dropped on the way, and every event ends done', async () => {
    const variants: Array<{ occurred_at?: string; ttl?: string }> = [
      {},
      { occurred_at: '0001-01-01T00:00:00Z', ttl: 'P9999999Y' },
      { occurred_at: '9999-12-31T23:59:59Z', ttl: 'P1D' },
      { ttl: 'P999999M' },
      { occurred_at: '1900-01-01T00:00:00+14:00', ttl: 'P7000Y' },
    ];
    const events: Array<Record<string, string>> = CONTENTS.flatMap((content, i) =>
      variants.map((v, j) => ({ user_id: `u-date-${j}`, session_id: `date-${i}-${j}`, content, ...v })),
    );
    // In range as written, out of it in UTC: refused, and the rest of the batch is stored.
    events.push({ user_id: 'u-date-x', session_id: 'date-x', content: 'The offset carries this to year 0.', occurred_at: '0001-01-01T00:00:00+14:00' });
    const post = await postJson(`${m.url}/v1/events`, { events });
    expect(post.status).toBe(202);
    expect(post.body.accepted).toBe(events.length - 1);
    expect(post.body.error.details).toEqual([
      { index: events.length - 1, path: 'occurred_at', message: expect.stringMatching(/between 0001-01-01 and 9999-12-31/) },
    ]);

    // A row stored before the boundary checked the range: year 0 in UTC, a TTL past 294276 AD,
    // which the upgrade's migration drops.
    const [legacy] = await sql<{ id: string }>(
      m.deps.db,
      `INSERT INTO events (idem_key, dataset, user_id, session_id, type, content, content_hash, occurred_at, ttl, source)
       VALUES ('legacy-year-0', 'default', 'u-date-legacy', 'date-legacy', 'message', 'We decided to use PostgreSQL last week.', 'legacy', '0001-01-01T00:00:00+14:00', '9999999 years', 'http')
       RETURNING id`,
    );
    await asDatabaseOwner(m.deps, await readFile(path.join(MIGRATIONS_DIR, '20261207010000_bounded_ttl', 'migration.sql'), 'utf8'));
    expect(await sql(m.deps.db, `SELECT ttl FROM events WHERE idem_key = 'legacy-year-0'`)).toEqual([{ ttl: null }]);
    m.deps.dispatcher.submit('default', [legacy?.id as string]);

    await waitFor(
      async () => {
        const s = await apiStats(m.url);
        return s.pending_events === 0 && s.objects.events === events.length; // the refused one out, the legacy one in
      },
      { timeoutMs: 240_000, intervalMs: 250, what: 'every event to be processed' },
    );
    expect(await sql(m.deps.db, `SELECT status, count(*)::int AS n FROM events WHERE status NOT IN ('done', 'skipped') GROUP BY 1`)).toEqual([]);
    expect(await sql(m.deps.db, 'SELECT queue, code, message FROM dead_letters')).toEqual([]);
    const failed = await Promise.all(
      (['triage', 'chunk', 'embed', 'extract', 'briefing'] as const).map(async (q) => (await m.deps.queues.get(q).getJobCounts('failed')).failed),
    );
    expect(failed).toEqual([0, 0, 0, 0, 0]);
    // A TTL that would expire past 9999-12-31 means no expiry; one that fits is kept.
    expect(await sql(m.deps.db, `SELECT DISTINCT ttl IS NULL AS dropped FROM events WHERE user_id IN ('u-date-1', 'u-date-3')`)).toEqual([{ dropped: true }]);
    expect(await sql(m.deps.db, `SELECT DISTINCT ttl::text AS ttl FROM events WHERE user_id = 'u-date-4'`)).toEqual([{ ttl: '7000 years' }]);
    // Every time derived from them is one both sides write alike (no 0000-… or +YYYYYY); only the
    // legacy event's chunk keeps its event's time.
    const outside = await sql<{ what: string }>(
      m.deps.db,
      `SELECT what FROM (
         SELECT 'memory event_time' AS what, event_time AS t FROM memories UNION ALL SELECT 'memory occurred_at', occurred_at FROM memories
         UNION ALL SELECT 'memory expires_at', expires_at FROM memories UNION ALL SELECT 'edge valid_at', valid_at FROM edges
         UNION ALL SELECT 'chunk ' || e.idem_key, c.occurred_at FROM chunks c JOIN events e ON e.id = c.event_id) x
       WHERE t < timestamptz '0001-01-01 00:00:00+00' OR t > timestamptz '9999-12-31 23:59:59.999+00'`,
    );
    expect(outside).toEqual([{ what: 'chunk legacy-year-0' }]);
    expect((await sql<{ n: number }>(m.deps.db, 'SELECT count(*)::int AS n FROM memories'))[0]?.n).toBeGreaterThan(10);

    // What they left reads back and exports.
    for (const user of ['u-date-0', 'u-date-1', 'u-date-2', 'u-date-legacy']) {
      for (const mode of ['chunks', 'memories', 'graph', 'auto']) {
        const r = await postJson(`${m.url}/v1/recall`, { user_id: user, query: 'which database did we decide to use?', mode });
        expect(r.status, `${user} ${mode}`).toBe(200);
      }
      expect((await getJson(`${m.url}/v1/memories?user_id=${user}`)).status).toBe(200);
    }
    const exported = await fetch(`${m.url}/v1/export`);
    expect(exported.status).toBe(200);
    expect((await exported.text()).split('\n').filter((l) => l.trim() !== '').length).toBeGreaterThan(events.length);
  }, 400_000);
});
