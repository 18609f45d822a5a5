import type { Deps } from '../deps.js';
import { withTenant, type Tx } from '../db/pool.js';
import { setVectorSearch } from '../db/sql/recall.js';
import type { RecallScope } from '../db/sql/recall-filters.js';
import type { VectorSpace } from '../db/sql/vector.js';
import { queryDates, type DateSpan } from '../domain/dates.js';
import { EF_SEARCH } from '../domain/scoring.js';
import { ftsQuery, normalizeText } from '../domain/text.js';
import { asksAboutTime, queryWords, withoutPresentPhrases } from '../domain/query-intent.js';
import { runInGateScope } from '../providers/gate-scope.js';
import type { RecallInput } from './schema.js';

/** Everything the retrievers share for one recall: parsed query, its vector, scope, and a way to run SQL. */
export interface RecallContext {
  deps: Deps;
  tenantId: string;
  input: RecallInput;
  scope: RecallScope;
  terms: string[];
  /** The query as a full-text document (its ftsQuery tokens), for BM25. */
  queryDoc: string;
  /** The query's words, stopwords kept (to match participants' names). */
  queryWords: Set<string>;
  /** The query asks about time ("when", "how long", …): items with time expressions are favoured. */
  asksAboutTime: boolean;
  /** The dates the query names ("on October 3, 2023", "in June 2023", "last week"): evidence from then is favoured. */
  dates: DateSpan[];
  normalizedQuery: string;
  vector: number[];
  /** The query vector's model and dimensions: vector retrievers compare rows of this space only. */
  space: VectorSpace;
  now: Date;
  /** HNSW scan settings that `run` applies (setVectorSearch) before `fn`. */
  vectorSearch: { iterative: boolean; efSearch: number };
  /** Runs `fn` in its own tenant transaction (retrievers run in parallel on separate connections). */
  run<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
}

let iterativeScan: boolean | undefined;

/** pgvector ≥ 0.8 has iterative index scans (filters inside the HNSW walk). Checked once per process. */
async function supportsIterativeScan(deps: Deps): Promise<boolean> {
  if (iterativeScan === undefined) {
    const { rows } = await deps.db.query<{ v: string }>(`SELECT extversion AS v FROM pg_extension WHERE extname = 'vector'`);
    const [major = 0, minor = 0] = (rows[0]?.v ?? '0.0').split('.').map(Number);
    iterativeScan = major > 0 || minor >= 8;
  }
  return iterativeScan;
}

export async function recallContext(deps: Deps, tenantId: string, input: RecallInput): Promise<RecallContext> {
  const embeddings = deps.providers.embeddings;
  // The query embedding passes the gate (a paid provider) charged to this tenant.
  const embedQuery = runInGateScope({ tenantId, queue: 'recall' }, () => embeddings.embed([input.query], 'query'));
  const [{ vectors }, iterative] = await Promise.all([embedQuery, supportsIterativeScan(deps)]);
  // HNSW candidates per search (EF_SEARCH): 200 keeps recall@10 at 0.99 of an exact scan on the
  // m = 8 graphs (prisma/migrations/20261130020000_hnsw_build_params).
  const ef = Math.max(EF_SEARCH.min, input.limit * EF_SEARCH.perResult);
  const terms = ftsQuery(withoutPresentPhrases(input.query));
  const now = input.as_of ? new Date(input.as_of) : new Date();
  return {
    deps,
    tenantId,
    input,
    scope: {
      userId: input.user_id,
      agentId: input.agent_id,
      sessionId: input.session_id,
      dataset: input.dataset,
      kinds: input.kinds,
      since: input.since,
      until: input.until,
      asOf: input.as_of,
      includeHistory: input.include_history,
    },
    terms,
    queryDoc: terms.join(' '),
    queryWords: queryWords(input.query),
    asksAboutTime: asksAboutTime(input.query),
    dates: queryDates(input.query, now),
    normalizedQuery: ` ${normalizeText(input.query)} `,
    vector: vectors[0] as number[],
    space: { model: embeddings.model, dims: embeddings.dimensions },
    now,
    vectorSearch: { iterative, efSearch: ef },
    run: (fn) =>
      withTenant(deps.db, tenantId, async (tx) => {
        await setVectorSearch(tx, iterative, ef);
        return fn(tx);
      }),
  };
}
