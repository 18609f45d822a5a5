import { z } from 'zod';
import { MEMORY_KINDS } from '../domain/vocabulary.js';
import { timestamp } from '../input.js';

/**
 * The export format (docs/api.md "Export and import"): JSON lines, one record each, `record`
 * naming its type, in dependency order — header, events, chunks, entities, memories, edges,
 * relations, memory_entities, provenance, working_memory, end. Ids are the source's; an import
 * maps them to its own. Every record is validated on import, one by one.
 */

export const EXPORT_FORMAT = 'memloom-export';
export const EXPORT_VERSION = 1;

const scopeValue = z.string().trim().min(1).max(200);

/** GET /v1/export — one user's or one dataset's memory, or the whole tenant's. */
export const ExportQuery = z
  .object({
    format: z.enum(['jsonl', 'markdown']).default('jsonl'),
    user_id: scopeValue.optional(),
    dataset: scopeValue.optional(),
    vectors: z
      .enum(['true', 'false'])
      .default('true')
      .transform((v) => v === 'true')
      .describe('include embedding vectors (jsonl only)'),
  })
  .strict();
export type ExportQuery = z.infer<typeof ExportQuery>;

const uuid = z.uuid();
// The stored range (src/input.ts): a line past it would be refused by the database, or read back as a time JavaScript cannot write.
const time = timestamp();
const optText = z.string().max(1_000_000).nullable();
const vector = z.array(z.number()).max(4096).nullable().optional();

export const ExportHeader = z.object({
  record: z.literal('header'),
  format: z.literal(EXPORT_FORMAT),
  version: z.literal(EXPORT_VERSION),
  exported_at: time,
  scope: z.object({ user_id: z.string().optional(), dataset: z.string().optional() }),
  embedding: z.object({ model: z.string(), dimensions: z.number().int() }).nullable(),
});

export const EventRecord = z.object({
  record: z.literal('event'),
  id: uuid,
  idem_key: z.string().min(1).max(1000),
  dataset: z.string().min(1),
  user_id: optText,
  agent_id: optText,
  session_id: optText,
  type: z.string().min(1).max(50),
  role: optText,
  content: z.string().max(2 * 1024 * 1024),
  occurred_at: time,
  received_at: time,
  importance: z.number().int().min(1).max(10).nullable(),
  ttl: z.string().max(200).nullable(),
  metadata: z.record(z.string(), z.unknown()),
  source: z.string().max(50),
  source_ref: optText,
  status: z.string().max(50),
  skip_reason: optText,
  processed_at: time.nullable(),
});

export const ChunkRecord = z.object({
  record: z.literal('chunk'),
  id: uuid,
  event_id: uuid,
  idx: z.number().int().min(0),
  content: z.string(),
  start_offset: z.number().int().min(0),
  end_offset: z.number().int().min(0),
  tokens: z.number().int().min(0),
  created_at: time,
  embedding_model: z.string().nullable(),
  embedding: vector,
});

export const EntityRecord = z.object({
  record: z.literal('entity'),
  id: uuid,
  /** The graph scope (files written before entities were scoped have none: the tenant's default scope). */
  dataset: z.string().min(1).default('default'),
  user_id: z.string().nullable().default(null),
  name: z.string().min(1),
  normalized_name: z.string().min(1),
  type: z.string().min(1),
  description: z.string(),
  created_at: time,
  updated_at: time,
  embedding_model: z.string().nullable(),
  embedding: vector,
});

