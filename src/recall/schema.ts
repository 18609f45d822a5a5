import { z } from 'zod';
import { identifier, storableText, timestamp } from '../input.js';
import { MEMORY_KINDS } from '../domain/vocabulary.js';

const id = identifier(200);
const time = timestamp();

export const RECALL_MODES = ['memories', 'chunks', 'graph', 'auto'] as const;
export type RecallMode = (typeof RECALL_MODES)[number];
/** What an agent asking a question gets without choosing (docs/recall.md "Modes"). */
export const DEFAULT_RECALL_MODE: RecallMode = 'chunks';

/** POST /v1/recall (docs/recall.md). */
export const RecallInput = z
  .object({
    query: storableText(10_000).pipe(z.string().min(1, 'query must not be empty')),
    user_id: id.optional(),
    agent_id: id.optional(),
    session_id: id.optional(),
    dataset: id.optional(),
    kinds: z.array(z.enum(MEMORY_KINDS)).min(1).optional(),
    limit: z.number().int().min(1).max(100).default(10),
    mode: z.enum(RECALL_MODES).default(DEFAULT_RECALL_MODE),
    since: time.optional(),
    until: time.optional(),
    /** "What did we believe at time T": versions valid then, superseded or not. */
    as_of: time.optional(),
    /** Include superseded and archived memories. */
    include_history: z.boolean().default(false),
    /** Also return results below the relevance floor (docs/recall.md "Match"). */
    include_weak: z.boolean().default(false),
  })
  .strict();
export type RecallInput = z.infer<typeof RecallInput>;

/** How well anything stored matched the query, from absolute signals (src/recall/match.ts). */
export type Match = 'strong' | 'weak' | 'none';

export interface ResultScores {
  /** Keyword and vector fused on z-scores with the query-intent adjustments, scaled to [0, 1] over the query's candidates. */
  relevance: number;
  vector: number;
  keyword: number;
  entity: number;
  graph: number;
  freshness: number;
  importance: number;
  boost: number;
  /** Share of the query's informative words its key holds, an absolute signal (src/recall/match.ts); 0 for triplets. */
  cover?: number;
}

export interface RecallResult {
  id: string;
  type: 'memory' | 'chunk' | 'triplet';
  content: string;
  score: number;
  scores: ResultScores;
  kind?: string;
  status?: string;
  /** Whether what it states still holds: false once superseded or corrected (docs/recall.md "Current truth"). */
  current: boolean;
  /** The memory that replaced it, when it no longer holds. */
  superseded_by?: string;
  /** Memories: the interval it holds (from its statement to its successor's), and its slot. */
  valid_from?: string;
  valid_to?: string | null;
  slot?: string | null;
  /** When it was said: its source event's time (an edge: when it became valid). */
  occurred_at: string;
  /** Memories: the time it is about, when it names one (a deadline's day), and how precise that is. */
  event_time?: string | null;
  time_precision?: string | null;
  /** When memloom stored it. */
  recorded_at: string;
  source: { event_ids: string[]; session_id: string | null; dataset: string | null };
  triplet?: {
    source: string;
    relation: string;
    target: string;
    direction: 'out' | 'in' | 'none';
    chunks: Array<{ id: string; content: string; event_id: string }>;
  };
}
