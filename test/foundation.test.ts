import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AutoAnalyze, analyzeChangedTables } from '../src/db/auto-analyze.js';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../src/db/embedded.js';
import { InProcessSocket } from '../src/db/in-process-socket.js';
import { insertJobDeadLetter } from '../src/db/sql/dead-letters.js';
import { MIGRATIONS_DIR, migrate } from '../src/db/migrator.js';
import { withTenant } from '../src/db/pool.js';
import { ensureVectorIndexes } from '../src/db/vector-index.js';
import { ftsDocument, ftsQuery } from '../src/domain/text.js';
import { createLogger } from '../src/logger.js';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { REDIS_URL, getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';

/** A pg client on the embedded database through an in-process connection, as memloom's pools connect. */
const inProcessClient = (embedded: EmbeddedDatabase) => new pg.Client({ connectionString: embedded.url, stream: () => embedded.connect() } as pg.ClientConfig);

describe('embedded mode', () => {
  let m: TestMemloom;
  beforeAll(async () => {
    m = await startTestMemloom();
  });
  afterAll(async () => m?.close());

  it('is ready with database and queue checks', async () => {
    const r = await getJson(`${m.url}/readyz`);
    expect(r.status).toBe(200);
    expect(r.body.checks.map((c: { name: string }) => c.name)).toEqual(['database', 'queue']);
  });

  it('reports row counts per object type and a depth for every queue', async () => {
    const r = await getJson(`${m.url}/v1/stats`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.objects)).toEqual(expect.arrayContaining(['events', 'chunks', 'memories', 'entities', 'edges', 'dead_letters']));
    expect(Object.keys(r.body.queues).sort()).toEqual([...QUEUE_NAMES].sort());
    expect(r.body.pending_events).toBe(0);
  });

  it('runs the embedded database without full-page WAL images, fsync being off (src/db/embedded.ts)', async () => {
    const { rows } = await m.deps.db.query<{ fpw: string; fsync: string; sync: string }>(
      `SELECT current_setting('full_page_writes') AS fpw, current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS sync`,
    );
    // Commits still write their WAL before answering: an accepted event survives a killed process.
    expect(rows[0]).toEqual({ fpw: 'off', fsync: 'off', sync: 'on' });
  });

  it('connects the process’s pools in-process; a connection that dies inside a transaction neither holds the session nor keeps its writes (src/db/in-process-socket.ts)', async () => {
    const pooled = await m.deps.db.connect();
    try {
      expect((pooled as unknown as { connection: { stream: unknown } }).connection.stream).toBeInstanceOf(InProcessSocket);
    } finally {
      pooled.release();
    }
    const embedded = m.deps.embedded as EmbeddedDatabase;
    const dying = inProcessClient(embedded);
    dying.on('error', () => undefined);
    await dying.connect();
    await dying.query(`BEGIN; SELECT set_config('app.tenant_id', 'default', true)`);
    await insertJobDeadLetter(dying, { queue: 'extract', jobId: 'in-process-probe', message: 'PROBE: rolled back', payload: '{}' });
    (dying as unknown as { connection: { stream: InProcessSocket } }).connection.stream.destroy();
    // Another connection gets the session (it would wait forever behind an open transaction) and
    // sees no trace of the dead one's write.
    const { rows } = await withTenant(m.deps.db, 'default', (tx) => tx.query(`SELECT 1 FROM dead_letters WHERE job_id = 'in-process-probe'`));
    expect(rows).toEqual([]);
  });

  it('gives each of many in-process connections the answers to its own statements (src/db/session-connection.ts)', async () => {
    const embedded = m.deps.embedded as EmbeddedDatabase;
    const clients = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const c = inProcessClient(embedded);
        await c.connect();
        return c;
      }),
    );
    try {
      // Parameterized (five protocol messages each), in and out of transactions, all at once.
      const answers = await Promise.all(
        clients.map(async (c, i) => {
          const got: string[] = [];
          for (let k = 0; k < 30; k++) {
            if (k % 10 === 0) await c.query('BEGIN');
            got.push((await c.query<{ v: string }>('SELECT $1::text || repeat($2::text, $3::int) AS v', [`c${i}-q${k}-`, 'x', k])).rows[0]?.v ?? '');
            if (k % 10 === 9) await c.query('COMMIT');
          }
          return got;
        }),
      );
      answers.forEach((got, i) => expect(got).toEqual(Array.from({ length: 30 }, (_, k) => `c${i}-q${k}-${'x'.repeat(k)}`)));
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
  });

  it('lets timers and I/O run between the statements of a busy in-process connection (src/db/session-connection.ts)', async () => {
    const embedded = m.deps.embedded as EmbeddedDatabase;
    const c = inProcessClient(embedded);
    await c.connect();
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    try {
      // Statement after statement, as a pipeline stage runs them: answers arrive on nextTick and
      // the next statement follows as a microtask, which alone would never let the timer fire.
      for (let i = 0; i < 200; i++) await c.query('SELECT $1::int AS i', [i]);
    } finally {
      clearInterval(timer);
      await c.end();
    }
    expect(ticks).toBeGreaterThan(5);
  });

  it('keeps timers running while PGlite runs a long statement: it has a thread of its own (src/db/pglite-thread.ts)', async () => {
    const embedded = m.deps.embedded as EmbeddedDatabase;
    const c = inProcessClient(embedded);
    await c.connect();
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const busy0 = embedded.utilization();
    try {
      // Half a second inside one synchronous call into PGlite (its thread is busy all along): on
      // the main thread no timer could fire until it returned.
      const during = c.query('SELECT pg_sleep(0.5)').then(() => ticks);
      const before = ticks;
      expect((await during) - before).toBeGreaterThan(20);
    } finally {
      clearInterval(timer);
      await c.end();
    }
    expect(embedded.utilization(busy0).active).toBeGreaterThanOrEqual(450);
  });

  it('runs statements that arrive together in order, an error failing only its own (src/db/session-connection.ts)', async () => {
    const embedded = m.deps.embedded as EmbeddedDatabase;
    const socket = embedded.connect();
    const received: Buffer[] = [];
    socket.on('data', (d: Buffer) => received.push(d));
    const message = (type: string, body: Buffer) => Buffer.concat([Buffer.from(type), int32(body.length + 4), body]);
    const int32 = (n: number) => {
      const b = Buffer.alloc(4);
      b.writeInt32BE(n);
      return b;
    };
    const cstr = (s: string) => Buffer.from(`${s}\0`);
    const extended = (sql: string) =>
      Buffer.concat([
        message('P', Buffer.concat([cstr(''), cstr(sql), Buffer.from([0, 0])])),
        message('B', Buffer.concat([cstr(''), cstr(''), Buffer.from([0, 0, 0, 0, 0, 0])])),
        message('E', Buffer.concat([cstr(''), int32(0)])),
        message('S', Buffer.alloc(0)),
      ]);
    const startup = Buffer.concat([int32(196608), cstr('user'), cstr('postgres'), cstr('database'), cstr('postgres'), Buffer.from([0])]);
    socket.write(Buffer.concat([int32(startup.length + 4), startup]));
    await waitFor(() => Buffer.concat(received).includes(Buffer.from('Z\0\0\0\x05I')), { what: 'ready for query' });
    received.length = 0;
    // Three statements in one write: the second fails; the first and third still answer.
    socket.write(Buffer.concat([extended(`SELECT 'first'`), extended('SELECT 1/0'), extended(`SELECT 'third'`)]));
    const answer = await waitFor(
      () => {
        const all = Buffer.concat(received);
        return all.toString('latin1').split('Z\0\0\0\x05I').length - 1 === 3 ? all.toString('latin1') : undefined;
      },
      { what: 'three answers' },
    );
    expect(answer.indexOf('first')).toBeGreaterThan(-1);
    expect(answer.indexOf('division by zero')).toBeGreaterThan(answer.indexOf('first'));
    expect(answer.indexOf('third')).toBeGreaterThan(answer.indexOf('division by zero'));
    socket.destroy();
  });

  it('analyzes changed tables as autovacuum would, which PGlite lacks (src/db/auto-analyze.ts)', async () => {
    const events = Array.from({ length: 80 }, (_, i) => ({ session_id: 'analyze', content: `event number ${i} for the planner statistics` }));
    expect((await postJson(`${m.url}/v1/events`, { events })).status).toBe(202);
    const lastAnalyze = async () =>
      (await m.deps.db.query<{ at: Date | null }>(`SELECT last_analyze AS at FROM pg_stat_user_tables WHERE relname = 'events'`)).rows[0]?.at ?? undefined;
    // The process's own timer does it, as the application role (no superuser in the session).
    await waitFor(lastAnalyze, { timeoutMs: 30_000, what: 'events analyzed' });
    const { rows } = await m.deps.db.query<{ n: number; role: string }>(
      `SELECT reltuples::int AS n, current_user AS role FROM pg_class WHERE relname = 'events'`,
    );
    expect(rows[0]).toEqual({ n: expect.any(Number), role: 'memloom_app' });
    expect(rows[0]?.n).toBeGreaterThanOrEqual(80);
    // Tables are analyzed again only past the threshold (50 rows + 10% changed), not on every look.
    await analyzeChangedTables(m.deps.db);
    expect(await analyzeChangedTables(m.deps.db)).not.toContain('public.events');
  });

  it('searches small vector tables exactly and builds their HNSW index once they grow (src/db/vector-index.ts)', async () => {
    const indexes = async () =>
      (
        await m.deps.db.query<{ name: string }>(
          `SELECT indexname AS name FROM pg_indexes WHERE indexname IN ('chunks_hnsw_384', 'memories_hnsw_384') ORDER BY 1`,
        )
      ).rows.map((r) => r.name);
    // A fresh store: no graph to update on every insert (EMBEDDED_ANN_MIN_ROWS).
    expect(await indexes()).toEqual([]);
    await withTenant(m.deps.db, 'default', async (tx) => {
      const { rows: ev } = await tx.query<{ id: string }>(`INSERT INTO events (idem_key, content, content_hash) VALUES ('ann', 'x', 'h') RETURNING id`);
      await tx.query(
        `INSERT INTO chunks (event_id, idx, content, start_offset, end_offset, tokens, content_hash, occurred_at, fts, embedding, embedding_model, embedding_dims)
         SELECT $1, i, 'chunk ' || i, 0, 1, 1, 'h' || i, now(), to_tsvector('simple', 'chunk'), ('[' || array_to_string(array_fill(i::real, ARRAY[384]), ',') || ']')::vector, 'test', 384
         FROM generate_series(1, 120) i`,
        [ev[0]?.id],
      );
    });
    const log = createLogger({ LOG_LEVEL: 'silent', PRETTY_LOGS: false }, process.stderr);
    // The process's own pass waits for EMBEDDED_ANN_MIN_ROWS rows; these use smaller thresholds. Under one, nothing is built.
    await m.deps.db.query('ANALYZE chunks');
    expect(await ensureVectorIndexes(m.deps.db, 384, 1000, log)).toEqual(
      new Map([
        ['chunks', 'small'],
        ['memories', 'small'],
      ]),
    );
    const auto = new AutoAnalyze(m.deps.db, log, 3_600_000, { dims: 384, minRows: 100 });
    try {
      await m.deps.db.query(`UPDATE chunks SET tokens = 2 WHERE content_hash LIKE 'h%'`); // past the analyze threshold again
      expect(await auto.run()).toContain('public.chunks');
    } finally {
      await auto.close();
    }
    // Built as the table's owner (SECURITY DEFINER), though the session runs as memloom_app; only chunks had grown.
    expect(await indexes()).toEqual(['chunks_hnsw_384']);
    expect(await ensureVectorIndexes(m.deps.db, 384, 100, log)).toEqual(
      new Map([
        ['chunks', 'exists'],
        ['memories', 'small'],
      ]),
    );
    expect(await ensureVectorIndexes(m.deps.db, 4096, 0, log)).toEqual(
      new Map([
        ['chunks', 'unsupported'],
        ['memories', 'unsupported'],
      ]),
    );
    const { rows } = await m.deps.db.query<{ role: string }>('SELECT current_user AS role');
    expect(rows[0]?.role).toBe('memloom_app');
    // The function builds these indexes and nothing else.
    await expect(m.deps.db.query(`SELECT memloom_ensure_ann_index('events', 384, 0)`)).rejects.toThrow(/no vector index on table events/);
  });

  it('serves Bull Board with every pipeline queue', async () => {
    const page = await fetch(`${m.url}/admin/queues`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
    const api = await getJson(`${m.url}/admin/queues/api/queues`);
    expect(api.body.queues.map((q: { name: string }) => q.name).sort()).toEqual([...QUEUE_NAMES].sort());
  });

  it('answers unknown routes with the error envelope', async () => {
    const r = await getJson(`${m.url}/v1/nope`);
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('NOT_FOUND');
  });

  it('finds Chinese and English text through the simple-config tsvector', async () => {
    const docs = ['我们决定使用PostgreSQL作为数据库', 'The team moved the deploy pipeline to GitHub Actions', '明天下午开会讨论预算'];
    const found = await withTenant(m.deps.db, 'default', async (tx) => {
      const { rows: ev } = await tx.query<{ id: string }>(`INSERT INTO events (idem_key, content, content_hash) VALUES ('fts', 'x', 'h') RETURNING id`);
      for (const [i, d] of docs.entries()) {
        await tx.query(
          `INSERT INTO chunks (event_id, idx, content, start_offset, end_offset, tokens, content_hash, occurred_at, fts)
           VALUES ($1, $2, $3, 0, $4, 1, 'h', now(), to_tsvector('simple', $5))`,
          [ev[0]?.id, i, d, d.length, ftsDocument(d)],
        );
      }
      const search = async (q: string) => {
        const terms = ftsQuery(q);
        const { rows } = await tx.query<{ content: string }>(
          `SELECT content FROM chunks WHERE fts @@ (SELECT string_agg(plainto_tsquery('simple', t)::text, ' | ')::tsquery FROM unnest($1::text[]) t)`,
          [terms],
        );
        return rows.map((r) => r.content);
      };
      return { db: await search('数据库'), meeting: await search('开会'), deploy: await search('deploying pipelines') };
    });
    expect(found.db).toEqual([docs[0]]);
    expect(found.meeting).toEqual([docs[2]]);
    expect(found.deploy).toEqual([docs[1]]);
  });
});

