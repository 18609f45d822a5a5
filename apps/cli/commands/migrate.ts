import pg from 'pg';
import { isEmbedded, type Config } from '../../../src/config.js';
import { migrate } from '../../../src/db/migrator.js';
import type { Logger } from '../../../src/logger.js';

/** `memloom migrate`: applies database migrations and exits. */
export async function migrateCommand(config: Config, log: Logger): Promise<void> {
  if (isEmbedded(config)) {
    // The embedded database migrates on every start; opening it is the migration.
    const { createDeps } = await import('../../../src/deps.js');
    const deps = await createDeps(config, log);
    await deps.close();
    return;
  }
  const client = new pg.Client({ connectionString: config.DATABASE_URL });
  await client.connect();
  try {
    const applied = await migrate(client, log);
    log.info({ applied: applied.length }, 'migrations done');
  } finally {
    await client.end();
  }
}
