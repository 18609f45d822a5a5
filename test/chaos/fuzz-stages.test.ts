import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_ROLES, EVENT_TYPES, validateEvents } from '../../src/events/schema.js';
import { startTestMemloom, waitFor, type TestMemloom } from '../support/memloom.js';
import { ingest, sql } from '../support/pipeline.js';

/**
 * Property over the stages themselves (not the HTTP boundary, which fuzz-http.test.ts covers):
 * generated hostile-but-valid events — huge, odd Unicode, dates in odd notations, code, nested
 * markup, very long words, many sentences, control and other characters next to what
 * toStorable handles, numbers everywhere — are stored as the API stores them and go through the
 * real triage, chunk, embed and extract workers (offline heuristic extractor, PGlite, BullMQ's
 * PostgreSQL backend). Every event ends `done` or `skipped`; no job fails, none is dead-lettered.
 * Seeded and bounded (FUZZ_STAGE_EVENTS, FUZZ_SEED); a failure prints the seed to replay it.
 */
const EVENTS = Number(process.env.FUZZ_STAGE_EVENTS ?? 150);

const word = fc.stringMatching(/^[A-Za-z][a-z]{1,9}$/);
const name = word.map((w) => `${w[0]?.toUpperCase()}${w.slice(1)}`);
const int = fc.oneof(fc.integer(), fc.integer({ min: 0, max: 99 }), fc.constantFrom(0, -1, 2 ** 31, 2 ** 53, Number.MAX_SAFE_INTEGER, 1e21));

/** A date as people and programs write them, in range or far out of it. */
const date = fc.oneof(
  fc
    .tuple(fc.integer({ min: -999_999, max: 999_999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }))
    .chain(([y, m, d]) =>
      fc.constantFrom(
        `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`,
        `${y < 0 ? '-' : '+'}${String(Math.abs(y)).padStart(6, '0')}-01-01T00:00:00Z`,
        `${d}/${m}/${y}`,
        `${m}/${d}/${Math.abs(y)}`,
        `${Math.abs(y)} BC`,
        `the year ${y}`,
        `March ${d}, ${y}`,
        `${d} June ${Math.abs(y)}`,
        `${Math.abs(y)}年${m}月${d}日`,
        `${String(Math.abs(y) % 10000).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}T23:59:59${d % 2 ? '+14:00' : '-14:00'}`,
      ),
    ),
  fc.bigInt({ min: 0n, max: 2n ** 64n }).map((n) => `${n} seconds since the epoch`),
  fc.constantFrom('yesterday', 'last week', '999 years ago', 'next month', '前天', '0000-01-01', '9999-12-31T23:59:59-14:00', '294277-01-01'),
);

/** Characters next to the ones storage refuses (NUL, lone surrogates): controls, specials, marks. */
const oddChar = fc.constantFrom(
  '\u0001',
  '\u0008',
  '\u000b',
  '\u001b[0m',
  '\u007f',
  '\u0085',
  '\u00a0',
  '\u200b',
  '\u200d',
  '\u2028',
  '\u202e',
  '\ufeff',
  '\ufffd',
  '\ufffe',
  '\uffff',
  '\u0301',
  '😀',
  '👩‍💻',
  '🏳️‍🌈',
  '𠀀',
);

const sentence = fc.oneof(
  fc.tuple(name, name).map(([a, b]) => `I prefer ${a} over ${b}.`),
  fc.tuple(name, name, date).map(([a, b, d]) => `We decided to use ${a} for ${b} on ${d}.`),
  fc.tuple(name, name).map(([a, b]) => `${a} works at ${b} and lives in ${a}ville.`),
  fc.tuple(name, int, int).map(([a, x, y]) => `${a} costs ${x} and weighs ${y}e${x % 400} units, or NaN, or -0.`),
  fc.tuple(date, name).map(([d, a]) => `On ${d} ${a} said it happened ${d}.`),
  fc.array(fc.oneof(word, int.map(String), oddChar), { minLength: 1, maxLength: 20 }).map((w) => `${w.join(' ')}.`),
);

const code = fc
  .tuple(word, int)
  .map(([w, n]) => `\`\`\`ts\nexport async function ${w}(x: number): Promise<number> {\n  return x * ${n} /* ${w} */ ?? NaN; // TODO: 2026-02-30\n}\n\`\`\``);
const markup = fc
  .tuple(fc.integer({ min: 1, max: 200 }), sentence)
  .map(([depth, s]) =>
    depth % 2 === 0 ? `${'<div><b>'.repeat(depth)}${s}${'</b></div>'.repeat(depth)}` : `${'> - **['.repeat(depth)}${s}${'](x)**'.repeat(depth)}`,
  );
