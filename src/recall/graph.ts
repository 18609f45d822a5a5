import { entitiesInQuery } from '../db/sql/recall.js';
import { chunksOfEvents, searchTriplets } from '../db/sql/recall-graph.js';
import { DEFAULT_IMPORTANCE, ENTITY_SIGNAL, fuse, GRAPH, TRIPLET_RANK } from '../domain/scoring.js';
import type { RecallContext } from './context.js';
import type { RecallResult } from './schema.js';

/** Evidence chunks shown with a triplet (a presentation bound, not ranking). */
const TRIPLET_CHUNKS = 3;

/**
 * Triplets with direction relative to the entities the query names (`out`: the named entity is the
 * source, `in`: the target, `none`: matched by words only), each with its evidence chunks.
 */
export async function recallGraph(ctx: RecallContext, limit: number): Promise<RecallResult[]> {
  const asOf = ctx.input.as_of;
  return ctx.run(async (tx) => {
    const named = await entitiesInQuery(tx, ctx.normalizedQuery, ctx.terms, GRAPH.namedEntities, ctx.scope);
    const rows = await searchTriplets(
      tx,
      ctx.terms,
      named,
      { userId: ctx.scope.userId, dataset: ctx.scope.dataset, sessionId: ctx.scope.sessionId, asOf },
      limit,
    );
    const chunks = await chunksOfEvents(tx, [...new Set(rows.flatMap((r) => r.event_ids))]);
    const maxRank = Math.max(TRIPLET_RANK.minBest, ...rows.map((r) => Number(r.rank)));
    const namedSet = new Set(named);
    return rows.map((r): RecallResult => {
      const direction = namedSet.has(r.source_id) ? 'out' : namedSet.has(r.target_id) ? 'in' : 'none';
      const { score, scores } = fuse(
        {
          relevance: Number(r.rank) / maxRank,
          keyword: Number(r.rank) / maxRank,
          entity: direction === 'none' ? 0 : ENTITY_SIGNAL.named,
          occurredAt: r.valid_at,
          importance: DEFAULT_IMPORTANCE,
        },
        ctx.now,
      );
      return {
        id: r.id,
        type: 'triplet',
        content: `${r.source} ${r.relation.replace(/_/g, ' ')} ${r.target}${r.description ? ` — ${r.description}` : ''}`,
        score,
        scores,
        // An edge ends at its invalid_at (its statement was superseded); as_of finds what held then.
        current: r.invalid_at === null,
        valid_from: r.valid_at.toISOString(),
        valid_to: r.invalid_at ? r.invalid_at.toISOString() : null,
        occurred_at: r.valid_at.toISOString(),
        recorded_at: r.created_at.toISOString(),
        source: { event_ids: r.event_ids, session_id: r.session_id, dataset: r.dataset },
        triplet: {
          source: r.source,
          relation: r.relation,
          target: r.target,
          direction,
          chunks: chunks.filter((c) => r.event_ids.includes(c.event_id)).slice(0, TRIPLET_CHUNKS),
        },
      };
    });
  });
}
