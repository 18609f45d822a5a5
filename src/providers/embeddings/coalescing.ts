import { currentGateScope, runInGateScope, type GateScope } from '../gate-scope.js';
import type { EmbeddingProvider, EmbeddingResult, EmbedRole } from '../types.js';
import { EmbeddingsAround } from './around.js';

interface Waiter {
  texts: string[];
  resolve: (vectors: number[][]) => void;
  reject: (err: unknown) => void;
}

/** Waiters of one tenant: their texts go out together and are charged to that tenant. */
interface Group {
  scope: GateScope;
  waiters: Waiter[];
  count: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Coalesces document embeddings requested by concurrent jobs of one process into one provider
 * call (up to `maxBatch` texts, waiting at most `windowMs` for company): a paid provider charges
 * per request and counts requests per minute, and several embed jobs (and extraction's entity
 * names) run at once. Sits outside the gate, so the gate sees the requests that really leave.
 * Texts are grouped per tenant of the caller's gate scope, so each tenant's budget pays for its
 * own texts, and a rate limit sends every job of the request back to its queue. Queries go straight through: they are latency-bound and single.
 */
export class CoalescingEmbeddings extends EmbeddingsAround {
  readonly #maxBatch: number;
  readonly #windowMs: number;
  readonly #groups = new Map<string, Group>();

  constructor(inner: EmbeddingProvider, opts: { maxBatch: number; windowMs: number }) {
    super(inner);
    this.#maxBatch = Math.max(1, opts.maxBatch);
    this.#windowMs = opts.windowMs;
  }

  async embed(texts: string[], role: EmbedRole): Promise<EmbeddingResult> {
    if (role === 'query' || texts.length === 0) return this.inner.embed(texts, role);
    const scope = currentGateScope() ?? {};
    // Jobs and interactive callers stay apart: the gate makes a job wait in its queue (rate
    // limit) but an interactive caller in place.
    const key = `${scope.tenantId ?? ''}|${scope.jobId === undefined ? 'interactive' : 'job'}`;
    const vectors = await new Promise<number[][]>((resolve, reject) => {
      let group = this.#groups.get(key);
      if (!group) {
        // The request runs in the scope of the group's first caller: its tenant pays, and
        // token_usage names that caller's job for the shared request.
        group = { scope, waiters: [], count: 0, timer: undefined };
        this.#groups.set(key, group);
      }
      group.waiters.push({ texts, resolve, reject });
      group.count += texts.length;
      if (group.count >= this.#maxBatch) this.#flush(key);
      else group.timer ??= setTimeout(() => this.#flush(key), this.#windowMs);
    });
    return { vectors };
  }

  #flush(key: string): void {
    const group = this.#groups.get(key);
    if (!group) return;
    this.#groups.delete(key);
    if (group.timer) clearTimeout(group.timer);
    const batch = group.waiters;
    runInGateScope(group.scope, () =>
      this.inner.embed(
        batch.flatMap((w) => w.texts),
        'document',
      ),
    ).then(
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

  override async close(): Promise<void> {
    for (const key of [...this.#groups.keys()]) this.#flush(key);
    await super.close();
  }
}
