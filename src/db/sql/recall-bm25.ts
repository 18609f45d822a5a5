import type { Queryable } from '../pool.js';
import {
  NO_DOCS_AVGDL,
  TF_CTE,
  anyOf,
  candCte,
  docCte,
  idf,
  idfCte,
  matching,
  preCte,
  rareFirstCtes,
  scoredCte,
  sessionCtes,
  statement,
  type KeywordTable as Table,
} from './recall-bm25-ctes.js';
import { Params, type RecallScope } from './recall-filters.js';
import { withSynonyms } from '../../domain/synonyms.js';
import { SYNONYM_WEIGHT } from '../../domain/scoring.js';

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

// SQL bounds: how many rows the keyword statement reads and scores. Ranking numbers (BM25's k1,
// b and idf, the context terms' share of the preselection bound) are in src/domain/scoring.ts.

/**
 * Rows scored exactly: the matching rows with the highest sum of the idf of the query terms they
 * hold (BM25 with every tf at 1 and no length normalisation, a cheap test per term), at least
 * this many and PRESELECT_PER_HIT times the hits asked for. A row outside them would need a much higher term
 * frequency or a much shorter key to overtake the k-th hit; in a large scope this keeps the cost
 * of a query to a few hundred exact scores instead of every matching row. Chosen, not fitted: with
 * max(200, 2k) LoCoMo's R@5 / R@10 were those of scoring every match, for every strategy
 * (docs/performance.md, 2026-12-03); no other value was measured.
 */
export const PRESELECT_MIN = 200;
/**
 * Rows scored exactly per hit asked for, above PRESELECT_MIN (docs/recall.md): a recall of
 * `limit` 25 asks each retriever for 100 hits and scores 200 rows. First 5, then 2 with
 * PRESELECT_MIN (commit f516dfe, measured as PRESELECT_MIN); other values not measured.
 */
export const PRESELECT_PER_HIT = 2;

/**
 * The rare-term pass (keywordSearch, rareTerms) reads at most this many rows per preselected row,
 * or this share of the scope, whichever is more; only in a scope of more than
 * RARE_MIN_SCOPE_PER_KEEP rows per preselected row. The share: a third against a tenth in the
 * soak of 2026-12-05 (recall p95 234 against 256 ms; docs/performance-history.md); the 4 and the 8
 * not measured (8 × 200 keeps a LoCoMo conversation's ~400 chunks out of the pass, where a pass
 * that falls back only adds a scan).
 */
const RARE_ROWS_PER_KEEP = 4;
const RARE_SHARE = 1 / 3;
const RARE_MIN_SCOPE_PER_KEEP = 8;
/**
 * In a chunk scope beyond RARE_MIN_SCOPE_PER_KEEP × `keep` rows, the rows holding only common
 * query terms that are considered: the newest this many per preselected row (keywordSearch). In
 * the soak's database the keyword statement's p50 / p95 went from 61.2 / 88.4 to 23.0–24.6 /
 * 40.0–43.9 ms with LoCoMo quality unchanged (docs/performance-history.md, 2026-12-05 evening);
 * other values not measured.
 */
export const RECENT_ROWS_PER_KEEP = RARE_MIN_SCOPE_PER_KEEP;

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
  // The query's words and their synonyms (src/domain/synonyms.ts): an added term weighs
  // SYNONYM_WEIGHT of its own idf, and a key holding it holds the query's word it stands for.
  const { terms: expanded, origin } = withSynonyms(queryDoc.split(/\s+/).filter(Boolean));
  const terms = (await termWeights(tx, table, f, expanded.join(' '))).map((t) => (origin.has(t.term) ? { ...t, w: t.w * SYNONYM_WEIGHT } : t));
  if (opts.stats) opts.stats.weights = terms;
  if (terms.length === 0) return [];
  const { text, values } = keywordSql(table, f, terms, k, sessionWeight, opts.candidates);
  const { rows } = await tx.query<KeywordHit>(text, values);
  return rows.map((r) => ({
    id: r.id,
    bm25: Number(r.bm25),
    session: Number(r.session),
    score: Number(r.score),
    matched: [...new Set((r.matched ?? []).map((t) => origin.get(t) ?? t))],
  }));
}

