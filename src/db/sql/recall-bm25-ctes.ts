import { BM25_B, BM25_IDF_SMOOTHING, BM25_K1, CONTEXT_TERM_IDF_SHARE } from '../../domain/scoring.js';
import { Params, chunkConditions, memoryConditions, where, type RecallScope } from './recall-filters.js';

/*
 * The fragments of the keyword statement (keywordSql in recall-bm25.ts): one function or constant
 * per CTE, each saying what it computes; the statement itself, per preselection branch, is in
 * __snapshots__/recall-bm25/*.sql (recall-bm25.test.ts). MATERIALIZED: the planner guesses one row
 * for each CTE and would otherwise re-run them per row.
 */

export type KeywordTable = 'memories' | 'chunks';

/** A query term and its idf in the scope (TermWeight). */
export interface QueryTerm {
  term: string;
  w: number;
}

/**
 * The average key length of a scope without documents. Any positive value: with no documents no
 * row is scored; it only keeps the length normalisation defined.
 */
export const NO_DOCS_AVGDL = 1;
/**
 * The rare pass's `restBound` when no term is left out of it: no bound is above it, so the rare
 * rows alone are never the preselection and the rest is read too (only chunks get there:
 * memories take the pass only with a term left out, rareTerms).
 */
const NO_REST_BOUND = Number.MAX_VALUE;

/** What the fragments of one keyword statement read; they add their parameters to `p` as they are built. */
export interface Statement {
  p: Params;
  chunks: boolean;
  /** The alias of the key rows. */
  a: 'c' | 'm';
  /**
   * Chunk keys are read from their narrow copy (migration 20261205000000_chunk_keys): a scan of
   * the wide `chunks` rows (content and two inline vectors, ~8x the bytes) read mostly from disk.
   */
  keys: 'chunk_keys' | 'memories';
  terms: QueryTerm[];
  /** The parameter holding the query's lexemes (text[]). */
  lexemes: string;
  /** The scope's conditions on the key rows (recall-filters). */
  filters: string[];
  /** Rows scored exactly: a scope of at most `keep` rows is scored whole, a larger one preselected. */
  keep: number;
}

/** A statement over `table`'s keys in scope `f` for the query's `terms`, scoring at most `keep` rows exactly. */
export function statement(table: KeywordTable, f: RecallScope, terms: QueryTerm[], keep: number): Statement {
  const p = new Params();
  const chunks = table === 'chunks';
  const lexemes = p.add(terms.map((t) => t.term));
  const filters = chunks ? chunkConditions(f, p) : memoryConditions(f, p);
  return {
    p,
    chunks,
    a: chunks ? 'c' : 'm',
    keys: chunks ? 'chunk_keys' : 'memories',
    terms,
    lexemes,
    filters,
    keep,
  };
}

/**
 * A tsquery matching any of `terms`, as an expression of constants (not a CTE): the planner folds
 * it and estimates its rows from the key statistics, so a rare term is read through the full-text index.
 */
export function anyOf(s: Statement, terms: string[]): string {
  return `(${terms.map((t) => `plainto_tsquery('simple', ${s.p.add(t)})`).join(' || ')})`;
}

/** The WHERE condition of the scope's key rows matching the tsquery `tsq`. */
export function matching(s: Statement, tsq: string): string {
  return where([`${s.a}.fts @@ ${tsq}`, ...s.filters]);
}

/** BM25's idf of a term in `df` of `n` documents: ln(1 + (N − df + 0.5) / (df + 0.5)), never negative. */
export function idf(n: string, df: string): string {
  return `ln(1 + (${n} - ${df} + ${BM25_IDF_SMOOTHING}) / (${df} + ${BM25_IDF_SMOOTHING}))`;
}

/** Okapi BM25's term-frequency factor: `tf` saturated by k1 and normalised by the key length `len` against the average `avg`. */
function saturation(tf: string, len: string, avg: string): string {
  return `${tf} * ${BM25_K1 + 1} / (${tf} + ${BM25_K1} * (${1 - BM25_B} + ${BM25_B} * ${len} / ${avg}))`;
}

/**
 * The preselection bound of a key row: the sum of the idf of the query terms it holds, one
 * expression with the idf values inline (no subquery per row). A term in a chunk's own text
 * (weight D) counts its whole idf, one only in the context parts (neighbours, time and speaker:
 * term-frequency weight 0.3-0.5) CONTEXT_TERM_IDF_SHARE of it.
 */
function bound(s: Statement): string {
  return s.terms.map((t) => (s.chunks ? chunkTermBound(s, t) : memoryTermBound(s, t))).join(' + ');
}

