/**
 * prisma/schema.sql is the schema the migrations build: a freshly migrated embedded database,
 * dumped the same way, gives the same text. After a new migration: `npm run schema:snapshot`.
 */
import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { freshSchema, SCHEMA_SNAPSHOT, SNAPSHOT_COMMAND } from '../src/db/schema-snapshot.js';
import { createLogger } from '../src/logger.js';

it('matches a freshly migrated database', async () => {
  const fresh = await freshSchema(createLogger({ LOG_LEVEL: 'silent', PRETTY_LOGS: false }));
  const stored = await readFile(SCHEMA_SNAPSHOT, 'utf8').catch(() => '');
  // vitest prints the line diff (- stored, + migrations) under this message
  expect(fresh, `prisma/schema.sql differs from what the migrations build; regenerate it with: ${SNAPSHOT_COMMAND}`).toBe(stored);
}, 180_000);

it('holds each function once, in its latest form', async () => {
  const stored = await readFile(SCHEMA_SNAPSHOT, 'utf8');
  const names = [...stored.matchAll(/^CREATE OR REPLACE FUNCTION public\.(\w+)\(/gm)].map((m) => m[1]);
  expect(names.length).toBeGreaterThan(0);
  expect(new Set(names).size).toBe(names.length);
});
