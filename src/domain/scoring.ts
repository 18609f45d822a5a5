/**
 * The fused recall score (docs/recall.md "Scoring"). Per query, over the candidates of all
 * retrievers:
 * - keyword: Okapi BM25 of the item's key (for chunks plus a share of its session's BM25),
 *   divided by the best of the query, so in [0, 1]
 * - vector: cosine similarity of the query and the item's key vector (clamped at 0)
 * - relevance: the z-scores of keyword and vector over the candidates, weighted
 *   (RELEVANCE), plus query-intent adjustments in the same units (INTENT: the query names the
 *   item's speaker, asks "when" and the item holds a time expression, names a date the chunk is
 *   from (its event day or a relative date of its text), a memory found by the
 *   query is supported by the item, a chunk's own text is short, a chunk replies to a candidate
 *   turn that asks a question: `answer` times that turn's relevance), then scaled to [0, 1] over the
 *   candidates (best = 1)
 * - freshness: 0.5 ^ (age in days / 14); importance: importance / 10 (chunks: the event's, 5 by default)
 * - entity / graph: the item is linked to an entity the query names (ENTITY_SIGNAL.named) or to
 *   its 1–2 hop neighbourhood (ENTITY_SIGNAL.hop / hop distance)
 * score = (0.90·relevance + 0.05·freshness + 0.05·importance + boost) × rank weight (lowered by
 * negative feedback) × STALE_WEIGHT when the item no longer holds; boost = 0.10·max(entity, graph) + 0.05 when found by two or more retrievers
 * + 0.05 for a crystal + 0.02 for a later version. Freshness and importance only break near-ties:
 * together they move an item at most 0.10, a tenth of the relevance scale, on old data as on new.
 *
 * Every ranking number of recall lives in this file, with how it was chosen. "R@10" is evidence
 * recall at 10 on the LoCoMo dev file (`memloom bench recall --locomo`, categories 1–4, docs/performance.md);
 * "the replica" is the in-memory copy of the `chunks` ranking of 2026-12-05
 * (docs/performance-history.md), within about a point of the real figures. A number marked "not
 * measured" was set by reasoning and never compared with another value.
 */

/**
 * Weights of the final score. Not swept: relevance carries the ranking, and freshness and importance
 * were cut from 0.20 / 0.10 to 0.05 each with the z-score fusion (2026-12-03, bf8f1e0) so that
 * together they only separate near-ties (months-old conversations rank by what they say).
 */
export const WEIGHTS = { relevance: 0.9, freshness: 0.05, importance: 0.05 } as const;
/** Additive boosts of the final score. Not measured: set with the first recall path (2026-11-29, 380c9aa). */
export const BOOSTS = { entity: 0.1, multiSource: 0.05, crystal: 0.05, latestVersion: 0.02 } as const;
/**
 * Weights of the z-scored retrievers in relevance. With the hashing embedder, vector at 0 / 0.2 /
 * 0.4 gave 75.1 / 74.5 / 74.3 R@10 (it is lexical too, so within a point); at 0.3 the USE-lite
 * embedder instead of the hashing one gained 2.7 R@10 (docs/performance.md, 2026-12-03). 0.3 keeps
 * most of a semantic embedder's gain (47faadd).
 */
