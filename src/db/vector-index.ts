import type pg from 'pg';
import type { Logger } from '../logger.js';

const VECTOR_TABLES = ['chunks', 'memories'] as const;
/** Graph parameters of every HNSW index (why: prisma/migrations/20261130020000_hnsw_build_params). */
const HNSW_BUILD = 'WITH (m = 8, ef_construction = 32)';
/** pgvector's HNSW limit for the `vector` type. */
const MAX_HNSW_DIMS = 2000;

/**
 * Vectors live in untyped `vector` columns beside their dimensions; HNSW indexes are partial
 * expression indexes per dimension (`embedding::vector(N)` WHERE embedding_dims = N). The initial
 * migration has 384 and 512; a model with another size gets its index here, once, at startup.
 * Queries must use the same expression and predicate (src/db/sql/vector-search.ts) to hit it.
 */
export async function ensureVectorIndexes(owner: pg.ClientBase, dims: number, log: Logger): Promise<void> {
  if (dims > MAX_HNSW_DIMS) {
    log.warn({ dims, max: MAX_HNSW_DIMS }, 'embedding dimensions exceed the HNSW limit; vector search runs without an index');
    return;
  }
  for (const table of VECTOR_TABLES) {
    const name = `${table}_hnsw_${dims}`;
    const { rowCount } = await owner.query('SELECT 1 FROM pg_indexes WHERE indexname = $1', [name]);
    if (rowCount) continue;
    await owner.query(`CREATE INDEX IF NOT EXISTS ${name} ON ${table} USING hnsw ((embedding::vector(${dims})) vector_cosine_ops) ${HNSW_BUILD} WHERE embedding_dims = ${dims}`);
    log.info({ index: name }, 'vector index created');
  }
}