describe('server mode (DATABASE_URL) with Redis queues', () => {
  let external: EmbeddedDatabase;
  let m: TestMemloom;
  beforeAll(async () => {
    // A PostgreSQL-protocol server with pgvector that memloom reaches only through DATABASE_URL.
    external = await startEmbeddedDatabase({
      home: '',
      port: 0,
      inMemory: true,
      log: createLogger({ LOG_LEVEL: 'silent', PRETTY_LOGS: false }, process.stderr),
    });
    m = await startTestMemloom({ redis: true, env: { DATABASE_URL: external.url } });
  });
  afterAll(async () => {
    await m?.close();
    await external?.stop();
  });

  it('migrates the external database, runs as memloom_app, and is ready', async () => {
    expect(m.deps.embedded).toBeUndefined();
    expect(m.deps.queues.backend.kind).toBe('redis');
    const { rows } = await m.deps.db.query<{ role: string }>('SELECT current_user AS role');
    expect(rows[0]?.role).toBe('memloom_app');
    const r = await getJson(`${m.url}/readyz`);
    expect(r.status).toBe(200);
  });

  it('builds every vector index at startup, whatever the size of the tables', async () => {
    const { rows } = await m.deps.db.query<{ name: string }>(`SELECT indexname AS name FROM pg_indexes WHERE indexname LIKE '%\\_hnsw\\_%' ORDER BY 1`);
    expect(rows.map((r) => r.name)).toEqual(['chunks_hnsw_384', 'memories_hnsw_384']);
  });
});