export const RELEVANCE = { keyword: 0.7, vector: 0.3 } as const;
/**
 * Query-intent adjustments of relevance, in standard deviations (fusedRelevance). Measured on the
 * LoCoMo dev file (docs/performance.md 2026-12-03, docs/performance-history.md 2026-12-05):
 * - `speaker` (the query names the chunk's speaker): +1.4 R@10 (72.9 without); +0.8 reached 75.4
 *   but cost the adversarial questions 4 points, so 0.6; 0.4 / 0.8 within ±0.6 in the replica.
 * - `temporal` (asks "when" and the item holds a time expression): +0.4 R@10; 0.5 within ±0.6 in the replica.
 * - `provenance` (`auto`: a chunk backing a memory the query found gains this × that memory's
 *   relevance): not measured on its own (set with the first fusion, 2026-12-03, bf8f1e0).
 * - `length` (lengthPrior): the prior was worth +0.3 R@10; 0.2 / 0.6 within ±0.6 in the replica.
 * - `answer` (answerLifts): the reply after a question turn, 70.3 / 77.2 / 83.8 against 67.5 /
 *   75.8 / 83.4 R@5/10/25 without; 0.2–0.5 measured alike in the replica, 0.3 kept.
 * - `category` (the query names a category the chunk names a value of): a turn that holds a value
 *   of what "which editor?" asks should not lose to one that only says "editor". 0.3 (2026-12-06)
 *   left "how do I sync my editor settings?" above "I'm a VS Code person"; at 1.0, with `asks`,
 *   the truth tune set went from 91.5 to 95.7 in chunks and auto, and LoCoMo (kept database,
 *   2026-12-07) from 69.0 / 76.3 / 83.3 to 69.4 / 76.3 / 83.3, the held-out pair +0.8 / +0.7 R@5.
 * - `asks` (the chunk only asks or requests, src/domain/query-intent.ts asksOnly): a question
 *   or a request states nothing; the reply after a question is lifted (`answer`). 0.3 changed no
 *   truth scenario; 1.0 measured with `category` above, not swept further. Requests counted too:
 *   truth holdout chunks 45.7 -> 48.6, LoCoMo unchanged (kept database, 69.4 / 76.3 / 83.2 both).
 * - `date`: the query names a date and the chunk is from it (src/recall/chunks.ts isFrom). A named
 *   day is a strong, specific signal: on the LoCoMo dev file 0.5 lifted the 28 questions naming a
 *   full date from 78.6 to 87.5 R@10, 1.0 to 92.9 with no category lower (docs/performance.md,
 *   2026-12-07); test/recall-dates.test.ts holds the behaviour (the same words on two days: the
 *   day asked for first).
 * - `assistant` (the chunk is an assistant's turn and the query does not ask what the assistant
 *   said, src/domain/query-intent.ts asksAssistant): the user's own words are first-hand evidence
 *   of the user's life; an assistant's turn repeats them ("Noted: …") or says something general
 *   ("A common rule of thumb is 5–10% of take-home pay"). Truth bench (2026-12-07, one run each,
 *   all three sets): chunks current-first 72.6 -> 73.8 % at 0.5, 74.4 % at 1.0, but at 1.0 the
 *   holdout lost one and gained a stale first, so 0.5. LoCoMo has no assistant turns.
 * - `shape` (the query asks for a value of a shape, "what time", "which day", "how much", "how
 *   long", "which version", "how many", and the chunk's own text holds one: expectedShapes and holdsShape in
 *   src/domain/query-intent.ts): the answer type, as `category` is for named categories,
 *   and at the same weight. Truth bench with `assistant` at 0.5: chunks 73.8 -> 74.4 % at 0.5,
 *   75.6 % at 1.0 (check 68.1 -> 72.3, holdout 62.9 -> 64.3; one stale first more, the 8am of
 *   "Should I hold an 8am for him again?"). 27 of the 652 LoCoMo dev questions ask for a shape.
 */
export const INTENT = {
  speaker: 0.6,
  temporal: 0.3,
  provenance: 0.5,
  length: 0.4,
  answer: 0.3,
  category: 1.0,
  date: 1.0,
  asks: 1.0,
  assistant: 0.5,
  shape: 1.0,
} as const;
/**
 * `auto`: memories' relevance is scaled by this before it meets the chunks' (extracted statements
 * repeat their turns). Fixed from the dev-slice measurements of 2026-12-03 (be9f275); the figures
 * of the other values tried were not recorded.
 */
export const AUTO_MEMORY_SCALE = 0.6;
/**
 * The session prior: share of the session's normalised BM25 added to a chunk's normalised BM25
 * (src/db/sql/recall-bm25.ts). Worth +2.2 R@10 (72.1 without, 2026-12-03); 0.15–0.5 within ±0.6
 * in the replica (2026-12-05).
 */
