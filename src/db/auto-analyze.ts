import type { Logger } from '../logger.js';
import type { Db } from './pool.js';
import { VECTOR_TABLES, ensureVectorIndexes, type VectorTable } from './vector-index.js';

/** How often a pass also VACUUMs tables with many dead rows, and runs a CHECKPOINT. */
const VACUUM_EVERY_MS = 60_000;
/** How often the vacuum pass also cleans the HNSW tables' indexes (ANN_TABLES), a hold of seconds. */
const FULL_VACUUM_EVERY_MS = 6 * 3_600_000;
/**
 * A CHECKPOINT writes what changed since the last one and holds the session while it does: every
 * 5 minutes it held it 141–163 ms in the soak (shared_buffers 32MB, full_page_writes off, so a
 * more frequent one costs no extra WAL).
 */
const CHECKPOINT_EVERY_MS = 60_000;
const ANALYZE_STATISTICS_TARGET = 10;
/** When the vector indexes of tables grown while no process ran are first looked at. */
const ANN_LOOK_ALL_AFTER_MS = 10_000;

/**
 * PostgreSQL's autovacuum (ANALYZE and VACUUM) and checkpointer for the embedded database, which
 * has neither.
 *
 * PGlite is one process with one session: no autovacuum launcher, so no table ever gets planner
 * statistics. Without them the planner guesses a handful of rows per table and, for every query
 * under row-level security, ANDs a bitmap scan of the whole tenant (the `tenant_id = ...` policy
 * qual) into the plan, a cost that grows with the data: after 1,576 events, marking 215 events
 * embedded took 89 ms and inserting 20 memories 38 ms, most of it in such scans. A server has
 * autovacuum and never plans this way; here this loop does what it would do.
 *
 * Every `intervalMs`, the tables modified by more than autovacuum's threshold (50 rows + 10% of
 * the table, PostgreSQL's defaults) since their last ANALYZE are analyzed. ANALYZE samples at most
 * 30,000 rows per table, so it stays cheap however large a table grows; it holds PGlite's session
 * while it runs, as every statement does. The application role may run it through the predefined
 * role pg_maintain (embedded.ts grants it).
 *
 * Embedded mode leaves out a vector table's HNSW index while the table is small enough to be
 * searched exactly (src/db/vector-index.ts); `annIndex` has a pass that analyzed `chunks` or
 * `memories` build it once the fresh statistics say the table has outgrown `minRows`.
 *
 * Every VACUUM_EVERY_MS, tables past autovacuum's vacuum threshold (50 dead rows + 20% of the
 * table) are vacuumed, so deleted and updated rows (forget, TTL, dream, BullMQ's job rows) free
 * their space for new rows instead of growing pgdata; index cleanup is left to VACUUM's own
 * judgement (INDEX_CLEANUP AUTO skips it while few pages have dead rows), except on the tables with
 * an HNSW index, whose indexes are cleaned every FULL_VACUUM_EVERY_MS only (ANN_TABLES). Every CHECKPOINT_EVERY_MS a CHECKPOINT bounds the WAL a restart
 * after a crash replays (embedded.ts keeps max_wal_size small for the same reason).
 */
export class AutoAnalyze {
  readonly #db: Db;
  readonly #log: Logger;
  readonly #timer: NodeJS.Timeout;
  #running: Promise<void> | undefined;
  #closed = false;
  readonly #annIndex: { dims: number; minRows: number } | undefined;
  #annPending: VectorTable[] = [...VECTOR_TABLES];
  #annLookedAt = false;
  readonly #annLookAllAt = Date.now() + ANN_LOOK_ALL_AFTER_MS;
  #lastVacuum = Date.now();
  #lastFullVacuum = Date.now();
  #lastCheckpoint = Date.now();

  constructor(db: Db, log: Logger, intervalMs: number, annIndex?: { dims: number; minRows: number }) {
    this.#db = db;
    this.#log = log;
    this.#annIndex = annIndex;
    this.#timer = setInterval(() => void this.run(), intervalMs);
    this.#timer.unref();
  }

