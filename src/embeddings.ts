import { withTenant, type Db } from './db/pool.js';
import { getCachedVectors, putCachedVectors } from './db/sql/embedding-cache.js';
import { contentHash } from './domain/text.js';
import type { EmbeddingProvider } from './providers/types.js';

/**
 * Document vectors through the tenant's cache: identical text is never embedded twice (the cache
 * is keyed by model + sha256(text)), and a job replayed after a crash finds its vectors cached.
 * Never call inside a transaction: the provider call happens between two short ones.
 */
export async function embedDocuments(db: Db, tenantId: string, embeddings: EmbeddingProvider, texts: string[]): Promise<number[][]> {
  if (texts.length === 0) return [];
  const hashes = texts.map((t) => contentHash(t));
  const cached = await withTenant(db, tenantId, (tx) => getCachedVectors(tx, embeddings.model, [...new Set(hashes)]));
  const missing = new Map<string, string>();
  hashes.forEach((h, i) => {
    if (!cached.has(h) && !missing.has(h)) missing.set(h, texts[i] as string);
  });
  if (missing.size > 0) {
    const { vectors } = await embeddings.embed([...missing.values()], 'document');
    const fresh = [...missing.keys()].map((hash, i) => ({ hash, vector: vectors[i] as number[] }));
    await withTenant(db, tenantId, (tx) => putCachedVectors(tx, embeddings.model, fresh));
    for (const f of fresh) cached.set(f.hash, f.vector);
  }
  return hashes.map((h) => cached.get(h) as number[]);
}