export const SESSION_WEIGHT = 0.3;
/**
 * `memories` mode: weight, in relevance's z units, of the z-scored keyword score of a memory's
 * best source chunk (src/recall/evidence.ts; one unit per turn inherits it). A memory's own key is
 * one short sentence; its turn's chunk is keyed with its neighbours, time, speaker and session.
 * Swept on the LoCoMo dev file's tune pair (conv-26, conv-30; one kept database, 2026-12-07, the
 * first version of the mechanism, before superseded memories passed their chunks' evidence to
 * their successors): R@10 55.2 (off) -> 70.2 / 71.1 / 71.9 / 72.3 at 2 / 4 / 6 / 10; the check
 * pair (conv-44, conv-47) 53.2 -> 71.3 / 71.2 / 71.2 at 4 / 6 / 10. 6: the chunk's evidence
 * orders the units, their own signals break ties and bring in units no chunk found; beyond it
 * the tune pair gains little and the check pair nothing. The truth scenarios scored the same at
 * 2 as at 6 (their failures then came from the superseded memories, not the weight).
 */
export const EVIDENCE_WEIGHT = 6;
/** Freshness halves every this many days. Not measured (set with the first recall path, 2026-11-29). */
export const HALF_LIFE_DAYS = 14;
/**
 * A result that no longer holds (its statements were superseded by a newer value, or corrected)
 * keeps this share of its score, and the statement that replaced it is brought in with at least
 * its relevance (src/recall/current.ts), so the current value ranks first whatever the share. The
 * share sets how far old evidence falls behind other results: on the LoCoMo dev file's held-out
 * pair (conv-44, conv-47), whose questions often ask about what held before, 0.5 lost 2.1 points
 * of R@5 and 0.9 lost 0.6 against the code before; the truth scenarios scored the same at 0.5,
 * 0.8 and 0.9 (docs/performance.md, 2026-12-06).
 */
export const STALE_WEIGHT = 0.9;
/** Importance runs 0..IMPORTANCE_MAX; its share in the score is importance / IMPORTANCE_MAX. */
export const IMPORTANCE_MAX = 10;
/**
 * Importance of an item that carries none: a chunk whose event has none, a triplet. The middle of
 * the scale, so it neither lifts nor lowers; not measured.
 */
export const DEFAULT_IMPORTANCE = 5;
/** Scores are rounded to four places (1 / SCORE_SCALE): the API shows them so, and ties break by id. */
export const SCORE_SCALE = 10_000;
/** How far above an older statement its newer one is placed (src/recall/rank.ts): one step of the rounded score. */
export const OUTRANK_STEP = 0.0001;

/**
 * The length prior: a chunk's own text of this many tokens or more has none; a shorter one loses
 * INTENT.length × the missing share (lengthPrior). Very short turns ("Thanks!", "Wow") rarely hold
 * evidence but match through their neighbours' words in their keys. Not measured: only
 * INTENT.length was varied (above), at this saturation (2026-12-03, 7bf6998).
 */
export const LENGTH_SATURATION_TOKENS = 24;

/**
 * Candidates asked of each retriever: max(min, limit × perResult), wide enough that fusion can
 * reorder, small enough to stay fast. 100 → 150 / 200 candidates at limit 25 measured within ±0.6
 * R@10 in the replica (2026-12-05); the minimum was not measured.
 */
export const CANDIDATES = { min: 40, perResult: 4 } as const;
/**
 * HNSW candidates per vector search: max(min, limit × perResult). ef_search 80 / 120 / 200 kept
 * recall@10 at 0.967 / 0.978 / 0.990 of an exact scan on 20,000 hashing vectors with the m = 8
 * graphs (scripts/bench-hnsw.ts, 2026-11-30, prisma/migrations/20261130020000_hnsw_build_params);
 * the ×8 for large limits was not measured.
 */
export const EF_SEARCH = { min: 200, perResult: 8 } as const;
/**
 * Chunks looked at for staleness (src/recall/current.ts): the best max(min, limit × perResult) by
 * relevance. A chunk below them stays below the limit (a stale one only falls), and the lookups
 * cost per chunk: LoCoMo conv-26 p50 62 → 35 ms at limit 25 (2026-12-06, ed1954d).
 */
