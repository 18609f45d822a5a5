/**
 * Makes the template of a new embedded database (pgdata-template.ts): an in-memory embedded
 * database, migrated by the migrator every start runs, checkpointed and dumped. Run by
 * scripts/build.mjs; a template whose manifest already matches is kept.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '../logger.js';
import { startEmbeddedDatabase } from './embedded.js';
import { migrate } from './migrator.js';
import { currentManifest, manifestPath, PGDATA_TEMPLATE } from './pgdata-template.js';

/** Writes the template and its manifest unless they are current; returns whether it wrote them. */
export async function writeTemplate(log: Logger, template = PGDATA_TEMPLATE, migrationsDir?: string): Promise<boolean> {
  const manifest = await currentManifest(migrationsDir);
  const stored = await readFile(manifestPath(template), 'utf8').catch(() => '');
  const text = `${JSON.stringify(manifest, null, 1)}\n`;
  if (stored === text) {
    try {
      await readFile(template);
      return false;
    } catch {
      /* the manifest without its tarball: make both */
    }
  }
  const db = await startEmbeddedDatabase({ home: '', port: 0, inMemory: true, log });
  let tarball: Uint8Array;
  try {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await migrate(client, undefined, migrationsDir);
    } finally {
      await client.end();
    }
    // Everything on disk: a start from the template replays no WAL.
    await db.owner.exec('CHECKPOINT');
    tarball = await db.dumpDataDir();
  } finally {
    await db.stop();
  }
  await mkdir(path.dirname(template), { recursive: true });
  // The tarball first and the manifest last, each replaced whole: a build stopped half-way leaves
  // no manifest that matches, so the next build makes both again.
  await writeFile(`${template}.tmp`, tarball);
  await rename(`${template}.tmp`, template);
  await writeFile(`${manifestPath(template)}.tmp`, text);
  await rename(`${manifestPath(template)}.tmp`, manifestPath(template));
  log.info({ template, bytes: tarball.byteLength, migrations: manifest.migrations.length }, 'embedded database template written');
  return true;
}
