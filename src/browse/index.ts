import { withTenant } from '../db/pool.js';
import { listSessionEvents, listSessions, listUsers, type EventView, type SessionSummary, type UserSummary } from '../db/sql/browse.js';
import type { Deps } from '../deps.js';
import { InputError } from '../errors.js';

/**
 * The users and sessions of a tenant with their counts, and a session's events: what the console
 * shows before anyone searches. Pages with opaque cursors (base64url), never whole lists.
 */

const badCursor = () => new InputError('Invalid cursor.', [{ path: 'cursor', message: 'pass the next_cursor of the previous page unchanged' }]);
const TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const encode = (parts: string[]) => Buffer.from(JSON.stringify(parts), 'utf8').toString('base64url');

function decode(cursor: string, n: number): string[] {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  if (!Array.isArray(parts) || parts.length !== n || !parts.every((x) => typeof x === 'string')) throw badCursor();
  return parts as string[];
}

interface Page {
  limit: number;
  cursor?: string | undefined;
}

export async function usersPage(
  deps: Deps,
  tenantId: string,
  q: Page & { user_id?: string | undefined; dataset?: string | undefined },
): Promise<{ users: UserSummary[]; next_cursor: string | null }> {
  const after = q.cursor === undefined ? undefined : decode(q.cursor, 1)[0];
  const rows = await withTenant(deps.db, tenantId, (tx) => listUsers(tx, { userId: q.user_id, dataset: q.dataset, after, limit: q.limit }));
  const users = rows.slice(0, q.limit);
  const last = users[users.length - 1];
  return { users, next_cursor: rows.length > q.limit && last ? encode([last.user_id]) : null };
}

export async function sessionsPage(
  deps: Deps,
  tenantId: string,
  q: Page & { user_id?: string | undefined; dataset?: string | undefined },
): Promise<{ sessions: SessionSummary[]; next_cursor: string | null }> {
  let after: { at: string; sessionId: string } | undefined;
  if (q.cursor !== undefined) {
    const [at = '', sessionId = ''] = decode(q.cursor, 2);
    if (!TIME_RE.test(at)) throw badCursor();
    after = { at, sessionId };
  }
  const rows = await withTenant(deps.db, tenantId, (tx) => listSessions(tx, { userId: q.user_id, dataset: q.dataset, after, limit: q.limit }));
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    sessions: page.map(({ cursor_at: _, ...s }) => s),
    next_cursor: rows.length > q.limit && last ? encode([last.cursor_at, last.session_id]) : null,
  };
}

export async function sessionEventsPage(
  deps: Deps,
  tenantId: string,
  q: Page & { session_id: string; user_id?: string | undefined },
): Promise<{ events: EventView[]; next_cursor: string | null }> {
  const afterSeq = q.cursor === undefined ? undefined : decode(q.cursor, 1)[0];
  if (afterSeq !== undefined && !/^\d{1,18}$/.test(afterSeq)) throw badCursor();
  const rows = await withTenant(deps.db, tenantId, (tx) => listSessionEvents(tx, { sessionId: q.session_id, userId: q.user_id, afterSeq, limit: q.limit }));
  const events = rows.slice(0, q.limit);
  const last = events[events.length - 1];
  return { events, next_cursor: rows.length > q.limit && last ? encode([last.seq]) : null };
}
