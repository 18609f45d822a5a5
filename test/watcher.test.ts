import { appendFile, mkdir, mkdtemp, rename, rm, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../src/db/pool.js';
import { insertFileDeadLetters } from '../src/db/sql/dead-letters.js';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';
import { triageJobsHolding } from './support/pipeline.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const line = (event: Record<string, unknown>) => `${JSON.stringify(event)}\n`;
const lines = (prefix: string, n: number, from = 0) => Array.from({ length: n }, (_, i) => line({ content: `${prefix} ${from + i}` })).join('');

async function query<T = Record<string, unknown>>(m: TestMemloom, tenant: string, sql: string, params: unknown[] = []): Promise<T[]> {
  return withTenant(m.deps.db, tenant, async (tx) => (await tx.query(sql, params)).rows as T[]);
}

/** Events stored from one file (source_ref is `<path relative to EVENTS_DIR>:<line>`). */
async function fromFile(m: TestMemloom, rel: string, tenant = 'default'): Promise<Array<{ line: number; content: string }>> {
  return query(m, tenant, `SELECT split_part(source_ref, ':', 2)::int AS line, content FROM events WHERE source_ref LIKE $1 || ':%' ORDER BY 1`, [rel]);
}

async function countFromFile(m: TestMemloom, rel: string, tenant = 'default'): Promise<number> {
  const [r] = await query<{ n: number }>(m, tenant, `SELECT count(*)::int AS n FROM events WHERE source_ref LIKE $1 || ':%'`, [rel]);
  return r?.n ?? 0;
}

const untilCount = (m: TestMemloom, rel: string, n: number, tenant = 'default', timeoutMs = 30_000) =>
  waitFor(async () => (await countFromFile(m, rel, tenant)) >= n, { timeoutMs, what: `${n} events from ${rel}` });

describe('events directory watcher', () => {
  let m: TestMemloom;
  const file = (rel: string) => path.join(m.eventsDir, rel);
  beforeAll(async () => {
    m = await startTestMemloom({ redis: true, env: { MEMLOOM_API_KEYS: 'kd:default,ka:acme' }, roles: { api: true, watcher: true, workers: [] } });
  });
  afterAll(async () => m?.close());

  it('reads a file created after startup and lines appended to it, with their line numbers', async () => {
    await writeFile(file('new.jsonl'), lines('new', 3));
    await untilCount(m, 'new.jsonl', 3);
    await appendFile(file('new.jsonl'), lines('new', 2, 3));
    await untilCount(m, 'new.jsonl', 5);
    expect(await fromFile(m, 'new.jsonl')).toEqual([0, 1, 2, 3, 4].map((i) => ({ line: i + 1, content: `new ${i}` })));
    await m.deps.dispatcher.flush();
    const [stored] = await query<{ id: string; unqueued: boolean; source: string }>(
      m,
      'default',
      `SELECT id, EXISTS (SELECT 1 FROM events_unqueued u WHERE u.event_id = e.id) AS unqueued, source FROM events e WHERE source_ref = 'new.jsonl:1'`,
    );
    expect(stored?.source).toBe('file');
    expect(stored?.unqueued).toBe(false);
    expect(await triageJobsHolding(m.deps, stored?.id as string)).toHaveLength(1);
  });

  it('takes a line written in several pieces only once its \\n arrives', async () => {
    await writeFile(file('pieces.jsonl'), `${line({ content: 'whole' })}{"content":"in pie`);
    await untilCount(m, 'pieces.jsonl', 1);
    // the read that stored the first line saw the half line and left it
    const [offset] = await query<{ byte_offset: number }>(m, 'default', `SELECT byte_offset FROM watcher_offsets WHERE path = 'pieces.jsonl'`);
    expect(offset?.byte_offset).toBe(Buffer.byteLength(line({ content: 'whole' })));
    expect(await countFromFile(m, 'pieces.jsonl')).toBe(1);
    await appendFile(file('pieces.jsonl'), 'ces"}');
    await appendFile(file('pieces.jsonl'), `\n${line({ content: 'after' })}`);
    await untilCount(m, 'pieces.jsonl', 3);
    expect(await fromFile(m, 'pieces.jsonl')).toEqual([
      { line: 1, content: 'whole' },
      { line: 2, content: 'in pieces' },
      { line: 3, content: 'after' },
    ]);
  });

  it('skips blank lines, a UTF-8 BOM and CRLF endings', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"content":"a"}\r\n\r\n   \n{"content":"b"}\r\n\n')]);
    await writeFile(file('crlf.jsonl'), body);
    await untilCount(m, 'crlf.jsonl', 2);
    expect(await fromFile(m, 'crlf.jsonl')).toEqual([
      { line: 1, content: 'a' },
      { line: 4, content: 'b' },
    ]);
    const dead = await getJson(`${m.url}/v1/dead-letters?source=file`, { authorization: 'Bearer kd' });
    expect(dead.body.dead_letters.filter((d: { file: string }) => d.file === 'crlf.jsonl')).toEqual([]);
  });

  it('dead-letters malformed and invalid lines with file, line and reason, and goes on after them', async () => {
    const body = Buffer.concat([
      Buffer.from(line({ content: 'good before' })),
      Buffer.from('{not json\n'),
      Buffer.from(line({ content: 5 })),
      Buffer.from(line({ content: 'x', colour: 'red' })),
      Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]),
      Buffer.from('{"content":"raw NUL \u0000 byte"\n'),
      Buffer.from(line({ content: 'good after' })),
    ]);
    await writeFile(file('bad.jsonl'), body);
    await untilCount(m, 'bad.jsonl', 2);
    expect(await fromFile(m, 'bad.jsonl')).toEqual([
      { line: 1, content: 'good before' },
      { line: 7, content: 'good after' },
    ]);
    const r = await getJson(`${m.url}/v1/dead-letters?source=file&limit=500`, { authorization: 'Bearer kd' });
    expect(r.status).toBe(200);
    const mine = r.body.dead_letters
      .filter((d: { file: string }) => d.file === 'bad.jsonl')
      .sort((a: { line: number }, b: { line: number }) => a.line - b.line);
    expect(mine.map((d: { line: number; code: string }) => [d.line, d.code])).toEqual([
      [2, 'INVALID_JSON'],
      [3, 'INPUT_INVALID'],
      [4, 'INPUT_INVALID'],
      [5, 'INVALID_UTF8'],
      [6, 'INVALID_JSON'],
    ]);
    expect(mine[0]).toMatchObject({ source: 'file', payload: '{not json', message: expect.stringMatching(/JSON/) });
    expect(mine[1].message).toMatch(/^content: /);
    expect(mine[2].message).toMatch(/^colour: unknown field/);
  });

  it('restarts a truncated file at 0 without doubling the lines read before', async () => {
    await writeFile(file('trunc.jsonl'), lines('old', 3));
    await untilCount(m, 'trunc.jsonl', 3);
    await truncate(file('trunc.jsonl'), 0);
    await writeFile(file('trunc.jsonl'), lines('rewritten', 2));
    await untilCount(m, 'trunc.jsonl', 5);
    // rewritten past the old offset in one go: the bytes before the stored offset differ
    await writeFile(file('trunc.jsonl'), line({ content: 'rewritten 0' }) + lines('grown', 6, 1));
    await untilCount(m, 'trunc.jsonl', 11);
    const got = (await fromFile(m, 'trunc.jsonl')).map((r) => r.content).sort();
    expect(got).toEqual([...['old 0', 'old 1', 'old 2', 'rewritten 0', 'rewritten 1'], ...[1, 2, 3, 4, 5, 6].map((i) => `grown ${i}`)].sort());
  });

  it('restarts a file replaced by a rename (new inode) and stores only its new lines', async () => {
    await writeFile(file('replaced.jsonl'), lines('rep', 2));
    await untilCount(m, 'replaced.jsonl', 2);
    await writeFile(file('replaced.jsonl.tmp'), lines('rep', 3));
    await rename(file('replaced.jsonl.tmp'), file('replaced.jsonl'));
    await untilCount(m, 'replaced.jsonl', 3);
    await appendFile(file('replaced.jsonl'), lines('rep', 1, 3));
    await untilCount(m, 'replaced.jsonl', 4);
    expect(await fromFile(m, 'replaced.jsonl')).toEqual([0, 1, 2, 3].map((i) => ({ line: i + 1, content: `rep ${i}` })));
  });

  it('gives files under EVENTS_DIR/<tenant>/ to that tenant when it exists, else to default', async () => {
    await mkdir(file('acme/sub'), { recursive: true });
    await mkdir(file('nosuch'), { recursive: true });
    await writeFile(file('acme/sub/a.jsonl'), lines('for acme', 2));
    await writeFile(file('nosuch/b.jsonl'), lines('for default', 1));
    await untilCount(m, path.join('acme', 'sub', 'a.jsonl'), 2, 'acme');
    await untilCount(m, path.join('nosuch', 'b.jsonl'), 1, 'default');
    expect(await countFromFile(m, path.join('acme', 'sub', 'a.jsonl'), 'default')).toBe(0);
    const bad = Buffer.from('nope\n');
    await writeFile(file('acme/bad.jsonl'), bad);
    const dead = await waitFor(async () => {
      const r = await getJson(`${m.url}/v1/dead-letters?source=file`, { authorization: 'Bearer ka' });
      return r.body.dead_letters.find((d: { file: string }) => d.file === path.join('acme', 'bad.jsonl'));
    });
    expect(dead.line).toBe(1);
  });

  it('stores an id sent over HTTP and in a file once, whichever comes first', async () => {
    const http = await postJson(`${m.url}/v1/events`, { id: 'cross-1', content: 'via http' }, { authorization: 'Bearer kd' });
    expect(http.body.accepted).toBe(1);
    await writeFile(
      file('cross.jsonl'),
      line({ id: 'cross-1', content: 'via file' }) + line({ id: 'cross-2', content: 'file first' }) + line({ content: 'marker' }),
    );
    await waitFor(async () => (await query(m, 'default', `SELECT 1 FROM events WHERE source_ref = 'cross.jsonl:3'`)).length === 1);
    const again = await postJson(`${m.url}/v1/events`, { id: 'cross-2', content: 'http second' }, { authorization: 'Bearer kd' });
    expect(again.body).toMatchObject({ accepted: 0, duplicates: 1 });
    const stored = await query<{ idem_key: string; id: string; content: string }>(
      m,
      'default',
      `SELECT idem_key, id, content FROM events WHERE idem_key IN ('cross-1', 'cross-2') ORDER BY idem_key`,
    );
    expect(stored.map((s) => [s.idem_key, s.content])).toEqual([
      ['cross-1', 'via http'],
      ['cross-2', 'file first'],
    ]);
    expect(again.body.ids).toEqual([stored[1]?.id]);
  });

  it('ingests 2,000 small files created at once', async () => {
    await mkdir(file('many'), { recursive: true });
    for (let i = 0; i < 2000; i += 100) {
      await Promise.all(Array.from({ length: 100 }, (_, j) => writeFile(file(`many/f${i + j}.jsonl`), lines(`many ${i + j}`, 2))));
    }
    await waitFor(
      async () => {
        const [r] = await query<{ n: number }>(m, 'default', `SELECT count(*)::int AS n FROM events WHERE source_ref LIKE 'many/%'`);
        return r?.n === 4000;
      },
      { timeoutMs: 180_000, intervalMs: 500, what: '4,000 events from 2,000 files' },
    );
    const [files] = await query<{ n: number }>(
      m,
      'default',
      `SELECT count(DISTINCT split_part(source_ref, ':', 1))::int AS n FROM events WHERE source_ref LIKE 'many/%'`,
    );
    expect(files?.n).toBe(2000);
  }, 240_000);

  it('ingests a 50 MB file appended while running, every line once', async () => {
    const pad = 'x'.repeat(1000);
    const total = 50_000; // ~1 KiB a line: ~50 MB
    const target = file('big.jsonl');
    await writeFile(target, '');
    for (let i = 0; i < total; i += 1000) {
      // appends of ~1 MB that do not end on a line boundary, as a writer's buffer flushes would
      const chunk = Array.from({ length: 1000 }, (_, j) => line({ content: `big ${i + j} ${pad}` })).join('');
      const cut = Math.floor(chunk.length / 2) + 7;
      await appendFile(target, chunk.slice(0, cut));
      await appendFile(target, chunk.slice(cut));
    }
    await untilCount(m, 'big.jsonl', total, 'default', 240_000);
    const [r] = await query<{ n: number; lines: number; max: number }>(
      m,
      'default',
      `SELECT count(*)::int AS n, count(DISTINCT split_part(source_ref, ':', 2))::int AS lines, max(split_part(source_ref, ':', 2)::int) AS max
       FROM events WHERE source_ref LIKE 'big.jsonl:%'`,
    );
    expect(r).toEqual({ n: total, lines: total, max: total });
  }, 300_000);
});

