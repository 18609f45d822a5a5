import { withTenant, type Db } from './db/pool.js';
import { getCachedVectors, putCachedVectors } from './db/sql/embedding-cache.js';
import { contentHash } from './domain/text.js';
import { yieldToEventLoop } from './event-loop.js';
import type { EmbeddingProvider } from './providers/types.js';

interface InFlight {
  tenantId: string;
  /** Resolves once the vector is also in that tenant's cache. */
  vector: Promise<number[]>;
}

/**
 * Texts being embedded right now in this process, per provider instance (so per model and per
 * deps: nothing to reset between tests). Concurrent jobs that need the same text — two embed jobs
 * over one event, two sessions naming the same entity — wait for the one call instead of paying
 * for a second. Across processes only the cache deduplicates.
 */
const inFlight = new WeakMap<EmbeddingProvider, Map<string, InFlight>>();

/**
 * Texts embedded per step of embedDocuments. A 1 MiB event has ~1,200 chunks and its extraction
 * thousands of texts: each step's vectors are cached in their own short transaction (a crash keeps
 * what was paid for), and the thread is given back between steps (local hashing embeds on it).
 */
export const EMBED_STEP = 256;

/**
 * Document vectors through the tenant's cache: identical text is never embedded twice (the cache
 * is keyed by model + sha256(text)), and a job replayed after a crash finds its vectors cached.
 * A model that computes a vector faster than the cache returns one (`cached: false`, local
 * hashing) skips it. Never call inside a transaction: the provider call happens between two short
 * ones. Many texts go in steps of EMBED_STEP.
 */
export async function embedDocuments(db: Db, tenantId: string, embeddings: EmbeddingProvider, texts: string[]): Promise<number[][]> {
  if (texts.length <= EMBED_STEP) return embedStep(db, tenantId, embeddings, texts);
  const vectors: number[][] = [];
  for (let i = 0; i < texts.length; i += EMBED_STEP) {
    if (i > 0) await yieldToEventLoop();
    vectors.push(...(await embedStep(db, tenantId, embeddings, texts.slice(i, i + EMBED_STEP))));
  }
  return vectors;
}

async function embedStep(db: Db, tenantId: string, embeddings: EmbeddingProvider, texts: string[]): Promise<number[][]> {
  if (texts.length === 0) return [];
  if (!embeddings.cached) return (await embeddings.embed(texts, 'document')).vectors;
  const hashes = texts.map((t) => contentHash(t));
  let running = inFlight.get(embeddings);
  if (!running) {
    running = new Map();
    inFlight.set(embeddings, running);
  }
  // Registered synchronously, before any await: a concurrent caller either sees the entry or, once
  // it is gone, finds the vector in the cache.
  const borrowed = new Map<string, InFlight>();
  const owned = new Map<string, { text: string; resolve: (v: number[]) => void; reject: (err: unknown) => void }>();
  hashes.forEach((h, i) => {
    if (borrowed.has(h) || owned.has(h)) return;
    const other = running.get(h);
    if (other) {
      borrowed.set(h, other);
      return;
    }
    let resolve!: (v: number[]) => void;
    let reject!: (err: unknown) => void;
    const vector = new Promise<number[]>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // Waiters handle the rejection; this only keeps an unwaited failure from crashing the process.
    vector.catch(() => undefined);
    running.set(h, { tenantId, vector });
    owned.set(h, { text: texts[i] as string, resolve, reject });
  });

  const vectors = new Map<string, number[]>();
  try {
    if (owned.size > 0) {
      const cached = await withTenant(db, tenantId, (tx) => getCachedVectors(tx, embeddings.model, [...owned.keys()], embeddings.dimensions));
      const missing = [...owned].filter(([h]) => !cached.has(h));
      if (missing.length > 0) {
        const { vectors: fresh } = await embeddings.embed(
          missing.map(([, o]) => o.text),
          'document',
        );
        const entries = missing.map(([hash], i) => ({ hash, vector: fresh[i] as number[] }));
        await withTenant(db, tenantId, (tx) => putCachedVectors(tx, embeddings.model, entries));
        for (const e of entries) cached.set(e.hash, e.vector);
      }
      for (const [h, o] of owned) {
        vectors.set(h, cached.get(h) as number[]);
        o.resolve(cached.get(h) as number[]);
      }
    }
  } catch (err) {
    for (const o of owned.values()) o.reject(err);
    throw err;
  } finally {
    for (const h of owned.keys()) running.delete(h);
  }

  if (borrowed.size > 0) {
    const foreign: Array<{ hash: string; vector: number[] }> = [];
    for (const [h, b] of borrowed) {
      const v = await b.vector;
      vectors.set(h, v);
      if (b.tenantId !== tenantId) foreign.push({ hash: h, vector: v });
    }
    // The cache is per tenant: a vector borrowed from another tenant's call is stored for this one too.
    if (foreign.length > 0) await withTenant(db, tenantId, (tx) => putCachedVectors(tx, embeddings.model, foreign));
  }
  return hashes.map((h) => vectors.get(h) as number[]);
}
