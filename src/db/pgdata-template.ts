/**
 * The template of a new embedded database: a data directory with pgvector and every migration
 * applied, dumped by PGlite's dumpDataDir (a gzip'd tarball, ~5 MB) when memloom is built
 * (scripts/build.mjs, pgdata-template-build.ts). A first start extracts it into the data directory
 * (untar.ts) and opens that like any existing one, instead of running initdb in a child process
 * and then every migration: ~5 s and ~2.3 s of a 12.4 s first start (2-core VM, load 3, 2026-12-07).
 *
 * Beside the tarball, its manifest records the PGlite and pgvector packages it was made with and the
 * migrations in it. A template is used only with the same packages and when its migrations are the
 * first ones of prisma/migrations, unchanged; the migrator then applies the newer ones as on any
 * database. Otherwise, or when it does not extract or open, the start runs initdb as before
 * (embedded.ts).
 */
import { readFileSync } from 'node:fs';
import { readFile, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PACKAGE_ROOT } from '../package-root.js';
import { readMigrations } from './migrator.js';
import { extractTarGz } from './untar.js';

export const PGDATA_TEMPLATE = path.join(PACKAGE_ROOT, 'dist/pgdata-template.tgz');

export interface TemplateManifest {
  pglite: string;
  pgvector: string;
  migrations: Array<{ name: string; checksum: string }>;
}

/** The manifest that belongs to a template tarball. */
export function manifestPath(template: string): string {
  return template.replace(/\.tgz$/, '.json');
}

function installedVersion(pkg: string): string {
  // Resolves to the package's dist/index.cjs; its package.json is one level above dist/.
  const entry = createRequire(import.meta.url).resolve(pkg);
  return (JSON.parse(readFileSync(path.join(path.dirname(entry), '..', 'package.json'), 'utf8')) as { version: string }).version;
}

/** What a template made now, with these packages and migrations, records. */
export async function currentManifest(migrationsDir?: string): Promise<TemplateManifest> {
  const migrations = await readMigrations(migrationsDir);
  return {
    pglite: installedVersion('@electric-sql/pglite'),
    pgvector: installedVersion('@electric-sql/pglite-pgvector'),
    migrations: migrations.map((m) => ({ name: m.name, checksum: m.checksum })),
  };
}

/** Why `template` cannot create a database for this installation, or undefined when it can. */
export async function templateMismatch(template: string, migrationsDir?: string): Promise<string | undefined> {
  let stored: TemplateManifest;
  try {
    stored = JSON.parse(await readFile(manifestPath(template), 'utf8')) as TemplateManifest;
  } catch {
    return 'no template manifest';
  }
  const now = await currentManifest(migrationsDir);
  if (stored.pglite !== now.pglite || stored.pgvector !== now.pgvector) return 'made with other PGlite or pgvector packages';
  // A migration edited after the template was made (one under development) would stop the migrator.
  const changed = stored.migrations.findIndex((m, i) => now.migrations[i]?.name !== m.name || now.migrations[i]?.checksum !== m.checksum);
  if (changed >= 0) return `migration ${stored.migrations[changed]?.name} differs from the template's`;
  return undefined;
}

/**
 * Makes `dataDir` (absent, or an empty directory) a copy of the template: extracted beside it,
 * then renamed into place, so the data directory is never a part of one.
 */
export async function extractTemplate(template: string, dataDir: string): Promise<void> {
  const partial = `${dataDir}.partial`;
  await rm(partial, { recursive: true, force: true });
  try {
    await extractTarGz(template, partial);
    await rename(partial, dataDir);
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
}
