import { withTenant } from '../../src/db/pool.js';
import { chunksWithoutVectors, writeChunkVectors } from '../../src/db/sql/chunks.js';
import { markEmbedded, pendingExtractions } from '../../src/db/sql/embed.js';
import { embedDocuments } from '../../src/embeddings.js';
import { defineStage } from '../../src/queue/stage.js';
import { extractJob } from '../extract/schema.js';
import { EmbedInput, embedKey } from './schema.js';

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
    const vectors = await embedDocuments(
      deps.db,
      tenantId,
      embeddings,
      todo.map((c) => c.content),
    );
    // The next stage is read from stored state in the same transaction (also on a replay).
    const pending = await withTenant(deps.db, tenantId, async (tx) => {
      await writeChunkVectors(
        tx,
        todo.map((c, i) => ({ id: c.id, vector: vectors[i] as number[] })),
        embeddings.model,
        embeddings.dimensions,
      );
      await markEmbedded(tx, eventIds);
      return pendingExtractions(tx, eventIds);
    });
    return { embedded: todo.length, pending };
  },
  next({ tenantId }, result, { deps }) {
    return result.pending.map((p) => extractJob(deps.config, tenantId, p.extract_key, p.oldest));
  },
});