export const STALE_REACH = { min: 20, perResult: 2 } as const;
/**
 * Candidates compared for newer values (src/recall/newer.ts): the best ten by relevance, whatever
 * the limit. Lifting a statement from further down into the top ten cost the LoCoMo dev file 1.9
 * points of R@10 (reach 25, the older one × STALE_WEIGHT); within the ten, the set the top ten
 * holds does not change.
 */
export const NEWER_REACH = 10;
/** Words two statements share, one of them the question's, to be about the same thing (src/recall/newer.ts). Not measured. */
export const SHARED_WORDS = 2;
/**
 * Memories asked for the match of a chunk recall (and chunks for a memory recall) when the
 * candidates' own words cover less than MATCH_WEAK (src/recall/chunks.ts, memories.ts). Not
 * measured: the match needs the best few.
 */
export const SUPPORT_MEMORIES = 10;
export const SUPPORT_CHUNKS = 10;

/**
 * A candidate whose key holds at least this share of the query's informative weight answers it
 * (strong); at least MATCH_WEAK, it may (weak). Chosen on the LoCoMo dev file and the truth
 * scenarios (docs/performance-history.md, 2026-12-06 "current truth"): every LoCoMo question has its
 * evidence stored, and the floor must keep them all; a never-said question's informative words are
 * stored nowhere (all never-said truth questions answered `none`, 10–12 answerable ones of the
 * check and holdout sets too).
 */
export const MATCH_STRONG = 0.5;
/**
 * Below this share nothing informative of the query is stored near the candidate: "none". The
 * informative words of a question about something never said are stored nowhere (their cover is
 * 0); a question whose evidence says it in other words still meets a memory's category or
 * attribute words ("editor" in the key of "the user uses Neovim", src/domain/slots.ts slotKeyText).
 */
export const MATCH_WEAK = 0.05;
/**
 * A synonym of a query word (src/domain/synonyms.ts) weighs this share of its own idf in the
 * keyword retriever: a turn in the question's own words still ranks above one in other words.
 * A key holding it holds the query word for the match (full cover). Set at 0.5 before measuring
 * (docs/performance-history.md, 2026-12-07 "synonyms").
 */
export const SYNONYM_WEIGHT = 0.5;
/**
 * Cosine similarity at which a semantic embedder's vector alone says "related" (src/recall/match.ts
 * vectorFloor): `useLite` for the offline Universal Sentence Encoder lite, `provider` for provider
 * models. Set with the match floor (2026-12-06, 8d116c7); not swept.
 */
export const VECTOR_FLOOR = { useLite: 0.55, provider: 0.45 } as const;

/**
 * The entity and graph retrievers (src/recall/memories.ts, graph.ts): at most `namedEntities`
 * entities the query names, their neighbourhood up to `hops` hops with at most `fanout`
 * neighbours a hop. Not measured (set with the first recall path, 2026-11-29).
 */
export const GRAPH = { namedEntities: 10, hops: 2, fanout: 50 } as const;
/** The entity / graph signal: `named` for a link to an entity the query names, `hop` / distance for its neighbourhood. Not measured. */
export const ENTITY_SIGNAL = { named: 1, hop: 0.5 } as const;
/** `auto`: one result slot in this many (floor) goes to triplets. Not measured. */
export const AUTO_TRIPLET_EVERY = 5;
/**
 * A triplet's rank (src/db/sql/recall-graph.ts): ts_rank of its words with this normalisation
 * (1: divided by 1 + the log of the document length) plus `namedEntity` when it touches an entity
 * the query names; `minBest` keeps the division by the best rank defined when none matched words.
 * Not measured (set with the first recall path, 2026-11-29).
 */
export const TRIPLET_RANK = { normalization: 1, namedEntity: 0.5, minBest: 1e-9 } as const;

