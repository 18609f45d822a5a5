/**
 * Where the provider gate keeps its shared state: Redis when REDIS_URL is set, else PostgreSQL.
 * Both answer the same questions atomically, so the gate holds across every process of a deployment.
 */
import type { Db } from '../db/pool.js';
import {
  acquireGateLease,
  adjustGateWindows,
  readGateWindows,
  releaseGateLease,
  reserveGateWindows,
  setGateCooldown,
  type WindowReservation,
} from '../db/sql/gate.js';

export type { WindowReservation };

/** Success carries the window starts (epoch ms) so the reservation can be corrected in the same windows. */
export type Reservation =
  | { ok: true; windowStarts: number[] }
  /** `refused` is the index of the full window, or -1 while a cooldown runs. */
  | { ok: false; refused: number; retryAfterMs: number };

export interface GateStore {
  readonly kind: 'redis' | 'postgres';
  /** All or nothing; refused while any of `cooldownKeys` runs. Windows are aligned to the epoch on the store's clock. */
  reserve(windows: WindowReservation[], cooldownKeys: string[]): Promise<Reservation>;
  /** Corrects earlier reservations (negative delta refunds); never below 0. */
  adjust(entries: Array<{ key: string; windowMs: number; windowStart: number; delta: number }>): Promise<void>;
  /** Amount used in the current window of each key. */
  used(windows: Array<{ key: string; windowMs: number }>): Promise<number[]>;
  cooldown(key: string, ms: number): Promise<void>;
  /** One of `limit` slots for `leaseMs`; a crashed holder's slot frees itself when the lease ends. */
  acquire(key: string, holder: string, limit: number, leaseMs: number): Promise<boolean>;
  release(key: string, holder: string): Promise<void>;
  close(): Promise<void>;
}

/** PostgreSQL store on the application pool (tables and functions of migration `_gate`). */
export class PgGateStore implements GateStore {
  readonly kind = 'postgres' as const;
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async reserve(windows: WindowReservation[], cooldownKeys: string[]): Promise<Reservation> {
    const r = await reserveGateWindows(this.#db, windows, cooldownKeys);
    if (r.refused === 0) return { ok: true, windowStarts: r.windowStarts };
    return { ok: false, refused: r.refused === -1 ? -1 : r.refused - 1, retryAfterMs: Math.max(1, r.retryAfterMs) };
  }

  adjust(entries: Array<{ key: string; windowMs: number; windowStart: number; delta: number }>): Promise<void> {
    return adjustGateWindows(this.#db, entries);
  }

  used(windows: Array<{ key: string; windowMs: number }>): Promise<number[]> {
    return readGateWindows(this.#db, windows);
  }

  cooldown(key: string, ms: number): Promise<void> {
    return setGateCooldown(this.#db, key, ms);
  }

  acquire(key: string, holder: string, limit: number, leaseMs: number): Promise<boolean> {
    return acquireGateLease(this.#db, key, holder, limit, leaseMs);
  }

  release(key: string, holder: string): Promise<void> {
    return releaseGateLease(this.#db, key, holder);
  }

  async close(): Promise<void> {
    // The pool belongs to deps.
  }
}