describe('migration 20261130030000_ann_index_on_demand on an existing store', () => {
  let db: EmbeddedDatabase | undefined;
  let dir: string | undefined;
  afterAll(async () => {
    await db?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('keeps the HNSW indexes of a table past 5,000 rows (rebuilding them would be slow) and drops those of smaller tables', async () => {
    const log = createLogger({ LOG_LEVEL: 'silent', PRETTY_LOGS: false }, process.stderr);
    db = await startEmbeddedDatabase({ home: '', port: 0, inMemory: true, log });
    const owner = new pg.Client({ connectionString: db.url });
    await owner.connect();
    try {
      // The store as the migrations before this one left it: every HNSW index, 5,100 chunks with vectors.
      dir = await mkdtemp(path.join(os.tmpdir(), 'memloom-migrations-'));
      for (const name of (await readdir(MIGRATIONS_DIR)).filter((n) => n < '20261130030000'))
        await cp(path.join(MIGRATIONS_DIR, name), path.join(dir, name), { recursive: true });
      await migrate(owner, log, dir);
      const indexes = async () =>
        (await owner.query<{ name: string }>(`SELECT indexname AS name FROM pg_indexes WHERE indexname LIKE '%\\_hnsw\\_%' ORDER BY 1`)).rows.map(
          (r) => r.name,
        );
      expect(await indexes()).toEqual(['chunks_hnsw_384', 'chunks_hnsw_512', 'memories_hnsw_384', 'memories_hnsw_512']);
      await owner.query(`SET app.tenant_id = 'default'`);
      const { rows: ev } = await owner.query<{ id: string }>(`INSERT INTO events (idem_key, content, content_hash) VALUES ('old', 'x', 'h') RETURNING id`);
      await owner.query(
        `INSERT INTO chunks (event_id, idx, content, start_offset, end_offset, tokens, content_hash, occurred_at, fts, embedding, embedding_model, embedding_dims)
         SELECT $1, i, 'chunk', 0, 1, 1, 'h', now(), to_tsvector('simple', 'chunk'), ('[' || array_to_string(array_fill((i % 7 + 1)::real, ARRAY[384]), ',') || ']')::vector, 'test', 384
         FROM generate_series(1, 5100) i`,
        [ev[0]?.id],
      );
      await owner.query('ANALYZE chunks; ANALYZE memories');
      // It comes first of what is left to apply (later migrations follow it).
      expect((await migrate(owner, log))[0]).toBe('20261130030000_ann_index_on_demand');
      // Row counts are per table: an index of another dimension costs its inserts nothing.
      expect(await indexes()).toEqual(['chunks_hnsw_384', 'chunks_hnsw_512']);
    } finally {
      await owner.end();
    }
  });
});

describe('readiness when the queue backend is down', () => {
  let m: TestMemloom;
  beforeAll(async () => {
    m = await startTestMemloom({ env: { REDIS_URL: 'redis://127.0.0.1:1' } });
  });
  afterAll(async () => m?.close());

  it('answers 503 naming the failed check', async () => {
    const r = await getJson(`${m.url}/readyz`);
    expect(r.status).toBe(503);
    expect(r.body.checks.find((c: { name: string }) => c.name === 'queue').ok).toBe(false);
    expect(r.body.checks.find((c: { name: string }) => c.name === 'database').ok).toBe(true);
  });
});

void REDIS_URL;
