/**
 * Working-memory storage (docs/architecture.md, pipeline stage 7): the candidate memories of a user's digest, the
 * stored digest in user_state, and the user scopes a refresh should cover. A scope is a user id,
 * '' standing for memories without a user.
 */
import type { Queryable } from '../pool.js';

export interface BriefingRow {
  id: string;
  kind: string;
  content: string;
  importance: number;
  is_crystal: boolean;
  event_time: Date | null;
  occurred_at: Date;
  access_count: number;
  /** The version this memory superseded (slot supersession or correction), if any. */
  replaced_id: string | null;
  replaced_content: string | null;
  replaced_at: Date | null;
}

/**
 * Current memories of one scope (active, not superseded, not expired), at most `perKind` of each
 * kind: decisions and plans newest first (the digest wants the recent ones), other kinds most
 * important first; each with the version it replaced, if any (the latest one).
 */
export async function briefingCandidates(tx: Queryable, userKey: string, perKind: number): Promise<BriefingRow[]> {
  const { rows } = await tx.query<BriefingRow>(
    `SELECT x.id, x.kind, x.content, x.importance, x.is_crystal, x.event_time, x.occurred_at, x.access_count,
            p.id AS replaced_id, p.content AS replaced_content, p.superseded_at AS replaced_at
     FROM (
       SELECT m.id, m.kind, m.content, m.importance, m.is_crystal, m.event_time, m.occurred_at, coalesce(s.access_count, 0) AS access_count,
              row_number() OVER (PARTITION BY m.kind ORDER BY CASE WHEN m.kind IN ('decision', 'plan') THEN 0 ELSE m.importance END DESC,
                                 coalesce(m.event_time, m.occurred_at) DESC, m.id) AS rn
       FROM memories m LEFT JOIN memory_signals s ON s.memory_id = m.id
       WHERE m.status = 'active' AND m.superseded_by IS NULL AND coalesce(m.user_id, '') = $1
         AND (m.expires_at IS NULL OR m.expires_at > now())) x
     LEFT JOIN LATERAL (
       SELECT o.id, o.content, o.superseded_at FROM memories o WHERE o.superseded_by = x.id ORDER BY o.superseded_at DESC NULLS LAST, o.id LIMIT 1
     ) p ON true
     WHERE x.rn <= $2`,
    [userKey, perKind],
  );
  return rows;
}

/** Stores the scope's digest (NULL: nothing to say) and the refresh time. */
export async function saveBriefing(tx: Queryable, userKey: string, markdown: string | null, tokens: number | null): Promise<void> {
  await tx.query(
    `INSERT INTO user_state (user_id, last_briefing_at, briefing_md, briefing_tokens) VALUES ($1, now(), $2, $3)
     ON CONFLICT (tenant_id, user_id) DO UPDATE SET last_briefing_at = now(), briefing_md = EXCLUDED.briefing_md,
       briefing_tokens = EXCLUDED.briefing_tokens, updated_at = now()`,
    [userKey, markdown, tokens],
  );
}

export async function getBriefing(tx: Queryable, userKey: string): Promise<{ markdown: string; refreshed_at: Date; tokens: number } | undefined> {
  const { rows } = await tx.query<{ markdown: string; refreshed_at: Date; tokens: number }>(
    'SELECT briefing_md AS markdown, last_briefing_at AS refreshed_at, coalesce(briefing_tokens, 0) AS tokens FROM user_state WHERE user_id = $1 AND briefing_md IS NOT NULL',
    [userKey],
  );
  return rows[0];
}

/** Scopes a scheduled refresh covers: every scope with active memories, and every scope with a digest (it may have to go). */
export async function briefingScopes(tx: Queryable): Promise<string[]> {
  const { rows } = await tx.query<{ u: string }>(
    `SELECT DISTINCT coalesce(user_id, '') AS u FROM memories WHERE status = 'active'
     UNION SELECT user_id FROM user_state WHERE briefing_md IS NOT NULL ORDER BY 1`,
  );
  return rows.map((r) => r.u);
}

/**
 * User scopes of the events of one extraction key (see src/domain/routing.ts extractKeyOf):
 * `user:<id>` names its user, a session or a document is looked up through its indexed column.
 */
export async function usersOfExtractKey(tx: Queryable, key: string): Promise<string[]> {
  if (key.startsWith('user:')) return [key.slice('user:'.length)];
  const { rows } = key.startsWith('session:')
    ? await tx.query<{ u: string }>(`SELECT DISTINCT coalesce(user_id, '') AS u FROM events WHERE session_id = $1`, [key.slice('session:'.length)])
    : key.startsWith('doc:') && /^[0-9a-f-]{36}$/i.test(key.slice(4))
      ? await tx.query<{ u: string }>(`SELECT coalesce(user_id, '') AS u FROM events WHERE id = $1`, [key.slice(4)])
      : await tx.query<{ u: string }>(`SELECT DISTINCT coalesce(user_id, '') AS u FROM events WHERE extract_key = $1`, [key]);
  return rows.map((r) => r.u);
}

/** When each of these scopes' working memory was last refreshed (absent: never). */
export async function lastBriefingTimes(tx: Queryable, userKeys: string[]): Promise<Map<string, Date>> {
  if (userKeys.length === 0) return new Map();
  const { rows } = await tx.query<{ user_id: string; at: Date }>(
    'SELECT user_id, last_briefing_at AS at FROM user_state WHERE user_id = ANY($1::text[]) AND last_briefing_at IS NOT NULL',
    [userKeys],
  );
  return new Map(rows.map((r) => [r.user_id, r.at]));
}
