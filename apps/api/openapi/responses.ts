import { z } from 'zod';
import { EVENT_ROLES, EVENT_TYPES } from '../../../src/events/constants.js';

/**
 * Shapes of the main answers, for the OpenAPI document only (the handlers are typed by src/).
 * Loose objects: an answer may carry more fields than listed here.
 */

const Issue = z.object({ index: z.number().int().optional(), path: z.string(), message: z.string() });

export const ErrorBody = z.object({
  error: z.looseObject({ code: z.string().describe('stable machine-readable code, e.g. INPUT_INVALID'), message: z.string(), details: z.unknown().optional() }),
});

export const EventsAccepted = z.looseObject({
  accepted: z.number().int(),
  duplicates: z.number().int(),
  ids: z.array(z.string().nullable()).describe('stored event ids in request order; null for a rejected event'),
  error: z.looseObject({ code: z.string(), message: z.string(), details: z.array(Issue) }).optional(),
  searchable: z
    .boolean()
    .optional()
    .describe('with ?wait=searchable: true once every stored event is recallable as chunks; false when timeout_ms came first or an event failed'),
});

/** The body of POST /v1/events: one event, or a batch. Mirrors src/events/schema.ts (validated there). */
export const EventBody = z.object({
  id: z.string().max(200).optional().describe('client idempotency key'),
  dataset: z.string().max(200).optional(),
  user_id: z.string().max(200).optional(),
  agent_id: z.string().max(200).optional(),
  session_id: z.string().max(200).optional(),
  type: z.enum(EVENT_TYPES).optional(),
  role: z.enum(EVENT_ROLES).optional(),
  content: z.string().describe('required, at most 1 MiB of UTF-8'),
  occurred_at: z.string().describe('ISO-8601 timestamp with a time zone, between 0001-01-01 and 9999-12-31 in UTC').optional(),
  importance: z.number().int().min(1).max(10).optional(),
  ttl: z.string().describe('ISO-8601 duration, e.g. P30D; one that would expire after 9999-12-31 is kept as no expiry').optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

const RecallResult = z.looseObject({
  id: z.string(),
  type: z.enum(['memory', 'chunk', 'triplet']),
  content: z.string(),
  score: z.number(),
  scores: z.record(z.string(), z.number()),
  kind: z.string().optional(),
  status: z.string().optional(),
  current: z.boolean().describe('false once what it states was superseded by a newer value or corrected'),
  superseded_by: z.string().optional().describe('the memory that replaced it'),
  valid_from: z.string().optional().describe('memories: when it started to hold (when it was stated)'),
  valid_to: z.string().nullable().optional().describe("memories: when it stopped holding (its successor's valid_from)"),
  slot: z.string().nullable().optional().describe('memories: what it states a value of'),
  occurred_at: z.string().describe("when it was said: its source event's time"),
  event_time: z.string().nullable().optional().describe("memories: the time it is about, when it names one (a deadline's day)"),
  time_precision: z.string().nullable().optional().describe('memories: the precision of event_time (day, month, year, …)'),
  recorded_at: z.string().describe('when memloom stored it'),
  source: z.object({ event_ids: z.array(z.string()), session_id: z.string().nullable(), dataset: z.string().nullable() }),
});

export const RecallAnswer = z.object({
  recall_id: z.string(),
  match: z.enum(['strong', 'weak', 'none']).describe('how well anything stored matched, from absolute signals; none: nothing relevant is stored'),
  results: z.array(RecallResult),
  took_ms: z.number(),
  vectors: z
    .object({ model: z.string(), missing: z.number().int(), capped: z.boolean() })
    .optional()
    .describe(
      'present when some chunks or memories have no vector of the configured model yet (after a model change, until memloom reembed): vector search skips them, keyword search still finds them; missing is counted up to 10,000 (capped) and may lag by a minute',
    ),
});

const ContextItem = z.object({
  type: z.enum(['memory', 'chunk']),
  id: z.string(),
  event_id: z.string().optional().describe('chunks: the event it was cut from (the id the block names)'),
  event_ids: z.array(z.string()).optional().describe('memories: the events it was extracted from'),
  text: z.string(),
  date: z.string().describe('YYYY-MM-DD: when it was said (its source event)'),
  about: z.string().optional().describe('YYYY-MM-DD: the day it is about, when its text names one that differs'),
  current: z.boolean().describe('false: what it states no longer holds; replaced_by says what does'),
  replaced_by: z.object({ id: z.string(), text: z.string().optional(), date: z.string().optional() }).optional(),
  score: z.number(),
  merged_ids: z.array(z.string()).optional().describe('the chunks of one event merged into this line'),
});

export const ContextAnswer = z.object({
  context: z.string().optional().describe('the Markdown block (format markdown); empty when nothing matched'),
  tokens: z.number().int().describe('o200k tokens of the Markdown block, headings included; never over budget_tokens'),
  budget_tokens: z.number().int(),
  match: z.enum(['strong', 'weak', 'none']).describe('as in recall; none: an empty block'),
  items: z.array(ContextItem).describe('what the block holds, in its order'),
  recall_id: z.string().describe('the recall behind the block, for feedback'),
  took_ms: z.number(),
});

const QueueCounts = z.object({ waiting: z.number(), active: z.number(), delayed: z.number(), failed: z.number(), completed: z.number() });

export const StatsAnswer = z.object({
  objects: z.record(z.string(), z.number().int()),
  queues: z.record(z.string(), QueueCounts),
  pending_events: z.number().int().describe('stored events some stage has not finished; 0 means everything is recallable'),
  vectors: z
    .object({
      model: z.string().describe('the configured embedding model'),
      dims: z.number().int(),
      by_model: z.array(z.object({ table: z.enum(['chunks', 'memories', 'entities']), model: z.string(), dims: z.number().int(), rows: z.number().int() })),
      other_model: z.number().int().describe('rows whose vector is of another model: vector search skips them until memloom reembed'),
    })
    .describe('stored vectors per table and embedding model'),
});

export const ForgetAnswer = z.looseObject({
  nothing_to_forget: z.boolean(),
  removed: z.record(z.string(), z.number().int()),
  updated: z.record(z.string(), z.number().int()),
  jobs_removed: z.number().int(),
  working_memory_refreshed: z.array(z.string()).describe("user scopes whose working memory was rebuilt at once ('' = memories without a user)"),
});

export const ImportAnswer = z.looseObject({
  imported: z.record(z.string(), z.number().int()),
  existing: z.record(z.string(), z.number().int()),
  rejected: z.number().int(),
  rejections: z.array(z.object({ line: z.number().int(), message: z.string() })),
  embedded: z.number().int(),
  complete: z.boolean(),
});

export const DoctorAnswer = z.object({
  tenants: z
    .record(z.string(), z.record(z.string(), z.number().int()))
    .describe('per tenant: each invariant check with its count of violations (0 when it holds), and embedding_cache_unmatched, a report'),
  violations: z.number().int().describe('violations over all tenants (the cache report excepted); memloom doctor exits 1 when not 0'),
});
