import type { EmbeddingProvider, EmbeddingResult, EmbedRole } from '../types.js';

/**
 * An embedding provider wrapped around another (the gate, the coalescing of requests): what it is
 * (model, dimensions, paid, cached) and whether it answers are the inner provider's; a wrapper
 * says only how `embed` reaches it, and what closing adds.
 */
export abstract class EmbeddingsAround implements EmbeddingProvider {
  constructor(readonly inner: EmbeddingProvider) {}

  get model(): string {
    return this.inner.model;
  }
  get dimensions(): number {
    return this.inner.dimensions;
  }
  get paid(): boolean {
    return this.inner.paid;
  }
  get cached(): boolean {
    return this.inner.cached;
  }

  abstract embed(texts: string[], role: EmbedRole): Promise<EmbeddingResult>;

  ready(): Promise<void> {
    return this.inner.ready();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