describe('watcher restart mid-file', () => {
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'memloom-restart-'));
  });
  afterAll(async () => rm(home, { recursive: true, force: true }));

  it('neither loses nor doubles a line when stopped mid-file and started again on the same home', async () => {
    const roles = { api: false, watcher: true, workers: [] };
    const m1 = await startTestMemloom({ home, roles });
    const target = path.join(m1.eventsDir, 'restart.jsonl');
    await writeFile(target, lines('r', 20_000));
    await untilCount(m1, 'restart.jsonl', 1, 'default', 60_000);
    await m1.close(); // stops between two transactions, usually well before the end of the file
    await appendFile(target, `${lines('r', 100, 20_000)}{"content":"r 20100"`);
    await appendFile(target, '}\n');

    const m2 = await startTestMemloom({ home, roles });
    try {
      await untilCount(m2, 'restart.jsonl', 20_101, 'default', 120_000);
      const [r] = await query<{ n: number; distinct_lines: number; distinct_content: number }>(
        m2,
        'default',
        `SELECT count(*)::int AS n, count(DISTINCT source_ref)::int AS distinct_lines, count(DISTINCT content)::int AS distinct_content
         FROM events WHERE source_ref LIKE 'restart.jsonl:%'`,
      );
      expect(r).toEqual({ n: 20_101, distinct_lines: 20_101, distinct_content: 20_101 });
    } finally {
      await m2.close();
    }
  }, 300_000);
});

