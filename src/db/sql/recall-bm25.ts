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
  /** The query's lexemes its key holds (any part of the key), for the match floor (src/recall/match.ts). */
  matched: string[];
}

/**
 * Rows scored exactly: the matching rows with the highest sum of the idf of the query terms they
 * hold (BM25 with every tf at 1 and no length normalisation, a cheap test per term), at least
 * this many and PRESELECT_PER_HIT times the hits asked for. A row outside them would need a much higher term
 * frequency or a much shorter key to overtake the k-th hit; in a large scope this keeps the cost
 * of a query to a few hundred exact scores instead of every matching row.
 */
export const PRESELECT_MIN = 200;
/** Rows scored exactly per hit asked for, above PRESELECT_MIN (docs/recall.md). */
export const PRESELECT_PER_HIT = 2;

/**
 * The rare-term pass (keywordSearch, rareTerms) reads at most this many rows per preselected row,
 * or this share of the scope, whichever is more; only in a scope of more than
 * RARE_MIN_SCOPE_PER_KEEP rows per preselected row.
 */
const RARE_ROWS_PER_KEEP = 4;
const RARE_SHARE = 1 / 3;
const RARE_MIN_SCOPE_PER_KEEP = 8;
/**
 * In a chunk scope beyond RARE_MIN_SCOPE_PER_KEEP × `keep` rows, the rows holding only common
 * query terms that are considered: the newest this many per preselected row (keywordSearch).
 */
export const RECENT_ROWS_PER_KEEP = RARE_MIN_SCOPE_PER_KEEP;

/** Okapi BM25's term-frequency saturation and length normalisation (the usual values). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

type Table = 'memories' | 'chunks';

/** Conditions on the statistics tables for the scope: its user's, else the tenant's (or dataset's). */
function scopeOfStats(f: RecallScope, p: Params): string {
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
 * 0.5, next turn 0.3: memloom_term_weight). Candidates are the rows of the scope whose key holds
 * a query term, preselected by their idf sum (PRESELECT_MIN); only their query terms are unnested
 * (ts_delete twice keeps just those).
 * For chunks, each session is also scored as one document (its chunks' own text; session
 * frequencies from the same candidates, lengths from bm25_sessions), and `score` adds
 * `sessionWeight` times the session's normalised score to the chunk's normalised score.
 * `queryDoc` is the query's ftsDocument; no lexeme, no hits.
 */
