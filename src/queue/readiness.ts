/**
 * Provider readiness for workers. A worker whose stage needs a paid provider is created with
 * `autorun: false` and starts consuming only after that provider's cheap `ready()` check passed,
 * so a wrong key or an unreachable endpoint does not burn every job's attempts. Until then the
 * check reports not ready in /readyz with the reason, and is retried with backoff.
 */
import type { Deps } from '../deps.js';
import { flowOf, type ProviderName } from './flow.js';
import type { QueueName } from './names.js';

/** Same shape as the API's Readiness.checks entries (apps/api/routes/ops.ts). */
export type ReadinessCheck = () => Promise<{ name: string; ok: boolean; reason?: string }>;

const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 30_000;

interface State {
  ok: boolean;
  reason: string;
  ready: Promise<void>;
}

export class ProviderReadiness {
  readonly #deps: Deps;
  readonly #states = new Map<ProviderName, State>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #closed = false;

  constructor(deps: Deps) {
    this.#deps = deps;
  }

  /** Paid providers among those the stage calls (src/queue/flow.ts). Local (unpaid) providers need no check. */
  needs(stage: QueueName): ProviderName[] {
    return flowOf(stage).providers.filter((p) => this.#deps.providers[p].paid);
  }

  /** Resolves once every listed provider answered its readiness check (never rejects). */
  whenReady(names: readonly ProviderName[]): Promise<void> {
    return Promise.all(names.map((n) => this.#watch(n).ready)).then(() => undefined);
  }

  /** One /readyz check per provider being watched. */
  get checks(): ReadinessCheck[] {
    return [...this.#states.keys()].map((name) => async () => {
      const s = this.#states.get(name);
      return s?.ok ? { name: `provider:${name}`, ok: true } : { name: `provider:${name}`, ok: false, reason: s?.reason ?? 'not checked yet' };
    });
  }

  close(): void {
    this.#closed = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }

  #watch(name: ProviderName): State {
    const existing = this.#states.get(name);
    if (existing) return existing;
    const log = this.#deps.log.child({ component: 'readiness', provider: name });
    let resolve!: () => void;
    const state: State = { ok: false, reason: 'checking', ready: new Promise<void>((r) => (resolve = r)) };
    this.#states.set(name, state);
    const attempt = async (backoff: number): Promise<void> => {
      if (this.#closed) return;
      try {
        await this.#deps.providers[name].ready();
        state.ok = true;
        state.reason = '';
        log.info('provider ready; its workers start consuming');
        resolve();
      } catch (err) {
        state.reason = err instanceof Error ? err.message : String(err);
        log.warn({ err, retryInMs: backoff }, 'provider not ready; its workers wait');
        if (this.#closed) return;
        const t = setTimeout(() => {
          this.#timers.delete(t);
          void attempt(Math.min(backoff * 2, MAX_BACKOFF_MS));
        }, backoff);
        this.#timers.add(t);
      }
    };
    void attempt(FIRST_BACKOFF_MS);
    return state;
  }
}