/**
 * Term-frequency weight of each part of a chunk's full-text key, by its tsvector weight
 * (docs/recall.md "Index keys"): D own text, A the event time's and speaker's words, C the
 * previous turn, B the next and the second previous turn. The SQL reads them in memloom_term_weight
 * (prisma/schema.sql; test/ranking-sql.test.ts checks they agree). On the LoCoMo dev file
 * (2026-12-03): neighbours at 0.8 / 0.5 or 0.3 / 0.2 instead of 0.5 / 0.3 lost 1.2 / 0.7 R@10; the
 * time and speaker words at 0.2 instead of 0.5 lost 1.5; the second previous turn at 0.3 gained
 * 1.4 (2026-12-05).
 */
export const KEY_TERM_WEIGHT = { D: 1, A: 0.5, C: 0.5, B: 0.3 } as const;
/**
 * A chunk's key vector: its own vector + `previous` × the previous turn's + `next` × the next
 * turn's (memloom_refresh_chunk_keys, src/db/sql/chunk-keys.ts), the same weights as the key's
 * words (KEY_TERM_WEIGHT C and B), measured with them.
 */
export const KEY_VECTOR_WEIGHT = { previous: 0.5, next: 0.3 } as const;

export interface Signals {
  relevance: number;
  vector?: number | undefined;
  keyword?: number | undefined;
  entity?: number | undefined;
  graph?: number | undefined;
  occurredAt: Date;
  importance: number;
  isCrystal?: boolean;
  version?: number;
  rankWeight?: number;
  /** false: its statements no longer hold (STALE_WEIGHT). */
  current?: boolean;
}

export function freshness(occurredAt: Date, now: Date): number {
  const days = Math.max(0, (now.getTime() - occurredAt.getTime()) / 86_400_000);
  return 0.5 ** (days / HALF_LIFE_DAYS);
}

/** Rounds to four places (SCORE_SCALE). */
export function roundScore(x: number): number {
  return Math.round(x * SCORE_SCALE) / SCORE_SCALE;
}

/** What the query asks that the item answers (INTENT); `tokens`: a chunk's own text length (lengthPrior), absent for memories. */
export interface IntentSignals {
  speaker?: boolean;
  temporal?: boolean;
  date?: boolean;
  tokens?: number;
  /** The chunk's own text only asks (src/domain/query-intent.ts asksOnly): it states nothing. */
  asks?: boolean;
  /** The chunk is an assistant's turn and the query does not ask what the assistant said (src/domain/query-intent.ts asksAssistant). */
  assistant?: boolean;
  /** The query asks for a value of a shape (a time, an amount…) and the chunk's own text holds one (src/domain/query-intent.ts holdsShape). */
  shape?: boolean;
}

/** Relevance in z units: the weighted z-scores of keyword and vector plus the query-intent adjustments. */
export function fusedRelevance(zKeyword: number, zVector: number, intent: IntentSignals): number {
  let rel = RELEVANCE.keyword * zKeyword + RELEVANCE.vector * zVector;
  if (intent.speaker) rel += INTENT.speaker;
  if (intent.temporal) rel += INTENT.temporal;
  if (intent.date) rel += INTENT.date;
  if (intent.tokens !== undefined) rel += lengthPrior(intent.tokens);
  if (intent.asks) rel -= INTENT.asks;
  if (intent.assistant) rel -= INTENT.assistant;
  if (intent.shape) rel += INTENT.shape;
  return rel;
}

/** 0 for a chunk's own text of LENGTH_SATURATION_TOKENS or more, down to −INTENT.length for an empty one. */
export function lengthPrior(tokens: number): number {
  return INTENT.length * (Math.min(tokens, LENGTH_SATURATION_TOKENS) / LENGTH_SATURATION_TOKENS - 1);
}

/**
 * The answer lift: a turn that asks a question (`next_id`: the next turn of its session, set only
 * for questions) is often found by the query's words while the turn after it holds the answer.
 * That turn, when a candidate too, gains INTENT.answer × the question's relevance when positive
 * (the best of its questions). Returns the lift by chunk id.
 */
export function answerLifts(turns: ReadonlyArray<{ id: string; next_id: string | null }>, relOf: ReadonlyMap<string, number>): Map<string, number> {
  const lift = new Map<string, number>();
  for (const c of turns) {
    const q = relOf.get(c.id) ?? 0;
    if (c.next_id !== null && relOf.has(c.next_id) && q > 0) lift.set(c.next_id, Math.max(lift.get(c.next_id) ?? 0, INTENT.answer * q));
  }
  return lift;
}

