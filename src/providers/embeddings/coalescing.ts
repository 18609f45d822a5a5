import type { EmbeddingProvider, EmbeddingResult, EmbedRole } from '../types.js';

interface Waiter {
  texts: string[];
  resolve: (vectors: number[][]) => void;
  reject: (err: unknown) => void;
}

/**
 * Coalesces document embeddings requested by concurrent jobs into one provider call (up to
 * `maxBatch` texts, waiting at most `windowMs` for company). Queries go straight through: they are
 * latency-bound and single.
 */
export class CoalescingEmbeddings implements EmbeddingProvider {
  readonly #inner: EmbeddingProvider;
  readonly #maxBatch: number;
  readonly #windowMs: number;
  #waiting: Waiter[] = [];
  #count = 0;
  #timer: NodeJS.Timeout | undefined;
  /** Provider calls made for documents (coalescing is visible in tests and metrics). */
  calls = 0;

  constructor(inner: EmbeddingProvider, opts: { maxBatch: number; windowMs: number }) {
    this.#inner = inner;
    this.#maxBatch = opts.maxBatch;
    this.#windowMs = opts.windowMs;
  }

  get model(): string {
    return this.#inner.model;
  }
  get dimensions(): number {
    return this.#inner.dimensions;
  }
  get paid(): boolean {
    return this.#inner.paid;
  }
  get cached(): boolean {
    return this.#inner.cached;
  }
  get inner(): EmbeddingProvider {
    return this.#inner;
  }

  async embed(texts: string[], role: EmbedRole): Promise<EmbeddingResult> {
    if (role === 'query' || texts.length === 0) return this.#inner.embed(texts, role);
    const vectors = await new Promise<number[][]>((resolve, reject) => {
      this.#waiting.push({ texts, resolve, reject });
      this.#count += texts.length;
      if (this.#count >= this.#maxBatch) this.#flush();
      else this.#timer ??= setTimeout(() => this.#flush(), this.#windowMs);
    });
    return { vectors };
  }

  #flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#waiting;
    this.#waiting = [];
    this.#count = 0;
    if (batch.length === 0) return;
    this.calls++;
    this.#inner.embed(batch.flatMap((w) => w.texts), 'document').then(
      ({ vectors }) => {
        let i = 0;
        for (const w of batch) {
          w.resolve(vectors.slice(i, i + w.texts.length));
          i += w.texts.length;
        }
      },
      (err: unknown) => batch.forEach((w) => w.reject(err)),
    );
  }

  ready(): Promise<void> {
    return this.#inner.ready();
  }

  async close(): Promise<void> {
    this.#flush();
    await this.#inner.close();
  }
}