export const MemoryRecord = z.object({
  record: z.literal('memory'),
  id: uuid,
  dataset: z.string().min(1),
  user_id: optText,
  agent_id: optText,
  session_id: optText,
  kind: z.enum(MEMORY_KINDS),
  content: z.string().min(1),
  content_hash: z.string().min(1),
  subject_entity_id: uuid.nullable(),
  importance: z.number().int().min(1).max(10),
  confidence: z.number().min(0).max(1),
  rank_weight: z.number(),
  event_time: time.nullable(),
  time_precision: optText,
  occurred_at: time,
  valid_from: time,
  superseded_by: uuid.nullable(),
  superseded_at: time.nullable(),
  status: z.enum(['active', 'superseded', 'archived']),
  expires_at: time.nullable(),
  is_crystal: z.boolean(),
  version: z.number().int().min(1),
  created_at: time,
  updated_at: time,
  signals: z.object({ decay: z.number(), access_count: z.number().int().min(0), last_accessed_at: time.nullable() }).nullable(),
  embedding_model: z.string().nullable(),
  embedding: vector,
  /**
   * Its full-text key as PostgreSQL writes a tsvector: beside the content's words, its slot's
   * category words and what it inherited from the versions it replaced (src/domain/slots.ts).
   * Files written before keys were exported have none: the key is made from content and slot.
   */
  key: z.string().max(1_000_000).optional(),
  /** What it states a value of (src/domain/slots.ts Slot), or null. */
  slot: z.record(z.string(), z.unknown()).nullable().optional(),
});

export const EdgeRecord = z.object({
  record: z.literal('edge'),
  id: uuid,
  source_entity_id: uuid,
  target_entity_id: uuid,
  relation: z.string().min(1),
  description: z.string(),
  valid_at: time,
  invalid_at: time.nullable(),
  created_at: time,
  updated_at: time,
});

export const RelationRecord = z.object({
  record: z.literal('relation'),
  id: uuid,
  from_memory_id: uuid,
  to_memory_id: uuid,
  relation: z.enum(['replaces', 'enriches', 'confirms', 'challenges']),
  is_progression: z.boolean(),
  created_at: time,
});

export const MemoryEntityRecord = z.object({ record: z.literal('memory_entity'), memory_id: uuid, entity_id: uuid });

export const ProvenanceRecord = z.object({
  record: z.literal('provenance'),
  object_type: z.enum(['memory', 'entity', 'edge', 'relation']),
  object_id: uuid,
  event_id: uuid,
  created_at: time,
  run: z.object({ stage: z.string(), provider: z.string().nullable(), model: z.string().nullable() }).nullable(),
});

export const WorkingMemoryRecord = z.object({
  record: z.literal('working_memory'),
  user_id: z.string(),
  markdown: z.string(),
  refreshed_at: time,
});

export const ExportEnd = z.object({ record: z.literal('end'), counts: z.record(z.string(), z.number().int().min(0)) });

/** Records that carry data (everything but header and end), in the order an export writes them. */
export const DATA_RECORDS = ['event', 'chunk', 'entity', 'memory', 'edge', 'relation', 'memory_entity', 'provenance', 'working_memory'] as const;
export type DataRecordName = (typeof DATA_RECORDS)[number];

export const ExportRecord = z.discriminatedUnion('record', [
  ExportHeader,
  EventRecord,
  ChunkRecord,
  EntityRecord,
  MemoryRecord,
  EdgeRecord,
  RelationRecord,
  MemoryEntityRecord,
  ProvenanceRecord,
  WorkingMemoryRecord,
  ExportEnd,
]);
export type ExportRecord = z.infer<typeof ExportRecord>;
export type EventRecord = z.infer<typeof EventRecord>;
export type ChunkRecord = z.infer<typeof ChunkRecord>;
export type EntityRecord = z.infer<typeof EntityRecord>;
export type MemoryRecord = z.infer<typeof MemoryRecord>;
export type EdgeRecord = z.infer<typeof EdgeRecord>;
export type RelationRecord = z.infer<typeof RelationRecord>;
export type MemoryEntityRecord = z.infer<typeof MemoryEntityRecord>;
export type ProvenanceRecord = z.infer<typeof ProvenanceRecord>;
export type WorkingMemoryRecord = z.infer<typeof WorkingMemoryRecord>;

/** What an import did, per record type. */
export interface ImportResult {
  imported: Record<DataRecordName, number>;
  /** Already there (same idempotency key, natural key or id): importing twice adds nothing. */
  existing: Record<DataRecordName, number>;
  /** Lines that failed validation or referenced an object the file did not carry. */
  rejected: number;
  rejections: Array<{ line: number; message: string }>;
  /** Vectors computed on this instance (another model, no vector in the file, or a local model). */
  embedded: number;
  /** Whether the file ended with its `end` record (a truncated file does not). */
  complete: boolean;
}