describe('GET /v1/dead-letters', () => {
  let m: TestMemloom;
  beforeAll(async () => {
    m = await startTestMemloom({ env: { MEMLOOM_API_KEYS: 'kd:default,ka:acme' }, roles: { api: true, workers: [] } });
    await withTenant(m.deps.db, 'default', (tx) =>
      insertFileDeadLetters(
        tx,
        Array.from({ length: 7 }, (_, i) => ({ file: 'a.jsonl', line: i + 1, code: 'INVALID_JSON', message: `bad ${i}`, payload: `{${i}` })),
      ),
    );
    await withTenant(m.deps.db, 'default', (tx) =>
      tx.query(`INSERT INTO dead_letters (source, queue, job_id, code, message, payload) VALUES ('job', 'triage', 'j1', 'JOB_FAILED', 'boom', '{}')`),
    );
  });
  afterAll(async () => m?.close());

  const get = (query: string, key = 'kd') => getJson(`${m.url}/v1/dead-letters${query}`, { authorization: `Bearer ${key}` });

  it('pages through every dead letter newest first with next_before', async () => {
    const seen: string[] = [];
    let before = '';
    for (let page = 0; page < 10; page++) {
      const r = await get(`?limit=3${before ? `&before=${encodeURIComponent(before)}` : ''}`);
      expect(r.status).toBe(200);
      seen.push(...r.body.dead_letters.map((d: { id: string }) => d.id));
      if (r.body.next_before === null) break;
      before = r.body.next_before;
    }
    expect(seen).toHaveLength(8);
    expect(new Set(seen).size).toBe(8);
    const first = await get('?limit=500');
    expect(first.body.next_before).toBeNull();
    expect(first.body.dead_letters.find((d: { source: string }) => d.source === 'job')).toMatchObject({
      source: 'job',
      queue: 'triage',
      job_id: 'j1',
      code: 'JOB_FAILED',
      file: null,
      line: null,
    });
    // PGlite's clock has millisecond resolution: rows of one statement may share created_at, so find line 7
    expect(first.body.dead_letters.find((d: { line: number | null }) => d.line === 7)).toEqual({
      id: expect.stringMatching(UUID),
      source: 'file',
      queue: null,
      job_id: null,
      file: 'a.jsonl',
      line: 7,
      code: 'INVALID_JSON',
      message: 'bad 6',
      payload: '{6',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
      // Never retried (POST /v1/dead-letters/:id/retry sets it).
      retried_at: null,
    });
  });

  it('filters by source and is scoped to the tenant', async () => {
    expect((await get('?source=job')).body.dead_letters).toHaveLength(1);
    expect((await get('?source=file')).body.dead_letters).toHaveLength(7);
    expect((await get('?source=http')).body).toEqual({ dead_letters: [], next_before: null });
    expect((await get('', 'ka')).body).toEqual({ dead_letters: [], next_before: null });
  });

  it('defaults to 50 and answers 400 for bad parameters', async () => {
    for (const q of ['?limit=0', '?limit=501', '?limit=abc', '?source=email', '?before=yesterday', '?colour=red']) {
      const r = await get(q);
      expect(r.status, q).toBe(400);
      expect(r.body.error.code, q).toBe('INPUT_INVALID');
    }
  });
});
