import type { Queryable } from './pool.js';
import type { Logger } from '../logger.js';

export const VECTOR_TABLES = ['chunks', 'memories'] as const;
export type VectorTable = (typeof VECTOR_TABLES)[number];
export type VectorIndexState = 'created' | 'exists' | 'small' | 'unsupported';
/**
 * Embedded mode builds a vector table's HNSW index once the table passes this many rows. The
 * build is one statement, and PGlite runs nothing else while it runs: at 5,000 chunks it held the
 * database 324–514 ms in the soak, and the cost grows with the rows. Searches stay exact up to
 * EXACT_SCAN_MAX rows per user (src/db/sql/recall.ts) whether the index exists or not; built
 * earlier, it only costs the inserts between the two thresholds a graph update each.
 */
export const EMBEDDED_ANN_MIN_ROWS = 1000;
/** pgvector's HNSW limit for the `vector` type (the SQL function checks it too). */
const MAX_HNSW_DIMS = 2000;

/**
 * Vectors live in untyped `vector` columns beside their dimensions; HNSW indexes are partial
 * expression indexes per dimension (`embedding::vector(N)` WHERE embedding_dims = N), which
 * queries must match (src/db/sql/recall.ts, memories-write.ts). The SQL function
 * memloom_ensure_ann_index (prisma/migrations/20261130030000_ann_index_on_demand) builds one when
 * it is missing and its table holds more than `minRows` rows: 0 in server mode (every index at
 * startup), EMBEDDED_ANN_MIN_ROWS in embedded mode, where an index on a small table would only cost
 * every insert a graph update on PGlite's one thread (AutoAnalyze builds it once the table grows).
 * Returns each table's state: built now, already there, still too small, or over the HNSW limit.
 */
export async function ensureVectorIndexes(
  db: Queryable,
  dims: number,
  minRows: number,
  log: Logger,
  tables: readonly VectorTable[] = VECTOR_TABLES,
): Promise<Map<VectorTable, VectorIndexState>> {
  const states = new Map<VectorTable, VectorIndexState>();
  for (const table of tables) {
    const started = performance.now();
    const { rows } = await db.query<{ state: VectorIndexState }>('SELECT memloom_ensure_ann_index($1, $2, $3) AS state', [table, dims, minRows]);
    const state = rows[0]?.state ?? 'small';
    states.set(table, state);
    if (state === 'created') log.info({ index: `${table}_hnsw_${dims}`, ms: Math.round(performance.now() - started) }, 'vector index created');
  }
  if ([...states.values()].includes('unsupported'))
    log.warn({ dims, max: MAX_HNSW_DIMS }, 'embedding dimensions exceed the HNSW limit; vector search runs without an index');
  return states;
}
