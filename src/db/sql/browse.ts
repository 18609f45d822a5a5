import type { Queryable } from '../pool.js';
import { Params, where } from './recall-filters.js';

/**
 * Who and what a tenant's memory is about, for the console's users and sessions view
 * (GET /v1/users, /v1/sessions, /v1/events). Run inside withTenant (RLS scopes them), read only,
 * no locks. Each returns up to `limit + 1` rows: the extra row only tells the caller a next page exists.
 */

export interface UserSummary {
  user_id: string;
  events: number;
  sessions: number;
  /** Active memories of the user. */
  memories: number;
  last_event_at: Date;
}

/** Users that sent events, by user id, keyset-paged after `after`. */
export async function listUsers(
  tx: Queryable,
  f: { userId?: string | undefined; dataset?: string | undefined; after?: string | undefined; limit: number },
): Promise<UserSummary[]> {
  const p = new Params();
  const c = ['e.user_id IS NOT NULL'];
  if (f.userId !== undefined) c.push(`e.user_id = ${p.add(f.userId)}`);
  if (f.dataset !== undefined) c.push(`e.dataset = ${p.add(f.dataset)}`);
  if (f.after !== undefined) c.push(`e.user_id > ${p.add(f.after)}`);
  const { rows } = await tx.query<UserSummary>(
    `SELECT u.user_id, u.events, u.sessions, u.last_event_at,
            (SELECT count(*)::int FROM memories m WHERE m.user_id = u.user_id AND m.status = 'active') AS memories
     FROM (SELECT e.user_id, count(*)::int AS events, count(DISTINCT e.session_id)::int AS sessions, max(e.occurred_at) AS last_event_at
           FROM events e WHERE ${where(c)} GROUP BY e.user_id ORDER BY e.user_id LIMIT ${p.add(f.limit + 1)}) u
     ORDER BY u.user_id`,
    p.values,
  );
  return rows;
}

export interface SessionSummary {
  session_id: string;
  user_id: string | null;
  dataset: string;
  events: number;
  /** Active memories extracted from the session. */
  memories: number;
  first_event_at: Date;
  last_event_at: Date;
}

/** last_event_at with microseconds in UTC, the keyset position of a session. */
const LAST_AT = `to_char(max(e.occurred_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** Sessions (of one user, or of every user), most recent last event first, keyset-paged on (last event, session id, user id). */
export async function listSessions(
  tx: Queryable,
  f: { userId?: string | undefined; dataset?: string | undefined; after?: { at: string; sessionId: string } | undefined; limit: number },
): Promise<Array<SessionSummary & { cursor_at: string }>> {
  const p = new Params();
  const c = ['e.session_id IS NOT NULL'];
  if (f.userId !== undefined) c.push(`e.user_id = ${p.add(f.userId)}`);
  if (f.dataset !== undefined) c.push(`e.dataset = ${p.add(f.dataset)}`);
  const having = f.after ? `HAVING (max(e.occurred_at), e.session_id) < (${p.add(f.after.at)}::timestamptz, ${p.add(f.after.sessionId)})` : '';
  const { rows } = await tx.query<SessionSummary & { cursor_at: string }>(
    `SELECT s.*, (SELECT count(*)::int FROM memories m WHERE m.session_id = s.session_id AND m.user_id IS NOT DISTINCT FROM s.user_id
                  AND m.dataset = s.dataset AND m.status = 'active') AS memories
     FROM (SELECT e.session_id, e.user_id, e.dataset, count(*)::int AS events, min(e.occurred_at) AS first_event_at,
                  max(e.occurred_at) AS last_event_at, ${LAST_AT} AS cursor_at
           FROM events e WHERE ${where(c)} GROUP BY e.session_id, e.user_id, e.dataset ${having}
           ORDER BY max(e.occurred_at) DESC, e.session_id DESC LIMIT ${p.add(f.limit + 1)}) s
     ORDER BY s.last_event_at DESC, s.session_id DESC`,
    p.values,
  );
  return rows;
}

export interface EventView {
  id: string;
  /** Order of arrival; the `cursor` of the next page. */
  seq: string;
  type: string;
  role: string | null;
  content: string;
  occurred_at: Date;
  status: string;
  user_id: string | null;
  agent_id: string | null;
  session_id: string | null;
  dataset: string;
}

/** The events of a session (optionally of one user), in order of arrival, after `afterSeq`. */
export async function listSessionEvents(
  tx: Queryable,
  f: { sessionId: string; userId?: string | undefined; afterSeq?: string | undefined; limit: number },
): Promise<EventView[]> {
  const p = new Params();
  const c = [`e.session_id = ${p.add(f.sessionId)}`];
  if (f.userId !== undefined) c.push(`e.user_id = ${p.add(f.userId)}`);
  if (f.afterSeq !== undefined) c.push(`e.seq > ${p.add(f.afterSeq)}::bigint`);
  const { rows } = await tx.query<EventView>(
    `SELECT e.id, e.seq::text AS seq, e.type, e.role, e.content, e.occurred_at, e.status, e.user_id, e.agent_id, e.session_id, e.dataset
     FROM events e WHERE ${where(c)} ORDER BY e.seq LIMIT ${p.add(f.limit + 1)}`,
    p.values,
  );
  return rows;
}
