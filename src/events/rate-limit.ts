/**
 * Per-tenant token bucket for the ingest rate (events per second, bursts up to one second's worth).
 * In-process: each API replica enforces its own share, which is what protects that replica.
 */
export class TenantRateLimiter {
  readonly #rate: number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(ratePerSec: number) {
    this.#rate = ratePerSec;
  }

  /** Takes `n` tokens; returns 0 when allowed, else the milliseconds until they would be available. */
  take(tenantId: string, n: number, now = Date.now()): number {
    const b = this.#buckets.get(tenantId) ?? { tokens: this.#rate, at: now };
    b.tokens = Math.min(this.#rate, b.tokens + ((now - b.at) / 1000) * this.#rate);
    b.at = now;
    this.#buckets.set(tenantId, b);
    if (n <= b.tokens) {
      b.tokens -= n;
      return 0;
    }
    return Math.ceil(((n - b.tokens) / this.#rate) * 1000);
  }
}