/** A chunk term's part of the bound: its idf in the chunk's own text, CONTEXT_TERM_IDF_SHARE of it in the context only. */
function chunkTermBound(s: Statement, t: QueryTerm): string {
  const term = s.p.add(t.term);
  return `CASE WHEN ${s.a}.fts @@ ${s.p.add(ownTextQuery(t.term))}::tsquery THEN ${t.w} WHEN ${s.a}.fts @@ plainto_tsquery('simple', ${term}) THEN ${t.w * CONTEXT_TERM_IDF_SHARE} ELSE 0 END`;
}

/** A memory term's part of the bound: its idf when the key holds it. */
function memoryTermBound(s: Statement, t: QueryTerm): string {
  return `CASE WHEN ${s.a}.fts @@ plainto_tsquery('simple', ${s.p.add(t.term)}) THEN ${t.w} ELSE 0 END`;
}

/** The columns a candidate carries from its key row to the scoring CTEs. */
function columns(s: Statement): string {
  const a = s.a;
  return `${a}.id, ${a}.fts, ${a}.fts_len, ${s.chunks ? 'c.session_id' : 'NULL::text AS session_id'}, coalesce(${a}.user_id, '') AS uk, ${a}.dataset`;
}

/** The candidate columns and the row's preselection bound as `b`. */
function withBound(s: Statement): string {
  return `${columns(s)}, ${bound(s)} AS b`;
}

/** `idf`: the query's lexemes with their idf in the scope (termWeights), one row per term. */
export function idfCte(s: Statement): string {
  return `idf AS MATERIALIZED (SELECT * FROM unnest(${s.lexemes}::text[], ${s.p.add(s.terms.map((t) => t.w))}::float8[]) AS x(term, w))`;
}

/**
 * `pre`, read in one pass: the scope's rows matching a query term (`scope`); in a `large` scope
 * only the best `keep` by their bound. Ties go to the longer key (at equal idf sums, it is the one
 * more likely to hold a term more than once, e.g. in a neighbour's turn too), then to the id: one
 * order for both ways of preselecting (rareFirstCtes).
 */
export function preCte(s: Statement, scope: string, large: boolean): string {
  const a = s.a;
  const preselect = large ? `ORDER BY ${bound(s)} DESC, ${a}.fts_len DESC, ${a}.id LIMIT ${s.p.add(s.keep)}` : '';
  return `pre AS MATERIALIZED (SELECT ${columns(s)} FROM ${s.keys} ${a} WHERE ${scope} ${preselect})`;
}

/**
 * `pre`, rare terms first (splitTerms, rareTerms), in four CTEs:
 * - `rare`: the best `keep` rows holding a rare term (none when no term is rare), read through the full-text index;
 * - `enough`: whether they are the preselection: `keep` of them, the lowest bound above `restBound`
 *   (the most a row without a rare term can reach; NO_REST_BOUND when no term is left out);
 * - `rest`: otherwise the other rows matching a query term: for memories all of them, for chunks
 *   the newest `recentRows`;
 * - `pre`: `rare` when enough, else the best `keep` of `rest` (chunks: of `rare` and `rest`).
 */
export function rareFirstCtes(s: Statement, scope: string, split: { rare: string[]; restBound?: number | undefined }, recentRows: number): string {
  const { a, keys, p } = s;
  const newest = s.chunks ? `ORDER BY ${a}.occurred_at DESC LIMIT ${p.add(recentRows)}` : '';
  const rare =
    split.rare.length > 0
      ? `SELECT ${withBound(s)} FROM ${keys} ${a} WHERE ${matching(s, anyOf(s, split.rare))} ORDER BY b DESC, fts_len DESC, id LIMIT ${p.add(s.keep)}`
      : `SELECT ${withBound(s)} FROM ${keys} ${a} WHERE false`;
  return `rare AS MATERIALIZED (${rare}),
     enough AS MATERIALIZED (SELECT count(*) >= ${p.add(s.keep)} AND min(b) > ${p.add(split.restBound ?? NO_REST_BOUND)}::float8 AS ok FROM rare),
     rest AS MATERIALIZED (SELECT ${withBound(s)} FROM ${keys} ${a} WHERE ${scope} AND NOT (SELECT ok FROM enough) ${newest}),
     pre AS MATERIALIZED (
       SELECT id, fts, fts_len, session_id, uk, dataset FROM rare WHERE (SELECT ok FROM enough)
       UNION ALL
       (SELECT id, fts, fts_len, session_id, uk, dataset FROM ${s.chunks ? '(SELECT * FROM rare UNION SELECT * FROM rest) u' : 'rest'}
        WHERE NOT (SELECT ok FROM enough) ORDER BY b DESC, fts_len DESC, id LIMIT ${p.add(s.keep)}))`;
}

