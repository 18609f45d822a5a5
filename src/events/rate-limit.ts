/**
 * Per-tenant token bucket for the ingest rate (events per second, bursts up to one second's worth).
 * In-process: each API replica enforces its own share, which is what protects that replica.
 *
 * A batch larger than one second's worth is let through once the bucket is full and leaves the
 * bucket in debt, so the tenant then waits as long as the batch deserves; otherwise a batch over
 * the rate would be refused forever, whatever Retry-After said.
 */
export class TenantRateLimiter {
  readonly #rate: number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(ratePerSec: number) {
    this.#rate = ratePerSec;
  }

  /** Takes `n` tokens; returns 0 when allowed, else the milliseconds until the request would be allowed. */
  take(tenantId: string, n: number, now = Date.now()): number {
    const b = this.#buckets.get(tenantId) ?? { tokens: this.#rate, at: now };
    b.tokens = Math.min(this.#rate, b.tokens + ((now - b.at) / 1000) * this.#rate);
    b.at = now;
    this.#buckets.set(tenantId, b);
    const needed = Math.min(n, this.#rate);
    if (b.tokens >= needed) {
      b.tokens -= n;
      return 0;
    }
    return Math.ceil(((needed - b.tokens) / this.#rate) * 1000);
  }
}
