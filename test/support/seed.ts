import { expect } from 'vitest';

/**
 * The seed scenario's data (issue 7): an architecture document and a conversation session that
 * share entities with it (PostgreSQL, Redis), used by the forget and seed-scenario tests.
 */
export const SEED_DOCUMENT = [
  'Architecture notes for the memory service.',
  'We decided to use PostgreSQL with pgvector as the storage for long-term memory. Redis holds the job queues of BullMQ.',
  'PostgreSQL runs the hybrid search: vector similarity with HNSW indexes plus full-text search.',
].join('\n\n');

/** The session's three messages (Alice speaking) as events of `sessionId` and `userId`. */
export function seedSession(sessionId: string, userId: string) {
  return [
    'We decided to use PostgreSQL for the billing service as well.',
    'I prefer Grafana dashboards for watching PostgreSQL.',
    'Next week we will upgrade Redis on the staging cluster.',
  ].map((content) => ({ session_id: sessionId, user_id: userId, role: 'user', content, metadata: { speaker: 'Alice' } }));
}

type Query = <T>(text: string, params: unknown[]) => Promise<T[]>;

/** Asserts that every one of `entityIds` still exists and has provenance from `eventId` alone. */
export async function expectEntitiesSupportedOnlyBy(query: Query, entityIds: string[], eventId: string): Promise<void> {
  const rows = await query<{ id: string; event_ids: string[] }>(
    `SELECT e.id, array_agg(p.event_id) AS event_ids FROM entities e JOIN provenance p ON p.object_type = 'entity' AND p.object_id = e.id
     WHERE e.id = ANY($1::uuid[]) GROUP BY e.id`,
    [entityIds],
  );
  expect(rows.map((e) => e.id).sort()).toEqual([...entityIds].sort());
  for (const e of rows) expect(e.event_ids).toEqual([eventId]);
}