export function fuse(s: Signals, now: Date) {
  const vector = Math.max(0, s.vector ?? 0);
  const keyword = s.keyword ?? 0;
  const entity = s.entity ?? 0;
  const graph = s.graph ?? 0;
  const relevance = Math.min(1, Math.max(0, s.relevance));
  const fresh = freshness(s.occurredAt, now);
  const importance = Math.min(1, Math.max(0, s.importance / IMPORTANCE_MAX));
  const hits = [s.vector !== undefined && s.vector > 0, keyword > 0, entity > 0 || graph > 0].filter(Boolean).length;
  const boost =
    BOOSTS.entity * Math.max(entity, graph) +
    (hits >= 2 ? BOOSTS.multiSource : 0) +
    (s.isCrystal ? BOOSTS.crystal : 0) +
    ((s.version ?? 1) > 1 ? BOOSTS.latestVersion : 0);
  const base = WEIGHTS.relevance * relevance + WEIGHTS.freshness * fresh + WEIGHTS.importance * importance;
  const score = (base + boost) * (s.rankWeight ?? 1) * (s.current === false ? STALE_WEIGHT : 1);
  const r = roundScore;
  return {
    score: r(score),
    scores: {
      relevance: r(relevance),
      vector: r(vector),
      keyword: r(keyword),
      entity: r(entity),
      graph: r(graph),
      freshness: r(fresh),
      importance: r(importance),
      boost: r(boost),
    },
  };
}

/**
 * z-scores of a retriever's scores over all candidate ids. A candidate the retriever did not
 * return scores as its lowest returned score (it ranked below all of them); a retriever that
 * returned nothing, or the same score for all, contributes 0.
 */
export function zScores(ids: string[], scores: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  if (scores.size === 0) return out;
  const floor = Math.min(...scores.values());
  const xs = ids.map((id) => scores.get(id) ?? floor);
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length);
  if (sd === 0) return out;
  ids.forEach((id, i) => out.set(id, ((xs[i] as number) - mean) / sd));
  return out;
}

/** Scales values to [0, 1] by the best and worst of them (all 1 when they are equal). */
export function minMax(values: number[]): (x: number) => number {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return (x) => (hi > lo ? (x - lo) / (hi - lo) : 1);
}

/**
 * Highest score first; of equal scores, one that still holds before one that no longer does
 * (`current: false`), then by id. A total order: results tied on score (common when only
 * freshness separates them) would otherwise come in whatever order the database returned the
 * candidates, which changes with other tenants' rows in the same tables and plans.
 */
export function byScore(a: { score: number; id: string; current?: boolean }, b: { score: number; id: string; current?: boolean }): number {
  return b.score - a.score || Number(a.current === false) - Number(b.current === false) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

// Keyword retrieval (src/db/sql/recall-bm25.ts)

/**
 * Okapi BM25's term-frequency saturation (k1) and key-length normalisation (b): the usual values.
 * In an in-memory replica of the `chunks` ranking on the LoCoMo dev file, k1 0.9 / 1.6 and b
 * 0.5 / 0.9 each moved R@10 by at most ±0.6 (docs/performance-history.md, 2026-12-05 late).
 */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/**
 * The 0.5 added to a term's document frequency and to the rest of the scope in BM25's idf,
 * ln(1 + (N − df + 0.5) / (df + 0.5)) (Robertson–Spärck Jones); the usual value, not measured.
 */
export const BM25_IDF_SMOOTHING = 0.5;
/**
 * In the keyword preselection's idf sum over a chunk's terms (which rows are scored exactly, not
 * their score), the share of a term's idf when it is only in the chunk's context parts
 * (neighbours, time, speaker), near those parts' term-frequency weights (0.3–0.5,
 * memloom_term_weight); a term in the chunk's own text counts whole. Not measured.
 */
export const CONTEXT_TERM_IDF_SHARE = 0.5;