export async function keywordSearch(
  tx: Queryable,
  table: Table,
  f: RecallScope,
  queryDoc: string,
  k: number,
  sessionWeight = 0,
  opts: { candidates?: 'rare-first' | 'all'; stats?: { weights?: TermWeight[] } } = {},
): Promise<KeywordHit[]> {
  if (queryDoc.trim() === '') return [];
  const terms = await termWeights(tx, table, f, queryDoc);
  if (opts.stats) opts.stats.weights = terms;
  if (terms.length === 0) return [];
  const p = new Params();
  const a = table === 'memories' ? 'm' : 'c';
  const chunks = table === 'chunks';
  const lexemes = p.add(terms.map((t) => t.term));
  // Chunk keys are read from their narrow copy (migration 20261205000000_chunk_keys): a scan of
  // the wide `chunks` rows (content and two inline vectors, ~8x the bytes) read mostly from disk.
  const keys = chunks ? 'chunk_keys' : 'memories';
  // The query as an expression of constants (not a CTE): the planner folds it and estimates its
  // rows from the key statistics, so a rare term is read through the full-text index.
  const anyOf = (list: string[]) => `(${list.map((t) => `plainto_tsquery('simple', ${p.add(t)})`).join(' || ')})`;
  const filters = table === 'memories' ? memoryConditions(f, p) : chunkConditions(f, p);
  const matching = (tsq: string) => where([`${a}.fts @@ ${tsq}`, ...filters]);
  const scope = matching(anyOf(terms.map((t) => t.term)));
  const avgdl = p.add(terms[0]?.avgdl ?? 1);
  const sat = (tf: string, len: string, avg: string) => `${tf} * ${BM25_K1 + 1} / (${tf} + ${BM25_K1} * (${1 - BM25_B} + ${BM25_B} * ${len} / ${avg}))`;
  // The preselection bound as one expression with the idf values inline (no subquery per row).
  // A scope of at most `keep` rows is scored whole; a larger one is preselected (PRESELECT_MIN).
  const keep = Math.max(PRESELECT_MIN, k * PRESELECT_PER_HIT);
  // A term in a chunk's own text (weight D) counts its whole idf, one only in the context parts
  // (neighbours, time and speaker: term-frequency weight 0.3-0.5) half of it.
  const bound = () =>
    terms
      .map((t) => {
        const term = p.add(t.term);
        return chunks
          ? `CASE WHEN ${a}.fts @@ ${p.add(ownTextQuery(t.term))}::tsquery THEN ${t.w} WHEN ${a}.fts @@ plainto_tsquery('simple', ${term}) THEN ${t.w / 2} ELSE 0 END`
          : `CASE WHEN ${a}.fts @@ plainto_tsquery('simple', ${term}) THEN ${t.w} ELSE 0 END`;
      })
      .join(' + ');
  const large = (terms[0]?.n ?? 0) > keep;
  // Ties go to the longer key (at equal idf sums, it is the one more likely to hold a term more
  // than once, e.g. in a neighbour's turn too), then to the id: one order for both ways of
  // preselecting.
  const preselect = () => (large ? `ORDER BY ${bound()} DESC, ${a}.fts_len DESC, ${a}.id LIMIT ${p.add(keep)}` : '');
  const columns = `${a}.id, ${a}.fts, ${a}.fts_len, ${chunks ? 'c.session_id' : 'NULL::text AS session_id'}, coalesce(${a}.user_id, '') AS uk, ${a}.dataset`;
  // In a large scope, rows holding a rare query term are read through the full-text index first:
  // when `keep` of them bound more than a row without any rare term can reach, they are the
  // preselection (the same rows, MaxScore's argument), and the scan of every row matching a common
  // term is skipped. Otherwise the other candidates are read too: for memories all of them; for
  // chunks the newest RECENT_ROWS_PER_KEEP × keep (a user's conversation history grows without
  // bound, and common words match most of it: 10,852 of a soak user's 17,820 chunks), so the
  // preselection is the best `keep` of every row holding a rare term and of the newest rows
  // holding only common ones.
  // Memories take the rare pass only where it can be the whole preselection (rareTerms), as before.
  const split = large && opts.candidates !== 'all' ? (chunks ? splitTerms(terms, keep, RECENT_ROWS_PER_KEEP * keep) : rareTerms(terms, keep)) : undefined;
  const newest = chunks && split !== undefined ? `ORDER BY ${a}.occurred_at DESC LIMIT ${p.add(RECENT_ROWS_PER_KEEP * keep)}` : '';
  const withBound = () => `${columns}, ${bound()} AS b`;
  const pre = split
    ? `rare AS MATERIALIZED (${
        split.rare.length > 0
          ? `SELECT ${withBound()} FROM ${keys} ${a} WHERE ${matching(anyOf(split.rare))} ORDER BY b DESC, fts_len DESC, id LIMIT ${p.add(keep)}`
          : `SELECT ${withBound()} FROM ${keys} ${a} WHERE false`
      }),
     enough AS MATERIALIZED (SELECT count(*) >= ${p.add(keep)} AND min(b) > ${p.add(split.restBound ?? Number.MAX_VALUE)}::float8 AS ok FROM rare),
     rest AS MATERIALIZED (SELECT ${withBound()} FROM ${keys} ${a} WHERE ${scope} AND NOT (SELECT ok FROM enough) ${newest}),
     pre AS MATERIALIZED (
       SELECT id, fts, fts_len, session_id, uk, dataset FROM rare WHERE (SELECT ok FROM enough)
       UNION ALL
       (SELECT id, fts, fts_len, session_id, uk, dataset FROM ${chunks ? '(SELECT * FROM rare UNION SELECT * FROM rest) u' : 'rest'}
        WHERE NOT (SELECT ok FROM enough) ORDER BY b DESC, fts_len DESC, id LIMIT ${p.add(keep)}))`
    : `pre AS MATERIALIZED (SELECT ${columns} FROM ${keys} ${a} WHERE ${scope} ${preselect()})`;
  const statsScope = chunks ? scopeOfStats(f, p) : '';
  // MATERIALIZED: the planner guesses one row for each CTE and would otherwise re-run them per row.
  const sessionCtes = chunks
    ? `, sess_tf AS MATERIALIZED (
         SELECT uk, dataset, session_id, term, sum(own)::float8 AS tf FROM tf WHERE own > 0 AND session_id IS NOT NULL GROUP BY 1, 2, 3, 4),
       sst AS MATERIALIZED (SELECT count(*)::float8 AS n, coalesce(avg(len), 1)::float8 AS avgl FROM bm25_sessions WHERE true ${statsScope}),
       sdf AS MATERIALIZED (SELECT term, count(*)::float8 AS df FROM sess_tf GROUP BY term),
       sess AS MATERIALIZED (
         SELECT s.uk, s.dataset, s.session_id, sum(ln(1 + (sst.n - sdf.df + 0.5) / (sdf.df + 0.5)) * ${sat('s.tf', 'b.len', 'sst.avgl')}) AS s
         FROM sess_tf s JOIN sdf USING (term)
         JOIN bm25_sessions b ON b.user_key = s.uk AND b.dataset = s.dataset AND b.session_id = s.session_id CROSS JOIN sst
         GROUP BY 1, 2, 3)`
    : '';
  const sessionJoin = chunks ? 'LEFT JOIN sess se ON se.uk = d.uk AND se.dataset = d.dataset AND se.session_id = d.session_id' : '';
  const { rows } = await tx.query<KeywordHit>(
    `WITH idf AS MATERIALIZED (SELECT * FROM unnest(${lexemes}::text[], ${p.add(terms.map((t) => t.w))}::float8[]) AS x(term, w)),
     ${pre},
     cand AS MATERIALIZED (
       SELECT id, fts_len, session_id, uk, dataset, ts_delete(fts, tsvector_to_array(ts_delete(fts, ${lexemes}::text[]))) AS hit FROM pre),
     tf AS MATERIALIZED (
       SELECT c.id, c.fts_len, c.uk, c.dataset, c.session_id, u.lexeme AS term, memloom_term_weight(u.weights)::float8 AS tf,
              coalesce(cardinality(array_positions(u.weights, 'D')), 0) AS own
       FROM cand c, unnest(c.hit) u),
     doc AS MATERIALIZED (
       SELECT t.id, t.uk, t.dataset, t.session_id, sum(idf.w * ${sat('t.tf', 't.fts_len', `${avgdl}::float8`)}) AS s, array_agg(t.term) AS matched
       FROM tf t JOIN idf USING (term) GROUP BY 1, 2, 3, 4)
     ${sessionCtes},
     scored AS (
       SELECT d.id, d.s AS bm25, d.matched, ${chunks ? 'coalesce(se.s, 0)' : '0::float8'} AS session,
              d.s / nullif(max(d.s) OVER (), 0) ${chunks ? `+ ${p.add(sessionWeight)}::float8 * coalesce(se.s / nullif(max(se.s) OVER (), 0), 0)` : ''} AS score
       FROM doc d ${sessionJoin})
     SELECT id, bm25, session, score, matched FROM scored ORDER BY score DESC, id LIMIT ${p.add(k)}`,
    p.values,
  );
  return rows.map((r) => ({ id: r.id, bm25: Number(r.bm25), session: Number(r.session), score: Number(r.score), matched: r.matched ?? [] }));
}