/** `cand`: each preselected row's key with only the query's lexemes left (ts_delete twice keeps just those). */
export function candCte(s: Statement): string {
  return `cand AS MATERIALIZED (
       SELECT id, fts_len, session_id, uk, dataset, ts_delete(fts, tsvector_to_array(ts_delete(fts, ${s.lexemes}::text[]))) AS hit FROM pre)`;
}

/**
 * `tf`: one row per candidate and query term it holds: the term frequency weighted by key part
 * (memloom_term_weight), and `own`, its positions in the chunk's own text (weight D).
 */
export const TF_CTE = `tf AS MATERIALIZED (
       SELECT c.id, c.fts_len, c.uk, c.dataset, c.session_id, u.lexeme AS term, memloom_term_weight(u.weights)::float8 AS tf,
              coalesce(cardinality(array_positions(u.weights, 'D')), 0) AS own
       FROM cand c, unnest(c.hit) u)`;

/** `doc`: each candidate's Okapi BM25 (key length `fts_len` against the scope's average `avgdl`) and the terms it matched. */
export function docCte(avgdl: string): string {
  return `doc AS MATERIALIZED (
       SELECT t.id, t.uk, t.dataset, t.session_id, sum(idf.w * ${saturation('t.tf', 't.fts_len', `${avgdl}::float8`)}) AS s, array_agg(t.term) AS matched
       FROM tf t JOIN idf USING (term) GROUP BY 1, 2, 3, 4)`;
}

/**
 * The chunks' session CTEs (`sess_tf`, `sst`, `sdf`, `sess`): each candidate session scored as one
 * document. `statsScope`: the conditions on bm25_sessions for the scope (as on bm25_docs).
 */
export function sessionCtes(statsScope: string): string {
  return `, ${[SESS_TF_CTE, sstCte(statsScope), SDF_CTE, SESS_CTE].join(',\n       ')}`;
}

/** `sess_tf` (chunks): a session's term frequencies as one document: its candidates' own-text positions per term. */
const SESS_TF_CTE = `sess_tf AS MATERIALIZED (
         SELECT uk, dataset, session_id, term, sum(own)::float8 AS tf FROM tf WHERE own > 0 AND session_id IS NOT NULL GROUP BY 1, 2, 3, 4)`;

/** `sst` (chunks): the scope's sessions and their average own-text length (bm25_sessions), for the statistics' scope. */
function sstCte(statsScope: string): string {
  return `sst AS MATERIALIZED (SELECT count(*)::float8 AS n, coalesce(avg(len), ${NO_DOCS_AVGDL})::float8 AS avgl FROM bm25_sessions WHERE true ${statsScope})`;
}

/** `sdf` (chunks): per term, the sessions among the candidates' that hold it. */
const SDF_CTE = 'sdf AS MATERIALIZED (SELECT term, count(*)::float8 AS df FROM sess_tf GROUP BY term)';

/** `sess` (chunks): each candidate session's Okapi BM25, its length from bm25_sessions. */
const SESS_CTE = `sess AS MATERIALIZED (
         SELECT s.uk, s.dataset, s.session_id, sum(${idf('sst.n', 'sdf.df')} * ${saturation('s.tf', 'b.len', 'sst.avgl')}) AS s
         FROM sess_tf s JOIN sdf USING (term)
         JOIN bm25_sessions b ON b.user_key = s.uk AND b.dataset = s.dataset AND b.session_id = s.session_id CROSS JOIN sst
         GROUP BY 1, 2, 3)`;

/**
 * `scored`: BM25 divided by the best of the query; for chunks plus `sessionWeight` times the
 * session's BM25 divided by the best session's (memories have no session: 0).
 */
export function scoredCte(s: Statement, sessionWeight: number): string {
  const session = s.chunks ? 'coalesce(se.s, 0)' : '0::float8';
  const sessionShare = s.chunks ? `+ ${s.p.add(sessionWeight)}::float8 * coalesce(se.s / nullif(max(se.s) OVER (), 0), 0)` : '';
  const sessionJoin = s.chunks ? 'LEFT JOIN sess se ON se.uk = d.uk AND se.dataset = d.dataset AND se.session_id = d.session_id' : '';
  return `scored AS (
       SELECT d.id, d.s AS bm25, d.matched, ${session} AS session,
              d.s / nullif(max(d.s) OVER (), 0) ${sessionShare} AS score
       FROM doc d ${sessionJoin})`;
}

/** A tsquery matching `lexeme` in weight D positions (a chunk's own text): the lexeme quoted as tsquery input expects. */
function ownTextQuery(lexeme: string): string {
  return `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}':D`;
}
