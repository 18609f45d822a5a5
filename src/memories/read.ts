import type { Deps } from '../deps.js';
import { withTenant } from '../db/pool.js';
import {
  findMemory,
  listMemories,
  memoryEntities,
  memoryProvenance,
  memoryRelations,
  memoryVersions,
  type LinkedEntity,
  type MemoryItem,
  type MemoryListFilter,
  type MemoryRecord,
  type MemoryVersion,
  type ProvenanceEvent,
  type ProvenanceRun,
} from '../db/sql/memories-read.js';
import { memoryIdsByPrefix } from '../db/sql/memory-short-id.js';
import { ftsQuery } from '../domain/text.js';
import { InputError, MemloomError } from '../errors.js';

/**
 * The memory browser behind GET /v1/memories and GET /v1/memories/:id: list pages with an opaque
 * keyset cursor, and one memory with its provenance, version chain, relations and entities.
 */

export interface MemoryListQuery {
  user_id?: string | undefined;
  agent_id?: string | undefined;
  session_id?: string | undefined;
  dataset?: string | undefined;
  kinds?: string[] | undefined;
  status: MemoryListFilter['status'];
  conflicts: boolean;
  q?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

export interface MemoryPage {
  memories: MemoryItem[];
  /** Pass back as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** base64url of `<created_at with microseconds>|<id>`: opaque to clients, stable across pages. */
export function encodeCursor(createdAt: string, id: string): string {
  return Buffer.from(`${createdAt}|${id}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: string; id: string } {
  const [createdAt = '', id = '', ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (rest.length > 0 || !TIME_RE.test(createdAt) || !UUID_RE.test(id)) {
    throw new InputError('Invalid cursor.', [{ path: 'cursor', message: 'pass the next_cursor of the previous page unchanged' }]);
  }
  return { createdAt, id };
}

export async function listMemoriesPage(deps: Deps, tenantId: string, q: MemoryListQuery): Promise<MemoryPage> {
  const text = q.q?.trim();
  const filter: MemoryListFilter = {
    userId: q.user_id,
    agentId: q.agent_id,
    sessionId: q.session_id,
    dataset: q.dataset,
    kinds: q.kinds,
    status: q.status,
    conflicts: q.conflicts,
    since: q.since,
    until: q.until,
    limit: q.limit,
    text: text ? { substring: text, terms: ftsQuery(text) } : undefined,
    after: q.cursor === undefined ? undefined : decodeCursor(q.cursor),
  };
  const rows = await withTenant(deps.db, tenantId, (tx) => listMemories(tx, filter));
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    memories: page.map(({ cursor_at: _, ...m }) => m),
    next_cursor: rows.length > q.limit && last ? encodeCursor(last.cursor_at, last.id) : null,
  };
}

export interface MemoryDetail extends MemoryRecord {
  provenance: { events: ProvenanceEvent[]; runs: ProvenanceRun[] };
  versions: MemoryVersion[];
  relations: Array<{
    id: string;
    relation: string;
    direction: 'out' | 'in';
    other_memory_id: string;
    other_content: string;
    other_status: string;
    is_progression: boolean;
  }>;
  entities: LinkedEntity[];
}

export function isUuid(s: string): boolean {
  return UUID_RE.test(s);
}

const SHORT_ID_RE = /^(?:m:)?([0-9a-f]{8})$/i;

/**
 * A memory id as GET /v1/memories/:id takes it: a UUID, or the working memory's short form
 * `m:abcd1234` / `abcd1234` (its first 8 hex digits) when exactly one memory of the tenant starts
 * with them. Undefined when it is neither; a short id two memories share is a 409.
 */
export async function resolveMemoryId(deps: Pick<Deps, 'db'>, tenantId: string, raw: string): Promise<string | undefined> {
  if (UUID_RE.test(raw)) return raw.toLowerCase();
  const short = SHORT_ID_RE.exec(raw)?.[1]?.toLowerCase();
  if (!short) return undefined;
  const ids = await withTenant(deps.db, tenantId, (tx) => memoryIdsByPrefix(tx, short));
  if (ids.length > 1)
    throw new MemloomError('MEMORY_ID_AMBIGUOUS', 'Several memories start with this short id: use the full id.', { kind: 'conflict', details: { id: raw } });
  if (ids.length === 0) throw new MemloomError('MEMORY_NOT_FOUND', 'No memory with this id.', { kind: 'not_found', details: { id: raw } });
  return ids[0];
}

/** One memory of the tenant with everything that explains it; NOT_FOUND for unknown ids and other tenants' ids alike. */
export async function getMemoryDetail(deps: Deps, tenantId: string, id: string): Promise<MemoryDetail> {
  const detail = await withTenant(deps.db, tenantId, async (tx) => {
    const memory = await findMemory(tx, id);
    if (!memory) return undefined;
    const provenance = await memoryProvenance(tx, id);
    const versions = await memoryVersions(tx, id);
    const relations = await memoryRelations(tx, id);
    const entities = await memoryEntities(tx, id);
    return {
      ...memory,
      provenance,
      versions,
      relations: relations.map(({ created_at: _, ...r }) => r),
      entities,
    };
  });
  if (!detail) throw new MemloomError('NOT_FOUND', 'No memory with this id.', { kind: 'not_found', details: { id } });
  return detail;
}
