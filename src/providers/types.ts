/**
 * The provider contracts. Workers only see these interfaces; which implementation runs is decided
 * by configuration in src/providers/index.ts. Every paid call goes through the gate (src/providers/gate.ts).
 */

/** Whether a text is stored (document side) or asked (query side): lexical models weight them differently. */
export type EmbedRole = 'document' | 'query';

export interface EmbeddingResult {
  vectors: number[][];
  /** Tokens the provider billed, when it says so. */
  tokens?: number;
}

export interface EmbeddingProvider {
  /** Stable model id stored beside every vector, e.g. `local-hashing-v1`, `local-use-lite`, `text-embedding-3-small`. */
  readonly model: string;
  readonly dimensions: number;
  /** Paid providers cost money and are gated; local ones are not. */
  readonly paid: boolean;
  /**
   * Whether document vectors go through the embedding cache (src/embeddings.ts): yes where a
   * vector costs money or real compute; no for a model that computes one faster than the cache
   * can return it (local hashing).
   */
  readonly cached: boolean;
  embed(texts: string[], role: EmbedRole): Promise<EmbeddingResult>;
  /** Cheap check that the provider answers; throws a MemloomError when it does not. */
  ready(): Promise<void>;
  close(): Promise<void>;
}
