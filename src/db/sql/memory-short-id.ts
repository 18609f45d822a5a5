import type { Queryable } from '../pool.js';

/**
 * Memory ids starting with these 8 hex digits (the working memory's `m:abcd1234`), at most two:
 * a range scan on the primary key, so it costs what a lookup by id costs. Takes the 8 lowercase
 * hex digits; read only.
 */
export async function memoryIdsByPrefix(tx: Queryable, prefix8: string): Promise<string[]> {
  const { rows } = await tx.query<{ id: string }>(
    `SELECT id FROM memories WHERE id BETWEEN ($1 || '-0000-0000-0000-000000000000')::uuid AND ($1 || '-ffff-ffff-ffff-ffffffffffff')::uuid ORDER BY id LIMIT 2`,
    [prefix8],
  );
  return rows.map((r) => r.id);
}
