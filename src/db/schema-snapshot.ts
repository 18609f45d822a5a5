/**
 * prisma/schema.sql: the schema the migrations build, read from a freshly migrated in-memory
 * embedded database (dumpSchema). `npm run schema:snapshot` writes it; test/schema-snapshot.test.ts
 * fails when it differs from what the migrations give.
 */
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '../logger.js';
import { PACKAGE_ROOT } from '../package-root.js';
import { startEmbeddedDatabase } from './embedded.js';
import { migrate } from './migrator.js';
import { dumpSchema } from './sql/schema-dump.js';

export const SCHEMA_SNAPSHOT = path.join(PACKAGE_ROOT, 'prisma/schema.sql');
export const SNAPSHOT_COMMAND = 'npm run schema:snapshot';

const HEADER = `-- The current schema: what the migrations in prisma/migrations build, in one file. Generated from a
-- freshly migrated embedded database by \`${SNAPSHOT_COMMAND}\`; do not edit by hand. A change to the
-- schema is a new migration, then that command (test/schema-snapshot.test.ts fails until it is run).
-- Not here: the vector indexes memloom creates at startup for the configured dimensions
-- (src/db/vector-index.ts), and BullMQ's own schema on the PostgreSQL queue backend.
`;

/** The snapshot text of a fresh in-memory database with every migration applied. */
export async function freshSchema(log: Logger): Promise<string> {
  const db = await startEmbeddedDatabase({ home: '', port: 0, inMemory: true, log });
  const client = new pg.Client({ connectionString: db.url });
  try {
    await client.connect();
    await migrate(client);
    return `${HEADER}\n${await dumpSchema(client)}`;
  } finally {
    await client.end().catch(() => undefined);
    await db.stop();
  }
}
