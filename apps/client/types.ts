/**
 * Request and answer types of the memloom API, as the client sees them on the wire (timestamps
 * are ISO-8601 strings). Self-contained on purpose: the compiled client ships without the server's
 * sources. docs/api.md describes each route; /openapi.json is the machine-readable form.
 */

export type MemoryKind = 'fact' | 'preference' | 'decision' | 'plan' | 'procedure' | 'profile' | 'episode' | 'insight';
export type RecallMode = 'memories' | 'chunks' | 'graph' | 'auto';

export interface EventsAnswer {
  accepted: number;
  duplicates: number;
  /** Stored ids in request order; null for a rejected event. */
  ids: Array<string | null>;
  error?: { code: string; message: string; details: Array<{ index?: number; path: string; message: string }> };
}

export interface RecallRequest {
  query: string;
  user_id?: string;
  agent_id?: string;
  session_id?: string;
  dataset?: string;
  kinds?: MemoryKind[];
  limit?: number;
  /** Default `chunks` (docs/recall.md "Modes"). */
  mode?: RecallMode;
  since?: string;
  until?: string;
  as_of?: string;
  include_history?: boolean;
  /** Also results below the match floor (docs/recall.md "Match"). */
  include_weak?: boolean;
}

export interface RecallResult {
  id: string;
  type: 'memory' | 'chunk' | 'triplet';
  content: string;
  score: number;
  scores: Record<string, number>;
  kind?: string;
  status?: string;
  /** false once what it states was superseded by a newer value or corrected. */
  current: boolean;
  /** The memory that replaced it. */
  superseded_by?: string;
  /** Memories: the interval it held and what it states a value of. */
  valid_from?: string;
  valid_to?: string | null;
  slot?: string | null;
  /** When it was said: its source event's time. */
  occurred_at: string;
  /** Memories: the time it is about, when it names one (a deadline's day). */
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

export interface RecallAnswer {
  recall_id: string;
  /** strong / weak / none: how well anything stored matched; none means nothing relevant is stored. */
  match: 'strong' | 'weak' | 'none';
  results: RecallResult[];
  took_ms: number;
  /**
   * Present while some chunks or memories have no vector of the configured embedding model (after
   * a model change, until `memloom reembed`): vector search skips them, keyword search finds them.
   */
  vectors?: { model: string; missing: number; capped: boolean };
}

/** POST /v1/context (docs/api.md "Context block"): recall's scope, a token budget and a format. */
export interface ContextRequest {
  query: string;
  user_id?: string;
  agent_id?: string;
  session_id?: string;
  dataset?: string;
  kinds?: MemoryKind[];
  since?: string;
  until?: string;
  as_of?: string;
  include_history?: boolean;
  /** Tokens (o200k) of the whole block, headings included; default 1,000, 50-8,000. */
  budget_tokens?: number;
  /** markdown (default): `context` holds the block; json: `items` only. */
  format?: 'markdown' | 'json';
}

export interface ContextItem {
  type: 'memory' | 'chunk';
  id: string;
  /** Chunks: the event it was cut from (the id the block names). */
  event_id?: string;
  /** Memories: the events it was extracted from. */
  event_ids?: string[];
  text: string;
  /** YYYY-MM-DD: when it was said. */
  date: string;
  /** YYYY-MM-DD: the day it is about, when that differs (a deadline). */
  about?: string;
  /** false: what it states no longer holds; `replaced_by` says what does. */
  current: boolean;
  replaced_by?: { id: string; text?: string; date?: string };
  score: number;
  merged_ids?: string[];
}

export interface ContextAnswer {
  /** The Markdown block (absent with format json); empty when match is none. */
  context?: string;
  tokens: number;
  budget_tokens: number;
  match: 'strong' | 'weak' | 'none';
  items: ContextItem[];
  recall_id: string;
  took_ms: number;
}

export interface MemoryItem {
  id: string;
  kind: MemoryKind;
  content: string;
  status: 'active' | 'superseded' | 'archived';
  importance: number;
  confidence: number;
  user_id: string | null;
  session_id: string | null;
  dataset: string;
  version: number;
  /** When it was said, the time it is about (if it names one), the interval it holds, when it was stored. */
  occurred_at: string;
  event_time: string | null;
  valid_from: string;
  valid_to: string | null;
  recorded_at: string;
  [field: string]: unknown;
}

export interface MemoryListQuery {
  user_id?: string;
  agent_id?: string;
  session_id?: string;
  dataset?: string;
  kind?: MemoryKind | MemoryKind[];
  status?: 'active' | 'superseded' | 'archived' | 'all';
  conflicts?: boolean;
  q?: string;
  limit?: number;
  cursor?: string;
}

export interface MemoryPage {
  memories: MemoryItem[];
  next_cursor: string | null;
}

export interface MemoryDetail extends MemoryItem {
  provenance: {
    events: Array<{ id: string; session_id: string | null; dataset: string; occurred_at: string; type: string; source: string }>;
    runs: Array<{ id: string; stage: string; model: string | null; started_at: string }>;
  };
  versions: Array<{ id: string; version: number; content: string; status: string; valid_from: string; superseded_by: string | null }>;
  relations: Array<Record<string, unknown>>;
  entities: Array<{ id: string; name: string; type: string; [field: string]: unknown }>;
}

export interface MemoryCorrection {
  content: string;
  kind?: MemoryKind;
  importance?: number;
}

/**
 * A session is identified within its user: give user_id with session_id when several users share
 * session ids. A chunk id (a `chunks` recall result) forgets the event the chunk was cut from.
 */
export type ForgetScope = { event_id: string } | { chunk_id: string } | { session_id: string; user_id?: string } | { user_id: string } | { dataset: string };

export interface ForgetAnswer {
  nothing_to_forget: boolean;
  removed: Record<string, number>;
  updated: Record<string, number>;
  jobs_removed: number;
  /** User scopes whose working memory was rebuilt at once ('' = memories without a user). */
  working_memory_refreshed?: string[];
}

export interface FeedbackRequest {
  recall_id: string;
  score: 1 | 2 | 3 | 4 | 5;
  text?: string;
}

export interface FeedbackAnswer {
  duplicate: boolean;
  [field: string]: unknown;
}

export interface ServerStats {
  objects: Record<string, number> & { events: number; chunks: number; memories: number; entities: number; edges: number; dead_letters: number };
  queues: Record<string, { waiting: number; active: number; delayed: number; failed: number; completed: number }>;
  /** Stored events some stage has not finished: 0 means everything received is recallable. */
  pending_events: number;
}

export interface EntitySummary {
  id: string;
  name: string;
  type: string;
  description: string;
  [field: string]: unknown;
}

export interface ExportOptions {
  format?: 'jsonl' | 'markdown';
  user_id?: string;
  dataset?: string;
  /** Include embedding vectors (jsonl). Default true. */
  vectors?: boolean;
}

export interface ImportAnswer {
  imported: Record<string, number>;
  existing: Record<string, number>;
  rejected: number;
  rejections: Array<{ line: number; message: string }>;
  embedded: number;
  complete: boolean;
}