const longWord = fc.tuple(fc.constantFrom('a', 'Ω', '長', '😀', 'ab', '0'), fc.integer({ min: 300, max: 40_000 })).map(([c, n]) => c.repeat(n));
const manySentences = fc.array(sentence, { minLength: 20, maxLength: 400 }).map((s) => s.join(' '));
const oddUnicode = fc.string({ unit: 'binary', minLength: 1, maxLength: 200 });

const piece = fc.oneof(
  { weight: 6, arbitrary: sentence },
  { weight: 2, arbitrary: code },
  { weight: 2, arbitrary: markup },
  { weight: 1, arbitrary: longWord },
  { weight: 2, arbitrary: manySentences },
  { weight: 2, arbitrary: oddUnicode },
  { weight: 2, arbitrary: oddChar },
  { weight: 2, arbitrary: date },
);
const separator = fc.constantFrom(' ', '\n', '\n\n', '\r\n', '\t', '', '. ', '\u2029', ' \u0001 ');
const content = fc.oneof(
  { weight: 12, arbitrary: fc.array(fc.tuple(piece, separator), { minLength: 1, maxLength: 8 }).map((ps) => ps.flat().join('')) },
  // A huge one now and then: up to ~300 kB (the 1 MiB case is large-event.test.ts).
  { weight: 1, arbitrary: fc.tuple(manySentences, fc.integer({ min: 50, max: 300 })).map(([s, n]) => `${s} `.repeat(Math.ceil((n * 1000) / (s.length + 1)))) },
);

const event = fc.record(
  {
    content,
    type: fc.constantFrom(...EVENT_TYPES),
    role: fc.constantFrom(...EVENT_ROLES),
    user_id: fc.constantFrom('fz-1', 'fz-2', 'fz-3'),
    session_id: fc.constantFrom('fs-1', 'fs-2', 'fs-3', 'fs-4'),
    occurred_at: fc.constantFrom('0001-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '1970-01-01T00:00:00Z', '2026-02-28T23:59:59+14:00'),
    ttl: fc.constantFrom('P1D', 'P9999999Y', 'PT0S', 'P999999M'),
    importance: fc.integer({ min: 1, max: 10 }),
    metadata: fc.record({ speaker: fc.oneof(name, oddUnicode) }),
  },
  { requiredKeys: ['content'] },
);

describe('hostile but valid events through the stages', () => {
  let m: TestMemloom;
  beforeAll(async () => {
    m = await startTestMemloom({
      env: { EXTRACT_DEBOUNCE_MS: '100', EXTRACT_MAX_WAIT_MS: '2000' },
      roles: { api: true, workers: ['triage', 'chunk', 'embed', 'extract'] },
    });
  });
  afterAll(async () => m?.close());

  it(`takes every one of ${EVENTS} generated events to done or skipped, with no failed job`, async () => {
    const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
    try {
      // Valid by the boundary's own rules: what an agent may legitimately send.
      const sampled = fc.sample(event, { numRuns: EVENTS, seed });
      const events = validateEvents(sampled).valid.map((v) => sampled[v.index] as object);
      expect(events.length).toBeGreaterThan(EVENTS / 2);
      // Stored as POST /v1/events stores them, then handed to the queue as the API does.
      for (let i = 0; i < events.length; i += 25) {
        const ids = await ingest(m.deps, events.slice(i, i + 25));
        m.deps.dispatcher.submit('default', ids);
      }
      await waitFor(
        async () =>
          (await sql<{ n: number }>(m.deps.db, `SELECT count(*)::int AS n FROM events WHERE status NOT IN ('done', 'skipped', 'failed')`))[0]?.n === 0,
        { timeoutMs: 400_000, intervalMs: 500, what: 'every generated event to be processed' },
      );
      const statuses = await sql<{ status: string; n: number }>(m.deps.db, 'SELECT status, count(*)::int AS n FROM events GROUP BY 1 ORDER BY 1');
      expect(statuses.filter((s) => s.status !== 'done' && s.status !== 'skipped')).toEqual([]);
      expect(statuses.reduce((n, s) => n + s.n, 0)).toBe(events.length);
      expect(await sql(m.deps.db, `SELECT queue, code, message FROM dead_letters`)).toEqual([]);
      const failed = await Promise.all(
        (['triage', 'chunk', 'embed', 'extract'] as const).map(async (q) => (await m.deps.queues.get(q).getJobCounts('failed')).failed),
      );
      expect(failed).toEqual([0, 0, 0, 0]);
    } catch (err) {
      console.error(`fuzz-stages failed with FUZZ_SEED=${seed} FUZZ_STAGE_EVENTS=${EVENTS}`);
      throw err;
    }
  }, 600_000);
});
