import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMemloom, waitFor, type TestMemloom } from '../support/memloom.js';
import { sql } from '../support/pipeline.js';
import { hostileBody, hostileString } from './hostile.js';

/**
 * Property over the events directory: every non-blank line of a file, whatever its bytes, ends as
 * exactly one stored event or exactly one dead letter naming its file and line, lines after a bad
 * one are still read, and every stored event goes through the pipeline without a failed job.
 */
const LINES = Number(process.env.FUZZ_LINES ?? 400);

const goodLine = fc
  .record({
    content: hostileString.filter((s) => s.trim() !== '' && !s.includes('\u0000') && !/[\uD800-\uDFFF]/u.test(s) && s.length < 20_000),
    user_id: fc.constantFrom('u1', 'u2'),
  })
  .map((e) => Buffer.from(JSON.stringify({ ...e, type: 'note' })));
const anyLine = fc.oneof({ weight: 2, arbitrary: goodLine }, { weight: 3, arbitrary: hostileBody });

describe('hostile lines in the events directory', () => {
  let m: TestMemloom;
  beforeAll(async () => {
    m = await startTestMemloom({
      env: { EXTRACT_DEBOUNCE_MS: '100', EXTRACT_MAX_WAIT_MS: '2000' },
      roles: { api: true, watcher: true, workers: ['triage', 'chunk', 'embed', 'extract'] },
    });
  });
  afterAll(async () => m?.close());

  it(`accounts for each of ${LINES} generated lines exactly once and fails no job`, async () => {
    const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
    // No raw \\n inside a line (it would be two lines); a line's own bytes are otherwise anything.
    const lines = fc.sample(anyLine, { numRuns: LINES, seed }).map((b) => Buffer.from(b.map((x) => (x === 0x0a ? 0x20 : x))));
    lines.push(Buffer.from(JSON.stringify({ content: 'the sentinel after everything' })));
    await mkdir(m.eventsDir, { recursive: true });
    const file = path.join(m.eventsDir, 'fuzz.jsonl');
    await appendFile(file, Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')])));
    const relevant = lines
      .map((l, i) => ({ n: i + 1, blank: l.toString('latin1').trim() === '' }))
      .filter((l) => !l.blank)
      .map((l) => l.n);
    await waitFor(async () => (await sql(m.deps.db, `SELECT 1 FROM events WHERE content = 'the sentinel after everything'`)).length === 1, {
      timeoutMs: 300_000,
      what: 'the line after every hostile one',
    });

    const stored = await sql<{ line: number; n: number }>(
      m.deps.db,
      `SELECT split_part(source_ref, ':', 2)::int AS line, count(*)::int AS n FROM events WHERE source = 'file' GROUP BY 1`,
    );
    const dead = await sql<{ line: number; n: number; file: string }>(
      m.deps.db,
      `SELECT line::int AS line, count(*)::int AS n, min(file) AS file FROM dead_letters WHERE source = 'file' GROUP BY line`,
    );
    const seen = new Map<number, string[]>();
    for (const s of stored) seen.set(s.line, [...(seen.get(s.line) ?? []), ...Array(s.n).fill('event')]);
    for (const d of dead) seen.set(d.line, [...(seen.get(d.line) ?? []), ...Array(d.n).fill(`dead:${d.file}`)]);
    const wrong = relevant
      .filter((n) => (seen.get(n) ?? []).length !== 1)
      .map((n) => ({ line: n, outcome: seen.get(n) ?? [], text: lines[n - 1]?.toString('latin1').slice(0, 120) }));
    process.stderr.write(`fuzz-lines: ${lines.length} lines, seed ${seed}: ${stored.length} stored, ${dead.length} dead-lettered\n`);
    expect(wrong, `seed ${seed}`).toEqual([]);
    expect(dead.every((d) => d.file === 'fuzz.jsonl')).toBe(true);

    // Every stored event finishes: no job fails on content that passed the boundary.
    const stuck = () =>
      sql<{ status: string; n: number; len: number }>(
        m.deps.db,
        `SELECT status, count(*)::int AS n, sum(length(content))::int AS len FROM events WHERE status NOT IN ('done', 'skipped', 'failed') GROUP BY status`,
      );
    await waitFor(async () => (await stuck()).length === 0, { timeoutMs: 600_000, intervalMs: 500, what: 'every stored line to be processed' }).catch(
      async (err: Error) => {
        throw new Error(`${err.message}: ${JSON.stringify(await stuck())}`);
      },
    );
    expect(await sql(m.deps.db, `SELECT queue, message FROM dead_letters WHERE source = 'job'`)).toEqual([]);
    expect(await sql(m.deps.db, `SELECT id FROM events WHERE status = 'failed'`)).toEqual([]);
  }, 900_000);
});
