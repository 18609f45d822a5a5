import { withTenant } from '../../src/db/pool.js';
import { chunksWithoutVectors, writeChunkVectors } from '../../src/db/sql/chunks.js';
import { markEmbedded, pendingExtractions } from '../../src/db/sql/embed.js';
import { embedDocuments } from '../../src/embeddings.js';
import { defineStage } from '../../src/queue/stage.js';
import { extractJob } from '../extract/schema.js';
import { EmbedInput, embedKey } from './schema.js';

/**
 * Chunks whose vectors one transaction writes. Each also rewrites its neighbours' key vectors, and
 * a rewritten row cost ~3.5 ms at 20,000 chunks of a user (the soak, `EXPLAIN ANALYZE`: nearly all
 * of it in the update itself, index upkeep included); 16 chunks still held the database up to
 * 158 ms in one statement late in the soak, so 8 keep a transaction near 100 ms.
 */
const VECTORS_PER_TRANSACTION = 8;

/**
 * Vectors for the chunks of a batch of events. Texts of concurrent jobs are coalesced into one
 * provider call; identical texts hit the cache; a replay finds no chunk without a vector and makes
 * no provider call.
 */
export const embed = defineStage({
  name: 'embed',
  input: EmbedInput,
  key: embedKey,
  async handle({ tenantId, eventIds }, { deps }) {
    const embeddings = deps.providers.embeddings;
    const todo = await withTenant(deps.db, tenantId, (tx) => chunksWithoutVectors(tx, eventIds));
    const cpu = deps.metrics.stageCpu;
    const vectors = await cpu.part('provider', () =>
      embedDocuments(
        deps.db,
        tenantId,
        embeddings,
        todo.map((c) => c.content),
      ),
    );
    const rows = todo.map((c, i) => ({ id: c.id, vector: vectors[i] as number[] }));
    // Vectors in short transactions (each row is an HNSW insert for itself and its neighbours'
    // keys; on the embedded database a transaction holds the one session the API needs too). A
    // crash between them leaves the rest without vectors, which a replay finds and writes.
    const slices: Array<typeof rows> = [];
    for (let i = 0; i < rows.length; i += VECTORS_PER_TRANSACTION) slices.push(rows.slice(i, i + VECTORS_PER_TRANSACTION));
    const final = slices.pop() ?? [];
    // The next stage is read from stored state in the same transaction as the last vectors (also on a replay).
    const pending = await cpu.part('write', async () => {
      for (const slice of slices) await withTenant(deps.db, tenantId, (tx) => writeChunkVectors(tx, slice, embeddings.model, embeddings.dimensions));
      return withTenant(deps.db, tenantId, async (tx) => {
        await writeChunkVectors(tx, final, embeddings.model, embeddings.dimensions);
        await markEmbedded(tx, eventIds);
        return pendingExtractions(tx, eventIds);
      });
    });
    return { embedded: todo.length, pending };
  },
  next({ tenantId }, result, { deps }) {
    return result.pending.map((p) => extractJob(deps.config, tenantId, p.extract_key, p.oldest));
  },
});
