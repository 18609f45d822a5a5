import { z } from 'zod';
import { RecallInput, type Match } from '../recall/schema.js';

/** What a context block holds when the request names no budget, and the most it may ask for. */
export const DEFAULT_CONTEXT_BUDGET = 1000;
export const MAX_CONTEXT_BUDGET = 8000;
/** Below this not even a heading and one short dated line with its id fit. */
export const MIN_CONTEXT_BUDGET = 50;

export const CONTEXT_FORMATS = ['markdown', 'json'] as const;

/**
 * POST /v1/context (docs/api.md "Context block"): recall's query and scope, a token budget and a
 * format. The ranking, the limits and the floor are the block's own: no mode, limit or include_weak.
 */
export const ContextInput = RecallInput.omit({ mode: true, limit: true, include_weak: true })
  .extend({
    budget_tokens: z.number().int().min(MIN_CONTEXT_BUDGET).max(MAX_CONTEXT_BUDGET).default(DEFAULT_CONTEXT_BUDGET),
    /** markdown: `context` holds the block; json: only `items` (the same items, packed for the same budget). */
    format: z.enum(CONTEXT_FORMATS).default('markdown'),
  })
  .strict();
export type ContextInput = z.infer<typeof ContextInput>;

/** One line of the block: a current fact (memory) or a piece of evidence (chunk, or a replaced memory). */
export interface ContextItem {
  type: 'memory' | 'chunk';
  id: string;
  /** Chunks: the event (message, document) it was cut from; its id is the one the block names. */
  event_id?: string;
  /** Memories: the events it was extracted from. */
  event_ids?: string[];
  text: string;
  /** YYYY-MM-DD: when it was said (its source event's time). */
  date: string;
  /** YYYY-MM-DD: the day it is about, when its text names one that differs (a deadline). */
  about?: string;
  /** false: what it states no longer holds; `replaced_by` says what does. */
  current: boolean;
  replaced_by?: { id: string; text?: string; date?: string };
  score: number;
  /** Chunks of one event merged into this item (their ids), when more than one. */
  merged_ids?: string[];
}

export interface ContextAnswer {
  /** The Markdown block (absent with format json). Empty when nothing matched. */
  context?: string;
  /** Tokens of the Markdown block (o200k_base), headings included: never over budget_tokens. */
  tokens: number;
  budget_tokens: number;
  match: Match;
  items: ContextItem[];
  recall_id: string;
  took_ms: number;
}
