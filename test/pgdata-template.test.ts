/**
 * A new embedded database from the template (src/db/pgdata-template.ts) is the database initdb and
 * every migration give: the same schema and the same applied migrations. A template that does not
 * load, or does not fit the migrations, falls back to initdb; one older than the migrations is
 * brought up to date by the migrator; a creation stopped half-way is started again.
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedDatabase } from '../src/db/embedded.js';
import { MIGRATIONS_DIR, migrate } from '../src/db/migrator.js';
import { manifestPath, templateMismatch, type TemplateManifest } from '../src/db/pgdata-template.js';
import { writeTemplate } from '../src/db/pgdata-template-build.js';
import { dumpSchema } from '../src/db/sql/schema-dump.js';
import { createLogger } from '../src/logger.js';

let scratch = '';
let template = '';
beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'memloom-template-'));
  template = path.join(scratch, 'template.tgz');
  expect(await writeTemplate(quiet(), template)).toBe(true);
}, 180_000);
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

function quiet() {
  return createLogger({ LOG_LEVEL: 'silent', PRETTY_LOGS: false });
}

/** A logger whose messages the test reads. */
function recorded(): { log: ReturnType<typeof createLogger>; messages: string[] } {
  const messages: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) messages.push((JSON.parse(line) as { msg: string }).msg);
      done();
    },
  });
  return { log: createLogger({ LOG_LEVEL: 'info', PRETTY_LOGS: false }, sink), messages };
}

/** Starts a database in a new home, migrates it; the schema text and what the migrator applied. */
async function startAndMigrate(opts: { template?: string; home?: string }): Promise<{ schema: string; applied: string[]; messages: string[]; home: string }> {
  const home = opts.home ?? (await mkdtemp(path.join(scratch, 'home-')));
  const { log, messages } = recorded();
  const db = await startEmbeddedDatabase({ home, port: 0, log, template: opts.template });
  const client = new pg.Client({ connectionString: db.url });
  try {
    await client.connect();
    const applied = await migrate(client);
    return { schema: await dumpSchema(client), applied, messages, home };
  } finally {
    await client.end().catch(() => undefined);
    await db.stop();
  }
}

async function copyTemplate(name: string, manifest?: (m: TemplateManifest) => TemplateManifest): Promise<string> {
  const copy = path.join(scratch, `${name}.tgz`);
  await cp(template, copy);
  const stored = JSON.parse(await readFile(manifestPath(template), 'utf8')) as TemplateManifest;
  await writeFile(manifestPath(copy), JSON.stringify(manifest ? manifest(stored) : stored));
  return copy;
}

describe('a new embedded database from the template', () => {
  let fromInitdb: Awaited<ReturnType<typeof startAndMigrate>>;
  beforeAll(async () => {
    fromInitdb = await startAndMigrate({});
  }, 180_000);

  it('has the schema and the migrations of initdb followed by every migration', async () => {
    const fromTemplate = await startAndMigrate({ template });
    expect(fromTemplate.messages).toContain('created the embedded database from its template');
    expect(fromTemplate.applied).toEqual([]);
    expect(fromInitdb.applied.length).toBeGreaterThan(0);
    expect(fromTemplate.schema).toBe(fromInitdb.schema);
    // No marker of a creation in progress is left behind.
    expect(await readdir(fromTemplate.home)).not.toContain('pgdata.creating');
  }, 180_000);

  it('falls back to initdb when the template does not load', async () => {
    const corrupt = await copyTemplate('corrupt');
    const bytes = await readFile(corrupt);
    await writeFile(corrupt, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const started = await startAndMigrate({ template: corrupt });
    expect(started.messages).toContain('the embedded database template did not load; running initdb');
    expect(started.applied).toEqual(fromInitdb.applied);
    expect(started.schema).toBe(fromInitdb.schema);
  }, 180_000);

  it('runs initdb when the template is missing or its migrations differ from these', async () => {
    expect(await templateMismatch(path.join(scratch, 'absent.tgz'))).toBe('no template manifest');
    const edited = await copyTemplate('edited', (m) => ({ ...m, migrations: m.migrations.map((x, i) => (i === 1 ? { ...x, checksum: 'edited' } : x)) }));
    expect(await templateMismatch(edited)).toMatch(/^migration .* differs/);
    const started = await startAndMigrate({ template: edited });
    expect(started.messages).toContain('no embedded database template used');
    expect(started.applied).toEqual(fromInitdb.applied);
  }, 180_000);

  it('brings a template older than the migrations up to date', async () => {
    const older = path.join(scratch, 'older-migrations');
    const names = (await readdir(MIGRATIONS_DIR)).sort();
    for (const name of names.slice(0, 3)) await cp(path.join(MIGRATIONS_DIR, name), path.join(older, name), { recursive: true });
    const olderTemplate = path.join(scratch, 'older.tgz');
    await writeTemplate(quiet(), olderTemplate, older);
    const started = await startAndMigrate({ template: olderTemplate });
    expect(started.messages).toContain('created the embedded database from its template');
    expect(started.applied).toEqual(fromInitdb.applied.slice(3));
    expect(started.schema).toBe(fromInitdb.schema);
  }, 180_000);

  it('creates the database again after a creation that was stopped half-way', async () => {
    const home = await mkdtemp(path.join(scratch, 'home-'));
    await mkdir(path.join(home, 'pgdata'));
    await writeFile(path.join(home, 'pgdata', 'PG_VERSION'), '17\n');
    await writeFile(path.join(home, 'pgdata.creating'), '');
    const started = await startAndMigrate({ template, home });
    expect(started.messages).toContain('the creation of the embedded database was interrupted; creating it again');
    expect(started.schema).toBe(fromInitdb.schema);
    expect(await readdir(home)).not.toContain('pgdata.creating');
  }, 180_000);
});