/** The keyword statement of keywordSearch for the query's `terms` (termWeights), not run. */
export function keywordSql(
  table: Table,
  f: RecallScope,
  terms: TermWeight[],
  k: number,
  sessionWeight: number,
  candidates: 'rare-first' | 'all' | undefined,
): { text: string; values: unknown[] } {
  const s = statement(table, f, terms, Math.max(PRESELECT_MIN, k * PRESELECT_PER_HIT));
  // Fragments are built in the order of their parameters ($1, $2, ...; the snapshots in
  // recall-bm25.test.ts pin it) and assembled in the order of the statement.
  const allTerms = terms.map((t) => t.term);
  const scope = matching(s, anyOf(s, allTerms));
  const avgdl = s.p.add(terms[0]?.avgdl ?? NO_DOCS_AVGDL);
  const large = (terms[0]?.n ?? 0) > s.keep;
  // In a large scope, rows holding a rare query term are read through the full-text index first:
  // when `keep` of them bound more than a row without any rare term can reach, they are the
  // preselection (the same rows, MaxScore's argument), and the scan of every row matching a common
  // term is skipped. Otherwise the other candidates are read too: for memories all of them; for
  // chunks the newest RECENT_ROWS_PER_KEEP × keep (a user's conversation history grows without
  // bound, and common words match most of it: 10,852 of a soak user's 17,820 chunks), so the
  // preselection is the best `keep` of every row holding a rare term and of the newest rows
  // holding only common ones.
  // Memories take the rare pass only where it can be the whole preselection (rareTerms), as before.
  const split = large && candidates !== 'all' ? (s.chunks ? splitTerms(terms, s.keep, RECENT_ROWS_PER_KEEP * s.keep) : rareTerms(terms, s.keep)) : undefined;
  const pre = split ? rareFirstCtes(s, scope, split, RECENT_ROWS_PER_KEEP * s.keep) : preCte(s, scope, large);
  const sessions = s.chunks ? sessionCtes(scopeOfStats(f, s.p)) : '';
  const text = `WITH ${idfCte(s)},
     ${pre},
     ${candCte(s)},
     ${TF_CTE},
     ${docCte(avgdl)}
     ${sessions},
     ${scoredCte(s, sessionWeight)}
     SELECT id, bm25, session, score, matched FROM scored ORDER BY score DESC, id LIMIT ${s.p.add(k)}`;
  return { text, values: s.p.values };
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

/**
 * The query's lexemes with their idf in the scope, and the scope's documents and average key length.
 * A term's document frequency is its bm25_terms rows plus the deltas not yet folded into them
 * (bm25_term_deltas, foldTermDeltas), read in one statement: one snapshot sees a fold's deltas
 * either still pending or already in bm25_terms, so the frequency is exact either way.
 */
export async function termWeights(tx: Queryable, table: Table, f: RecallScope, queryDoc: string): Promise<TermWeight[]> {
  const p = new Params();
  const doc = p.add(queryDoc);
  const corpus = p.add(table);
  const scope = scopeOfStats(f, p);
  const { rows } = await tx.query<TermWeight>(
    `WITH lex AS MATERIALIZED (SELECT DISTINCT u.lexeme AS term FROM unnest(to_tsvector('simple', ${doc})) u),
     st AS (SELECT coalesce(sum(docs), 0)::float8 AS n, coalesce(sum(total_len) / nullif(sum(docs), 0), ${NO_DOCS_AVGDL})::float8 AS avgdl
            FROM bm25_docs WHERE corpus = ${corpus} ${scope}),
     stored AS (SELECT term, df FROM bm25_terms WHERE corpus = ${corpus} AND term IN (SELECT term FROM lex) ${scope}),
     pending AS (SELECT u.term, x.sign AS df FROM bm25_term_deltas x, unnest(x.terms) AS u(term)
                 WHERE x.corpus = ${corpus} ${scope} AND x.terms && ARRAY(SELECT term FROM lex) AND u.term IN (SELECT term FROM lex))
     SELECT l.term, ${idf('st.n', 'coalesce(d.df, 0)')} AS w, coalesce(d.df, 0) AS df, st.avgdl, st.n FROM lex l CROSS JOIN st
     LEFT JOIN (SELECT term, sum(df)::float8 AS df FROM (SELECT * FROM stored UNION ALL SELECT * FROM pending) s GROUP BY term) d USING (term)
     ORDER BY l.term`,
    p.values,
  );
  return rows.map((r) => ({ term: r.term, w: Number(r.w), df: Number(r.df), avgdl: Number(r.avgdl), n: Number(r.n) }));
}
