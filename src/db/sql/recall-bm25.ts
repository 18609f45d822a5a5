import type { Queryable } from '../pool.js';
import { Params, chunkConditions, memoryConditions, where, type RecallScope } from './recall-filters.js';

export interface KeywordHit {
  id: string;
  /** Okapi BM25 of the item's key. */
  bm25: number;
  /** BM25 of the item's session as one document (chunks in a session; 0 otherwise). */
  session: number;
  /** The ranking score: bm25 / best bm25 + sessionWeight · session / best session. */
  score: number;
}

/** Okapi BM25's term-frequency saturation and length normalisation (the usual values). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

type Table = 'memories' | 'chunks';

/** Conditions on the statistics tables for the scope: its user's, else the tenant's (or dataset's). */
function statsScope(f: RecallScope, p: Params): string {
  const c: string[] = [];
  if (f.userId !== undefined) c.push(`user_key = ${p.add(f.userId)}`);
  if (f.dataset !== undefined) c.push(`dataset = ${p.add(f.dataset)}`);
  return c.length > 0 ? `AND ${c.join(' AND ')}` : '';
}

/**
 * Okapi BM25 over index keys, scored in PostgreSQL. Statistics (documents, average key length,
 * document frequencies) come from bm25_docs/bm25_terms for the scope: the user's when the recall
 * is user-scoped, else the tenant's or dataset's; triggers keep them exact (docs/recall.md).
 * Term frequency is weighted by key part (own text 1, event time and speaker 0.5, previous turn
 * 0.5, next turn 0.3: memloom_term_weight). Candidates are every row of the scope whose key holds
 * a query term (GIN); only their query terms are unnested (ts_delete twice keeps just those).
 * For chunks, each session is also scored as one document (its chunks' own text; session
 * frequencies from the same candidates, lengths from bm25_sessions), and `score` adds
 * `sessionWeight` times the session's normalised score to the chunk's normalised score.
 * `queryDoc` is the query's ftsDocument; no lexeme, no hits.
 */
export async function keywordSearch(tx: Queryable, table: Table, f: RecallScope, queryDoc: string, k: number, sessionWeight = 0): Promise<KeywordHit[]> {
  if (queryDoc.trim() === '') return [];
  const p = new Params();
  const doc = p.add(queryDoc);
  const corpus = p.add(table);
  const termScope = statsScope(f, p);
  const a = table === 'memories' ? 'm' : 'c';
  const scope = where([`${a}.fts @@ q.q`, ...(table === 'memories' ? memoryConditions(f, p) : chunkConditions(f, p))]);
  const sat = (tf: string, len: string, avg: string) => `${tf} * ${BM25_K1 + 1} / (${tf} + ${BM25_K1} * (${1 - BM25_B} + ${BM25_B} * ${len} / ${avg}))`;
  const idf = (n: string, df: string) => `ln(1 + (${n} - ${df} + 0.5) / (${df} + 0.5))`;
  const chunks = table === 'chunks';
  // MATERIALIZED: the planner guesses one row for each CTE and would otherwise re-run them per row.
  const sessionCtes = chunks
    ? `, sess_tf AS MATERIALIZED (
         SELECT uk, dataset, session_id, term, sum(own)::float8 AS tf FROM tf WHERE own > 0 AND session_id IS NOT NULL GROUP BY 1, 2, 3, 4),
       sst AS MATERIALIZED (SELECT count(*)::float8 AS n, coalesce(avg(len), 1)::float8 AS avgl FROM bm25_sessions WHERE true ${termScope}),
       sdf AS MATERIALIZED (SELECT term, count(*)::float8 AS df FROM sess_tf GROUP BY term),
       sess AS MATERIALIZED (
         SELECT s.uk, s.dataset, s.session_id, sum(${idf('sst.n', 'sdf.df')} * ${sat('s.tf', 'b.len', 'sst.avgl')}) AS s
         FROM sess_tf s JOIN sdf USING (term)
         JOIN bm25_sessions b ON b.user_key = s.uk AND b.dataset = s.dataset AND b.session_id = s.session_id CROSS JOIN sst
         GROUP BY 1, 2, 3)`
    : '';
  const sessionJoin = chunks ? 'LEFT JOIN sess se ON se.uk = d.uk AND se.dataset = d.dataset AND se.session_id = d.session_id' : '';
  const { rows } = await tx.query<KeywordHit>(
    `WITH lex AS MATERIALIZED (SELECT DISTINCT u.lexeme AS term FROM unnest(to_tsvector('simple', ${doc})) u),
     q AS MATERIALIZED (SELECT string_agg(plainto_tsquery('simple', term)::text, ' | ')::tsquery AS q, array_agg(term) AS terms FROM lex),
     st AS MATERIALIZED (SELECT coalesce(sum(docs), 0)::float8 AS n, coalesce(sum(total_len) / nullif(sum(docs), 0), 1)::float8 AS avgdl
            FROM bm25_docs WHERE corpus = ${corpus} ${termScope}),
     idf AS MATERIALIZED (
       SELECT l.term, ${idf('st.n', 'coalesce(d.df, 0)')} AS w FROM lex l CROSS JOIN st
       LEFT JOIN (SELECT term, sum(df)::float8 AS df FROM bm25_terms WHERE corpus = ${corpus} AND term IN (SELECT term FROM lex) ${termScope} GROUP BY term) d USING (term)),
     cand AS MATERIALIZED (
       SELECT ${a}.id, ${a}.fts_len, ${chunks ? 'c.session_id' : 'NULL::text AS session_id'}, coalesce(${a}.user_id, '') AS uk, ${a}.dataset,
              ts_delete(${a}.fts, tsvector_to_array(ts_delete(${a}.fts, q.terms))) AS hit
       FROM ${table} ${a}, q WHERE ${scope}),
     tf AS MATERIALIZED (
       SELECT c.id, c.fts_len, c.uk, c.dataset, c.session_id, u.lexeme AS term, memloom_term_weight(u.weights)::float8 AS tf,
              coalesce(cardinality(array_positions(u.weights, 'D')), 0) AS own
       FROM cand c, unnest(c.hit) u),
     doc AS MATERIALIZED (
       SELECT t.id, t.uk, t.dataset, t.session_id, sum(idf.w * ${sat('t.tf', 't.fts_len', 'st.avgdl')}) AS s
       FROM tf t JOIN idf USING (term) CROSS JOIN st GROUP BY 1, 2, 3, 4)
     ${sessionCtes},
     scored AS (
       SELECT d.id, d.s AS bm25, ${chunks ? 'coalesce(se.s, 0)' : '0::float8'} AS session,
              d.s / nullif(max(d.s) OVER (), 0) ${chunks ? `+ ${p.add(sessionWeight)}::float8 * coalesce(se.s / nullif(max(se.s) OVER (), 0), 0)` : ''} AS score
       FROM doc d ${sessionJoin})
     SELECT id, bm25, session, score FROM scored ORDER BY score DESC, id LIMIT ${p.add(k)}`,
    p.values,
  );
  return rows.map((r) => ({ id: r.id, bm25: Number(r.bm25), session: Number(r.session), score: Number(r.score) }));
}
