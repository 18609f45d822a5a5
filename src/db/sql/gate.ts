import type { Queryable } from '../pool.js';

/**
 * The provider gate's counters in PostgreSQL (migration `_gate`). Global tables, no tenant
 * transaction: every function here is one autocommit statement and must not run inside another
 * transaction (the reservation locks its rows only for that statement).
 */

export interface WindowReservation {
  key: string;
  windowMs: number;
  amount: number;
  limit: number;
}

export type ReserveAnswer = { refused: number; retryAfterMs: number; windowStarts: number[] };

/**
 * All-or-nothing reservation of `amount` in each window (sorted by key by the caller). Refused
 * (-1) while any of `cooldownKeys` runs. Idempotent: no; a caller that gives up refunds with
 * `adjustGateWindows`.
 */
export async function reserveGateWindows(db: Queryable, windows: WindowReservation[], cooldownKeys: string[]): Promise<ReserveAnswer> {
  const { rows } = await db.query<{ refused: number; retry_after_ms: string | number; window_starts: Array<string | number> }>(
    'SELECT refused, retry_after_ms, window_starts FROM gate_reserve($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::text[])',
    [windows.map((w) => w.key), windows.map((w) => w.windowMs), windows.map((w) => Math.ceil(w.amount)), windows.map((w) => w.limit), cooldownKeys],
  );
  const row = rows[0];
  if (!row) throw new Error('gate_reserve returned no row');
  return { refused: row.refused, retryAfterMs: Number(row.retry_after_ms), windowStarts: (row.window_starts ?? []).map(Number) };
}

/**
 * Adds `delta` (negative to refund) to windows reserved earlier; never below 0. A window that has
 * already been cleaned up is not recreated (its correction no longer matters).
 */
export async function adjustGateWindows(db: Queryable, entries: Array<{ key: string; windowStart: number; delta: number }>): Promise<void> {
  const changed = entries.filter((e) => e.delta !== 0);
  if (changed.length === 0) return;
  await db.query(
    `UPDATE gate_windows g SET used = greatest(0, g.used + d.delta)
     FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS d(key, ws, delta)
     WHERE g.key = d.key AND g.window_start = timestamptz 'epoch' + d.ws * interval '1 millisecond'`,
    [changed.map((e) => e.key), changed.map((e) => e.windowStart), changed.map((e) => Math.round(e.delta))],
  );
}

/** Amount used in the current window of each key (0 when nothing was reserved yet). Reads only. */
export async function readGateWindows(db: Queryable, windows: Array<{ key: string; windowMs: number }>): Promise<number[]> {
  if (windows.length === 0) return [];
  const { rows } = await db.query<{ used: string | number }>(
    `SELECT coalesce(g.used, 0) AS used
     FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS k(key, window_ms, ord)
     LEFT JOIN gate_windows g ON g.key = k.key
       AND g.window_start = timestamptz 'epoch' + ((floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint / k.window_ms) * k.window_ms) * interval '1 millisecond'
     ORDER BY k.ord`,
    [windows.map((w) => w.key), windows.map((w) => w.windowMs)],
  );
  return rows.map((r) => Number(r.used));
}

/** Nobody passes the gate for `key` before now + ms; a later cooldown already set is kept. */
export async function setGateCooldown(db: Queryable, key: string, ms: number): Promise<void> {
  await db.query(
    `INSERT INTO gate_cooldowns (key, until) VALUES ($1, clock_timestamp() + $2::bigint * interval '1 millisecond')
     ON CONFLICT (key) DO UPDATE SET until = greatest(gate_cooldowns.until, EXCLUDED.until)`,
    [key, Math.ceil(ms)],
  );
}

/** Takes a semaphore slot for `leaseMs` (re-taking one's own slot renews it). */
export async function acquireGateLease(db: Queryable, key: string, holder: string, limit: number, leaseMs: number): Promise<boolean> {
  const { rows } = await db.query<{ ok: boolean }>('SELECT gate_acquire($1, $2, $3, $4) AS ok', [key, holder, limit, Math.ceil(leaseMs)]);
  return rows[0]?.ok === true;
}

export async function releaseGateLease(db: Queryable, key: string, holder: string): Promise<void> {
  await db.query('DELETE FROM gate_leases WHERE key = $1 AND holder = $2', [key, holder]);
}
