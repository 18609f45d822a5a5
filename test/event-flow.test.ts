/**
 * The event flow is written once (src/queue/flow.ts): every stage has an entry, every status a
 * stage sets is read by a later stage or is final, the SQL compares `status` only with statuses
 * that exist, the database refuses any other (migration 20261209000000_event_status_check, tried
 * on rows of every status an older version wrote), and the files that know the flow read it from
 * the table.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR, migrate } from '../src/db/migrator.js';
import { MEMORY_STATUSES } from '../src/db/sql/memories-read.js';
import { EVENT_QUEUES, EVENT_STATUSES, FINISHED_STATUSES, FIRST_STATUS, FLOW, flowOf, statusesBefore } from '../src/queue/flow.js';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { freshDatabase, migrationsBefore } from './support/fresh-database.js';
import { ROOT } from './support/process.js';

const STATUS_MIGRATION = '20261209000000_event_status_check';

/** Every .ts / .sql file under these folders (tests included). */
async function filesUnder(...dirs: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const dir of dirs) {
    for (const e of await readdir(path.join(ROOT, dir), { withFileTypes: true, recursive: true })) {
      if (e.isFile() && /\.(ts|sql)$/.test(e.name)) out.push(path.relative(ROOT, path.join(e.parentPath, e.name)));
    }
  }
  return out.sort();
}

describe('the flow table', () => {
  it('has one entry per queue and per stage folder of workers/', async () => {
    const folders = (await readdir(path.join(ROOT, 'workers'), { withFileTypes: true }))
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect(Object.keys(FLOW).sort()).toEqual(folders);
    expect(Object.keys(FLOW)).toEqual([...QUEUE_NAMES]);
  });

  it('moves every event from its first status to a finished one, and every status it sets is read', () => {
    const waited = new Set(QUEUE_NAMES.map((q) => flowOf(q).waits));
    expect(waited.has(FIRST_STATUS)).toBe(true);
    for (const q of QUEUE_NAMES) {
      const { waits, holds, sets } = flowOf(q);
      if (waits === null) expect({ q, holds, sets }).toEqual({ q, holds: null, sets: [] });
      // a status a stage sets is either final or waited for by another stage: none is left where no stage looks
      for (const s of sets) expect({ q, s, read: waited.has(s) || (FINISHED_STATUSES as readonly string[]).includes(s) }).toEqual({ q, s, read: true });
    }
    const used = new Set([FIRST_STATUS, 'failed', ...QUEUE_NAMES.flatMap((q) => [...statusesBefore(q), ...flowOf(q).sets])]);
    expect([...used].sort()).toEqual([...EVENT_STATUSES].sort());
    expect(EVENT_QUEUES).toEqual(['triage', 'chunk', 'embed', 'extract']);
  });

  it('is what the places that know the flow read', async () => {
    const files = await filesUnder('src', 'workers', 'apps', 'scripts');
    const readers: string[] = [];
    for (const f of files) {
      if (f === 'src/queue/flow.ts') continue;
      if (/from '[./]*(src\/)?queue\/flow\.js'|from '\.\/flow\.js'/.test(await readFile(path.join(ROOT, f), 'utf8'))) readers.push(f);
    }
    // A new reader is welcome: add it here, so this list stays the map of where the flow is used.
    expect(readers).toEqual([
      'src/db/sql/event-progress.ts',
      'src/db/sql/failed-events.ts',
      'src/db/sql/lost-work.ts',
      'src/db/sql/stats.ts',
      'src/db/sql/triage.ts',
      'src/export/import-batches.ts',
      'src/forget/jobs.ts',
      'src/queue/readiness.ts',
      'workers/maintenance/lost-jobs.ts',
    ]);
  });

  it('names only existing statuses where SQL compares or sets one', async () => {
    const known = new Set<string>([...EVENT_STATUSES, ...MEMORY_STATUSES]);
    const found = new Map<string, string>();
    for (const f of await filesUnder('src/db', 'workers', 'scripts', 'test', 'prisma/migrations')) {
      const text = await readFile(path.join(ROOT, f), 'utf8');
      const fragments = [...text.matchAll(/\bstatus\s+(?:NOT\s+)?IN\s*\(([^)]*)\)/gi), ...text.matchAll(/\bstatus\s*=\s*CASE\b(.*?)\bEND\b/gs)];
      for (const m of fragments) for (const [, word] of (m[1] ?? '').matchAll(/'([a-z_]+)'/g)) if (word) found.set(word, f);
      for (const m of text.matchAll(/\bstatus\s*(?:=|<>|!=)\s*'([a-z_]+)'/g)) if (m[1]) found.set(m[1], f);
    }
    const unknown = [...found].filter(([word]) => !known.has(word));
    expect(unknown).toEqual([]);
    for (const s of EVENT_STATUSES) expect(found.has(s), s).toBe(true);
  });
});

describe(`migration ${STATUS_MIGRATION}`, () => {
  let client: pg.Client;
  let before: string;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    const db = await freshDatabase();
    stop = db.stop;
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    before = await migrationsBefore(STATUS_MIGRATION);
    await migrate(client, undefined, before);
    // rows in every status the previous version wrote
    await client.query(`INSERT INTO tenants (id) VALUES ('t1') ON CONFLICT DO NOTHING`);
    await client.query(`SELECT set_config('app.tenant_id', 't1', false)`);
    await client.query(`INSERT INTO events (idem_key, content, content_hash, status) SELECT 'k-' || s, 'c', 'h', s FROM unnest($1::text[]) s`, [
      EVENT_STATUSES,
    ]);
    await client.query(`SELECT set_config('app.tenant_id', '', false)`); // the migrator sets no tenant
    expect(await migrate(client, undefined, MIGRATIONS_DIR)).toContain(STATUS_MIGRATION);
    await client.query(`SELECT set_config('app.tenant_id', 't1', false)`);
  }, 120_000);

  afterAll(async () => {
    await client?.end();
    await stop?.();
    if (before) await rm(before, { recursive: true, force: true });
  });

  it('keeps rows of every status and refuses any other', async () => {
    const { rows } = await client.query<{ status: string }>('SELECT status FROM events ORDER BY status');
    expect(rows.map((r) => r.status)).toEqual([...EVENT_STATUSES].sort());
    await expect(client.query(`INSERT INTO events (idem_key, content, content_hash, status) VALUES ('typo', 'c', 'h', 'embeded')`)).rejects.toThrow(
      /events_status_check/,
    );
  });

  it('lists exactly the statuses of the flow table', async () => {
    const { rows } = await client.query<{ def: string }>(
      `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = 'events'::regclass AND conname = 'events_status_check'`,
    );
    const listed = [...(rows[0]?.def ?? '').matchAll(/'([a-z_]+)'/g)].map((m) => m[1]);
    expect(listed.sort()).toEqual([...EVENT_STATUSES].sort());
  });
});
