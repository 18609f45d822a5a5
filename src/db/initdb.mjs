// Creates a PGlite data directory and exits: `node initdb.mjs <dataDir>`. The embedded database
// runs this in a child process on a fresh MEMLOOM_HOME, because initdb's WASM instance leaves
// ~200 MB resident in whichever process ran it (plain JS, so no TypeScript loader is needed).
import { PGlite } from '@electric-sql/pglite';

const dataDir = process.argv[2];
if (!dataDir) {
  process.stderr.write('usage: node initdb.mjs <dataDir>\n');
  process.exit(2);
}
const db = await PGlite.create({ dataDir });
await db.query('SELECT 1');
await db.close();
