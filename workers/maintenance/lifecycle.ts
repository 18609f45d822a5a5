import { listTenants, withTenant } from '../../src/db/pool.js';
import { deleteMemories, purgeEmbeddingCache } from '../../src/db/sql/forget.js';
import { activeMemoriesPage, applyTtlDefaults, archiveMemories, expiredMemoryIds, withFeedback, writeDecay } from '../../src/db/sql/lifecycle.js';
import type { Deps } from '../../src/deps.js';
import { archiveBlockers, decayValue, type DecayPolicy } from '../../src/domain/decay.js';
import { contentHash } from '../../src/domain/text.js';

// Rows per transaction: each batch is a short transaction, so the API (and PGlite's one session)
// never waits long behind the sweep or the decay refresh, whatever the number of memories.
const SWEEP_BATCH = 100;
const DECAY_PAGE = 250;

export interface SweepResult {
  /** Memories that got an expiry from TTL_DEFAULTS. */
  ttl_defaults: number;
  expired: number;
  /** Predecessors that became current again because the version that replaced them expired. */
  reactivated: number;
}

/**
 * The `ttl-sweep` task: applies the per-kind default TTLs, then hard-deletes expired memories
 * (any status) in short per-tenant transactions, with provenance, relations, entity links,
 * vectors and cached vectors of their text, by the same rules as forget (src/db/sql/forget.ts):
 * a predecessor the expired memory superseded becomes current again. Recall already hides an
 * expired memory before the sweep reaches it. Idempotent.
 */
export async function sweepExpired(deps: Deps): Promise<SweepResult> {
  const result: SweepResult = { ttl_defaults: 0, expired: 0, reactivated: 0 };
  for (const tenantId of await listTenants(deps.db)) {
    for (;;) {
      const n = await withTenant(deps.db, tenantId, (tx) => applyTtlDefaults(tx, deps.config.TTL_DEFAULTS, SWEEP_BATCH));
      result.ttl_defaults += n;
      if (n < SWEEP_BATCH) break;
    }
    for (;;) {
      const n = await withTenant(deps.db, tenantId, async (tx) => {
        const ids = await expiredMemoryIds(tx, SWEEP_BATCH);
        if (ids.length === 0) return 0;
        const removed = await deleteMemories(tx, ids);
        await purgeEmbeddingCache(
          tx,
          removed.texts.map((t) => contentHash(t)),
        );
        result.expired += removed.rows;
        result.reactivated += removed.reactivated.length;
        return ids.length;
      });
      if (n < SWEEP_BATCH) break;
    }
  }
  return result;
}

export interface DecayResult {
  /** Memories whose decay value changed. */
  updated: number;
  archived: number;
}

export function decayPolicy(deps: Deps): DecayPolicy {
  return { halfLifeDays: deps.config.DECAY_HALF_LIFE_DAYS, importanceFloor: deps.config.DECAY_IMPORTANCE_FLOOR };
}

/**
 * The daily `decay` task, no LLM: recomputes every active memory's decay (src/domain/decay.ts)
 * page by page, and archives those that meet all four archive conditions (very low decay, zero
 * interactions — no recall access and no feedback —, older than 90 days, still active) and are
 * not protected decisions or insights. Only `decay` and `status` change; confidence never drops.
 */
export async function refreshDecay(deps: Deps, now = new Date()): Promise<DecayResult> {
  const policy = decayPolicy(deps);
  const result: DecayResult = { updated: 0, archived: 0 };
  for (const tenantId of await listTenants(deps.db)) {
    let after: string | null = null;
    for (;;) {
      const cursor: string | null = after;
      const page = await withTenant(deps.db, tenantId, async (tx) => {
        const rows = await activeMemoriesPage(tx, cursor, DECAY_PAGE);
        const values = rows.map((r) => ({
          row: r,
          decay: decayValue(
            { kind: r.kind, importance: r.importance, occurredAt: r.occurred_at, lastAccessedAt: r.last_accessed_at, accessCount: r.access_count },
            policy,
            now,
          ),
        }));
        result.updated += await writeDecay(
          tx,
          values.filter((v) => v.decay !== r4(v.row.decay)).map((v) => ({ id: v.row.id, decay: v.decay })),
        );
        const candidates = values.filter(
          ({ row: r, decay }) =>
            archiveBlockers(
              {
                kind: r.kind,
                importance: r.importance,
                status: r.status,
                decay,
                accessCount: r.access_count,
                hasFeedback: false,
                createdAt: r.created_at,
                occurredAt: r.occurred_at,
              },
              policy,
              now,
            ).length === 0,
        );
        const rated = await withFeedback(
          tx,
          candidates.map((c) => c.row.id),
        );
        result.archived += await archiveMemories(
          tx,
          candidates.map((c) => c.row.id).filter((id) => !rated.has(id)),
        );
        return rows;
      });
      if (page.length < DECAY_PAGE) break;
      after = (page[page.length - 1] as { id: string }).id;
    }
  }
  return result;
}

/** decay is a real (float4): compare at the precision decayValue rounds to. */
const r4 = (x: number) => Math.round(x * 10_000) / 10_000;