  /** One pass (the timer's; tests call it directly). Never throws: a failed pass is logged. */
  async run(): Promise<string[]> {
    if (this.#closed || this.#running) return [];
    let analyzed: string[] = [];
    this.#running = (async () => {
      try {
        analyzed = await analyzeChangedTables(this.#db);
        if (analyzed.length > 0) this.#log.debug({ tables: analyzed }, 'analyzed');
        // Row counts change with ANALYZE; a table whose index exists (or cannot) is not looked at again.
        // The first pass ANN_LOOK_ALL_AFTER_MS after the start looks at every table: an embedded
        // start leaves the check to it (deps.ts), so /readyz does not wait for it (the function is
        // plpgsql, whose first call loads plpgsql), and a start slower than the interval neither.
        const lookAll = !this.#annLookedAt && Date.now() >= this.#annLookAllAt;
        const grown = this.#annPending.filter((t) => lookAll || analyzed.includes(`public.${t}`));
        if (lookAll) this.#annLookedAt = true;
        if (this.#annIndex && grown.length > 0) {
          const states = await ensureVectorIndexes(this.#db, this.#annIndex.dims, this.#annIndex.minRows, this.#log, grown);
          this.#annPending = this.#annPending.filter((t) => states.get(t) === 'small' || !states.has(t));
        }
        if (Date.now() - this.#lastVacuum >= VACUUM_EVERY_MS) {
          this.#lastVacuum = Date.now();
          const indexCleanup = Date.now() - this.#lastFullVacuum >= FULL_VACUUM_EVERY_MS;
          if (indexCleanup) this.#lastFullVacuum = Date.now();
          const vacuumed = await vacuumChangedTables(this.#db, { indexCleanup });
          if (vacuumed.length > 0) this.#log.info({ tables: vacuumed.map((v) => v.name), ms: vacuumed.map((v) => v.ms) }, 'vacuumed');
        }
        if (Date.now() - this.#lastCheckpoint >= CHECKPOINT_EVERY_MS) {
          this.#lastCheckpoint = Date.now();
          const start = performance.now();
          await this.#db.query('CHECKPOINT');
          this.#log.debug({ ms: Math.round(performance.now() - start) }, 'checkpoint');
        }
      } catch (err) {
        if (!this.#closed) this.#log.warn({ err }, 'auto-analyze failed');
      }
    })();
    await this.#running;
    this.#running = undefined;
    return analyzed;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    await this.#running;
  }
}

/**
 * Tables whose counter (`n_mod_since_analyze` or `n_dead_tup`) is past autovacuum's threshold:
 * 50 rows + `fraction` of the table (PostgreSQL's defaults: 10% for ANALYZE, 20% for VACUUM).
 */
async function tablesPast(db: Db, counter: 'n_mod_since_analyze' | 'n_dead_tup', fraction: number): Promise<string[]> {
  // Statistics counters reach the shared view only when the session flushes them, at most once a
  // second; force it so a burst of writes is seen now.
  await db.query('SELECT pg_stat_force_next_flush()');
  const { rows } = await db.query<{ name: string }>(
    `SELECT format('%I.%I', s.schemaname, s.relname) AS name
     FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
     WHERE s.${counter} > 50 + $1 * greatest(c.reltuples, 0)
     ORDER BY s.${counter} DESC`,
    [fraction],
  );
  return rows.map((r) => r.name);
}

/** Analyzes the tables past autovacuum's analyze threshold; returns their qualified names. */
export async function analyzeChangedTables(db: Db): Promise<string[]> {
  const names = await tablesPast(db, 'n_mod_since_analyze', 0.1);
  // A sample of 3,000 rows (statistics target 10) instead of PostgreSQL's 30,000: on PGlite one
  // ANALYZE of chunks or BullMQ's job table held the single session 1.7-1.8 s in the soak, and its
  // sample of rows with vectors grew the WASM heap, which never shrinks. Row counts and the common
  // values the planner needs here come out the same.
  for (const name of names) await db.query(`BEGIN; SET LOCAL default_statistics_target = ${ANALYZE_STATISTICS_TARGET}; ANALYZE ${name}; COMMIT`);
  return names;
}

/**
 * Tables with HNSW indexes. Their index cleanup walks and repairs the whole graph: at 20,000 chunks
 * of one user a `VACUUM (INDEX_CLEANUP AUTO)` of `chunks` held PGlite's one thread — the API's
 * too — for 5.7–14.0 s (soak, 2026-12-04). The regular pass vacuums them without index cleanup
 * (dead rows' space is freed, their index entries and line pointers stay); a pass with
 * `indexCleanup` (AutoAnalyze: every FULL_VACUUM_EVERY_MS) cleans their indexes too.
 */
const ANN_TABLES = new Set(['public.chunks', 'public.memories']);

/** The VACUUM of one table: HNSW tables skip index cleanup unless `indexCleanup`. */
export function vacuumStatement(name: string, indexCleanup: boolean): string {
  return `VACUUM (INDEX_CLEANUP ${indexCleanup || !ANN_TABLES.has(name) ? 'AUTO' : 'OFF'}) ${name}`;
}

/** VACUUMs the tables past autovacuum's vacuum threshold, one at a time; returns them with how long each took. */
export async function vacuumChangedTables(db: Db, opts: { indexCleanup: boolean } = { indexCleanup: true }): Promise<Array<{ name: string; ms: number }>> {
  const done: Array<{ name: string; ms: number }> = [];
  for (const name of await tablesPast(db, 'n_dead_tup', 0.2)) {
    const start = performance.now();
    await db.query(vacuumStatement(name, opts.indexCleanup));
    done.push({ name, ms: Math.round(performance.now() - start) });
  }
  return done;
}
