/** npm run schema:snapshot: writes prisma/schema.sql from a freshly migrated embedded database (src/db/schema-snapshot.ts). */
import { writeFile } from 'node:fs/promises';
import { SCHEMA_SNAPSHOT, freshSchema } from '../src/db/schema-snapshot.js';
import { createLogger } from '../src/logger.js';

const log = createLogger({ LOG_LEVEL: 'warn', PRETTY_LOGS: false });
await writeFile(SCHEMA_SNAPSHOT, await freshSchema(log));
process.stderr.write(`wrote ${SCHEMA_SNAPSHOT}\n`);