/** A tsquery matching `lexeme` in weight D positions (a chunk's own text): the lexeme quoted as tsquery input expects. */
function ownTextQuery(lexeme: string): string {
  return `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}':D`;
}

export interface TermWeight {
  term: string;
  /** idf in the scope. */
  w: number;
  /** Documents of the scope that hold the term. */
  df: number;
  avgdl: number;
  /** Documents in the scope. */
  n: number;
}

/**
 * The query's rarest terms whose documents are few enough to read through the full-text index
 * (together at most RARE_ROWS_PER_KEEP × `keep` or RARE_SHARE of the scope, by the scope's
 * document frequencies, a sum that counts a row once per term it holds; possibly none, possibly
 * all; the share at most `cap` rows: for chunks, as many as the newest rows read otherwise), and
 * the most the bound of a row without any of them can be: the idf sum of the other terms
 * (undefined when no term is left out). Undefined in a scope of at most
 * RARE_MIN_SCOPE_PER_KEEP × `keep` rows: it is read whole.
 */
export function splitTerms(
  terms: TermWeight[],
  keep: number,
  cap = Number.POSITIVE_INFINITY,
): { rare: string[]; rareRows: number; restBound?: number } | undefined {
  const n = terms[0]?.n ?? 0;
  if (n <= RARE_MIN_SCOPE_PER_KEEP * keep) return undefined;
  const budget = Math.max(RARE_ROWS_PER_KEEP * keep, Math.min(n * RARE_SHARE, cap));
  const byIdf = [...terms].sort((a, b) => b.w - a.w || a.term.localeCompare(b.term));
  let rows = 0;
  let i = 0;
  while (i < byIdf.length && rows + (byIdf[i] as TermWeight).df <= budget) rows += (byIdf[i++] as TermWeight).df;
  const rare = byIdf.slice(0, i).map((t) => t.term);
  if (i === byIdf.length) return { rare, rareRows: rows };
  return { rare, rareRows: rows, restBound: byIdf.slice(i).reduce((sum, t) => sum + t.w, 0) };
}

