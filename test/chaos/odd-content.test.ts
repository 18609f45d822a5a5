import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMemloom, waitFor, type TestMemloom } from '../support/memloom.js';
import { apiStats, postEvents, sql } from '../support/pipeline.js';

/**
 * Unusual but valid content goes through every stage (offline providers) and ends `done` or
 * `skipped`: no job fails, none is dead-lettered, nothing stays pending. Content that used to end
 * as "Internal error." extraction failures is in here.
 */
const MB_LINE = 'x'.repeat(1024 * 1024 - 64);
const ODD: string[] = [
  '🔥🔥🔥🔥🔥',
  '👩‍👩‍👧‍👦👩‍👩‍👧‍👦 🏳️‍🌈',
  '😀'.repeat(5000),
  'مرحبا، نحن نستخدم PostgreSQL لتخزين الذاكرة طويلة الأمد.',
  'שלום! אנחנו משתמשים ב-Redis כתור עבודות.',
  '我们决定使用 PostgreSQL 作为长期记忆的存储。Redis 负责队列。',
  '東京で会議があります。来週、田中さんと打ち合わせます。',
  '한국어 문장입니다. 우리는 내일 배포합니다.',
  '\u200b\u200b\u200b',
  '\u00a0 \u2003 \u3000',
  '...',
  '!!!???',
  '\u202eevil rtl override\u202c and more',
  'ZWJ\u200dinside\u200dwords and combining a\u0301e\u0301',
  '```ts\nconst x: Record<string, unknown> = { a: 1 }; // TODO\nfunction f(a, b) { return a && b || !a; }\n```',
  "SELECT * FROM memories WHERE content LIKE '%\\_%' ESCAPE '\\'; -- don't",
  'a:* & b | !c <-> (d) \\ \' " %',
  `We decided ${'very '.repeat(3000)}long decision about PostgreSQL.`,
  MB_LINE,
  `${'Ω'.repeat(200_000)} The meeting is on Friday.`,
  `${'word'.repeat(600)} is one long token and Alice prefers Grafana.`,
  `${'Alice'.repeat(100)} decided to use ${'Postgre'.repeat(100)}.`,
  `Entity ${'Ä'.repeat(400)} works at ${'Ü'.repeat(400)} Corporation.`,
  '\t\t\t',
  'ok',
  'I prefer 🍕 over 🍔 and I decided to use 🐘 PostgreSQL.',
  'Tab\tseparated\tvalues\nand\r\nCRLF lines\u0085NEL\u2028LS',
  '\u001b[31mred ANSI\u001b[0m output from a tool',
  `${'\u{1F600}'.repeat(30)}${'a'.repeat(199)}\u{1F600}end`,
];

describe('unusual but valid content through the whole pipeline', () => {
  let m: TestMemloom;
  beforeAll(async () => {
    m = await startTestMemloom({ env: { EXTRACT_DEBOUNCE_MS: '100' }, roles: { api: true, workers: ['triage', 'chunk', 'embed', 'extract', 'briefing'] } });
  });
  afterAll(async () => m?.close());

  it('ends every event done or skipped, with no failed job and no dead letter', async () => {
    const types = ['message', 'note', 'document', 'decision', 'tool_result'];
    const events = ODD.flatMap((content, i) => [
      { session_id: `odd-${i % 4}`, user_id: 'u-odd', role: 'user', type: types[i % types.length], content },
      // the same content without a session: extracted per user, and as a document on its own
      { user_id: `u-odd-${i % 3}`, type: i % 2 === 0 ? 'document' : 'message', content },
    ]);
    await postEvents(m.url, events, 4);
    await waitFor(async () => (await apiStats(m.url)).pending_events === 0, { timeoutMs: 600_000, intervalMs: 500, what: 'every odd event to be processed' });
    const statuses = await sql<{ status: string; n: number }>(m.deps.db, 'SELECT status, count(*)::int AS n FROM events GROUP BY status ORDER BY status');
    expect(statuses.filter((s) => s.status !== 'done' && s.status !== 'skipped')).toEqual([]);
    // whitespace-only content is refused at the boundary (400 for that event); everything else is stored
    expect(statuses.reduce((n, s) => n + s.n, 0)).toBe(events.filter((e) => e.content.trim() !== '').length);
    const dead = await sql<{ queue: string; message: string }>(m.deps.db, `SELECT queue, message FROM dead_letters WHERE source = 'job'`);
    expect(dead).toEqual([]);
    const failed = await Promise.all(
      ['triage', 'chunk', 'embed', 'extract', 'briefing'].map(async (q) => (await m.deps.queues.get(q as 'triage').getJobCounts('failed')).failed),
    );
    expect(failed).toEqual([0, 0, 0, 0, 0]);
    // Job payloads and results carry ids, not content: no job of any queue holds an event's text.
    const distinctive = ODD.filter((c) => c.trim().length >= 12);
    for (const q of ['triage', 'chunk', 'embed', 'extract', 'briefing'] as const) {
      const jobs = await m.deps.queues.get(q).getJobs(['completed', 'waiting', 'delayed', 'active', 'failed'], 0, 10_000);
      for (const job of jobs) {
        const json = JSON.stringify({ data: job?.data, returnvalue: job?.returnvalue });
        expect(
          distinctive.filter((c) => json.includes(JSON.stringify(c).slice(1, 41))),
          `${q} job ${job?.id}`,
        ).toEqual([]);
      }
    }
    // Each event's chunks cover its content exactly (offsets slice the event).
    // (in JavaScript: offsets count UTF-16 code units, PostgreSQL's substr counts code points)
    const rows = await sql<{ id: string; content: string; chunks: Array<{ s: number; e: number; c: string }> }>(
      m.deps.db,
      `SELECT e.id, e.content, json_agg(json_build_object('s', c.start_offset, 'e', c.end_offset, 'c', c.content)) AS chunks FROM events e JOIN chunks c ON c.event_id = e.id GROUP BY e.id, e.content`,
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((r) => r.chunks.some((c) => r.content.slice(c.s, c.e) !== c.c)).map((r) => r.id)).toEqual([]);
  }, 900_000);
});
