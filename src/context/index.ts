import type { Deps } from '../deps.js';
import { withTenant } from '../db/pool.js';
import { loadMemories } from '../db/sql/recall.js';
import { recallChunks } from '../recall/chunks.js';
import { recallWith } from '../recall/index.js';
import { recallMemories } from '../recall/memories.js';
import type { Match, RecallInput, RecallResult } from '../recall/schema.js';
import { packBlock, type PackCandidate } from './pack.js';
import type { ContextAnswer, ContextInput } from './schema.js';

const MATCH_ORDER: Match[] = ['none', 'weak', 'strong'];
const better = (a: Match, b: Match): Match => (MATCH_ORDER.indexOf(a) >= MATCH_ORDER.indexOf(b) ? a : b);

/**
 * How many results to rank for a budget: more than can fit (a LoCoMo turn's line with its date and
 * id costs ~60 tokens), so that what dedup leaves out is replaced; chunks at least 10, at most
 * recall's 100; memories (one short sentence each) a fifth of that.
 */
export function recallLimits(budget: number): { chunks: number; memories: number } {
  return { chunks: Math.min(100, Math.max(10, Math.ceil(budget / 30))), memories: Math.min(30, Math.max(5, Math.ceil(budget / 100))) };
}

const day = (iso: string) => iso.slice(0, 10);

/**
 * The least relevance (scaled so the query's best candidate has 1) an item needs to enter the
 * block. A chunk's key holds words of its session's other turns, so on a short history every turn
 * of a session "covers" a question about one of them; below a fifth of the best candidate's
 * relevance they are padding, not context ("I prefer short answers" for "Who is Priya?").
 */
export const CONTEXT_MIN_RELEVANCE = 0.2;
const relevantEnough = (r: RecallResult) => (r.scores.relevance ?? 1) >= CONTEXT_MIN_RELEVANCE;

/**
 * POST /v1/context: one recall (memories and evidence chunks side by side, each with its own floor,
 * one query embedding, one logged recall), then the block: current memories first, then the
 * evidence by rank, each dated with its source id; what no longer holds is marked with what
 * replaced it and when (src/recall/current.ts). `match` is the better of the two pools'.
 */
export async function buildContext(deps: Deps, tenantId: string, input: ContextInput, onAccess?: (ids: string[]) => void): Promise<ContextAnswer> {
  const started = performance.now();
  const { budget_tokens: budget, format, ...scope } = input;
  const limits = recallLimits(budget);
  const recallInput: RecallInput = { ...scope, mode: 'auto', limit: limits.chunks, include_weak: false };
  let memories: RecallResult[] = [];
  let chunks: RecallResult[] = [];
  const answer = await recallWith(
    deps,
    tenantId,
    recallInput,
    async (ctx) => {
      const [m, c] = await Promise.all([recallMemories(ctx, limits.memories), recallChunks(ctx, limits.chunks)]);
      memories = m.results.filter(relevantEnough);
      chunks = c.results.filter(relevantEnough);
      return { results: [...m.results, ...c.results], match: better(m.match, c.match) };
    },
    onAccess,
  );
  // With as_of the facts are what held then: a version superseded later still held at that time.
  const asOf = input.as_of ? new Date(input.as_of).getTime() : undefined;
  const heldThen = (r: RecallResult): RecallResult =>
    asOf === undefined || r.type !== 'memory' ? r : { ...r, current: r.valid_to == null || new Date(r.valid_to).getTime() > asOf };
  memories = memories.map(heldThen);
  chunks = chunks.map(heldThen);
  // Current memories are the facts (a correction recall brought in as evidence too), best first;
  // everything else is evidence in its rank, replaced memories included when history was asked for.
  const seen = new Set<string>();
  const once = (r: RecallResult) => !seen.has(r.id) && seen.add(r.id) !== undefined;
  const facts = [...memories, ...chunks.filter((r) => r.type === 'memory')]
    .filter((r) => r.current)
    .sort((a, b) => b.score - a.score)
    .filter(once);
  const evidence = [...chunks, ...memories.filter((r) => !r.current)].filter((r) => r.type !== 'triplet').filter(once);
  const heads = [...new Set(evidence.filter((r) => !r.current && r.superseded_by).map((r) => r.superseded_by as string))];
  const replacing = new Map(heads.length === 0 ? [] : (await withTenant(deps.db, tenantId, (tx) => loadMemories(tx, heads))).map((m) => [m.id, m] as const));
  const listedFacts = new Set(facts.map((f) => f.id));
  const candidate = (r: RecallResult, section: PackCandidate['section']): PackCandidate => {
    const head = r.superseded_by ? replacing.get(r.superseded_by) : undefined;
    return {
      section,
      type: r.type === 'memory' ? 'memory' : 'chunk',
      id: r.id,
      ...(r.type === 'memory' ? { event_ids: r.source.event_ids } : { event_id: r.source.event_ids[0] as string }),
      text: r.content,
      date: day(r.occurred_at),
      ...(r.event_time && day(r.event_time) !== day(r.occurred_at) ? { about: day(r.event_time) } : {}),
      current: r.current,
      ...(r.current || !r.superseded_by
        ? {}
        : {
            replaced_by: {
              id: r.superseded_by,
              // A replacement listed among the facts is not repeated: the line points to it.
              ...(head && !listedFacts.has(head.id) ? { text: head.content } : {}),
              ...(head ? { date: day(head.valid_from.toISOString()) } : {}),
            },
          }),
      score: Math.round(r.score * 10_000) / 10_000,
    };
  };
  const packed =
    answer.match === 'none'
      ? { markdown: '', tokens: 0, items: [] }
      : packBlock([...facts.map((r) => candidate(r, 'facts')), ...evidence.map((r) => candidate(r, 'evidence'))], budget);
  return {
    ...(format === 'markdown' ? { context: packed.markdown } : {}),
    tokens: packed.tokens,
    budget_tokens: budget,
    match: answer.match,
    items: packed.items,
    recall_id: answer.recall_id,
    took_ms: Math.round((performance.now() - started) * 100) / 100,
  };
}