/**
 * The split of splitTerms when it can be the whole preselection: rare terms in at least `keep`
 * rows (else the check must fail) and some term left out.
 */
export function rareTerms(terms: TermWeight[], keep: number): { rare: string[]; restBound: number } | undefined {
  const split = splitTerms(terms, keep);
  if (split === undefined || split.restBound === undefined || split.rareRows < keep) return undefined;
  return { rare: split.rare, restBound: split.restBound };
}

/** The query's lexemes with their idf in the scope, and the scope's documents and average key length. */
export async function termWeights(tx: Queryable, table: Table, f: RecallScope, queryDoc: string): Promise<TermWeight[]> {
  const p = new Params();
  const doc = p.add(queryDoc);
  const corpus = p.add(table);
  const scope = scopeOfStats(f, p);
  const { rows } = await tx.query<TermWeight>(
    `WITH lex AS (SELECT DISTINCT u.lexeme AS term FROM unnest(to_tsvector('simple', ${doc})) u),
     st AS (SELECT coalesce(sum(docs), 0)::float8 AS n, coalesce(sum(total_len) / nullif(sum(docs), 0), 1)::float8 AS avgdl
            FROM bm25_docs WHERE corpus = ${corpus} ${scope})
     SELECT l.term, ln(1 + (st.n - coalesce(d.df, 0) + 0.5) / (coalesce(d.df, 0) + 0.5)) AS w, coalesce(d.df, 0) AS df, st.avgdl, st.n FROM lex l CROSS JOIN st
     LEFT JOIN (SELECT term, sum(df)::float8 AS df FROM bm25_terms WHERE corpus = ${corpus} AND term IN (SELECT term FROM lex) ${scope} GROUP BY term) d USING (term)
     ORDER BY l.term`,
    p.values,
  );
  return rows.map((r) => ({ term: r.term, w: Number(r.w), df: Number(r.df), avgdl: Number(r.avgdl), n: Number(r.n) }));
}
