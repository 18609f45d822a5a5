import { z } from 'zod';
import { toStorable } from '../../input.js';
import { MEMORY_KINDS, RECONCILE_ACTIONS, TIME_PRECISIONS } from '../../domain/vocabulary.js';

/** One message handed to an extractor. `index` is a small integer so prompts never carry UUIDs. */
export interface ExtractMessage {
  index: number;
  type: string;
  role?: string | undefined;
  /** Who spoke, when the transcript says (e.g. LoCoMo speaker names), else undefined. */
  speaker?: string | undefined;
  content: string;
  /** ISO-8601 time the event happened. */
  occurredAt: string;
}

export interface ExtractInput {
  messages: ExtractMessage[];
  /** Entities the tenant already has, so an extractor can reuse their exact names. */
  knownEntities: Array<{ id: number; name: string; type: string }>;
}

/*
 * Every string of an extraction is made storable (src/input.ts toStorable): a model may answer NUL,
 * and an extractor that cuts a name or relation at a UTF-16 boundary leaves half a surrogate pair,
 * which the jsonb parameters of the write path reject (a pass that failed for good on valid text).
 */
export const ExtractedMemory = z.object({
  kind: z.enum(MEMORY_KINDS),
  content: z.string().trim().min(1).transform(toStorable),
  importance: z.number().int().min(1).max(10),
  confidence: z.number().min(0).max(1),
  /** Name of the entity the memory is mainly about (e.g. the speaker), if any. */
  subject: z.string().trim().min(1).transform(toStorable).nullish(),
  /** ISO-8601 time the memory's content refers to, when the text states one. */
  event_time: z.string().nullish(),
  time_precision: z.enum(TIME_PRECISIONS).nullish(),
  /** Indexes of the input messages that support this memory (at least one). */
  sources: z.array(z.number().int().nonnegative()).min(1),
  /** Names of entities the memory mentions. */
  entities: z.array(z.string().trim().min(1).transform(toStorable)).default([]),
  /**
   * What the memory is about and which attribute, in a few words ("desktop app / local database",
   * "Sam / employer"), when it states a value that can change; a model may give it, the offline
   * extractor reads it from the content (src/domain/slots.ts).
   */
  slot: z.string().trim().min(1).max(200).transform(toStorable).nullish(),
});
export type ExtractedMemory = z.infer<typeof ExtractedMemory>;

export const ExtractedEntity = z.object({
  name: z.string().trim().min(1).max(200).transform(toStorable),
  /** Lower-case type word: person, organization, place, project, tool, technology, concept, event, file, version, other. */
  type: z.string().trim().min(1).max(50).transform(toStorable),
  description: z.string().transform(toStorable).default(''),
  sources: z.array(z.number().int().nonnegative()).min(1),
});
export type ExtractedEntity = z.infer<typeof ExtractedEntity>;

export const ExtractedTriplet = z.object({
  source: z.string().trim().min(1).transform(toStorable),
  /** snake_case verb phrase, e.g. works_at, prefers, decided, uses. Direction is source -> target. */
  relation: z.string().trim().min(1).max(100).transform(toStorable),
  target: z.string().trim().min(1).transform(toStorable),
  description: z.string().transform(toStorable).default(''),
  sources: z.array(z.number().int().nonnegative()).min(1),
});
export type ExtractedTriplet = z.infer<typeof ExtractedTriplet>;

export const ExtractionResult = z.object({
  memories: z.array(ExtractedMemory),
  entities: z.array(ExtractedEntity),
  triplets: z.array(ExtractedTriplet),
});
export type ExtractionResult = z.infer<typeof ExtractionResult>;

export interface TokenUsage {
  input: number;
  output: number;
}

export interface TriageVerdict {
  keep: boolean;
  reason?: string | undefined;
  /** 1 (highest) .. 10 (lowest), BullMQ priority semantics. */
  priority: number;
}

/**
 * One batched reconcile question: the new units of a pass that have near existing memories, and
 * those memories. Integers stand for units (`unit`, from 0) and memories (`id`, from 1), never UUIDs.
 */
export interface ReconcileInput {
  memories: Array<{ id: number; kind: string; content: string; date: string }>;
  units: Array<{ unit: number; kind: string; content: string; date: string; candidates: number[] }>;
}

export const ReconcileDecision = z.object({
  unit: z.number().int().nonnegative(),
  action: z.enum(RECONCILE_ACTIONS),
  /** The existing memory's number for UPDATE, CONFIRM and CHALLENGE; null otherwise. */
  target: z.number().int().positive().nullish(),
});
export type ReconcileDecision = z.infer<typeof ReconcileDecision>;

export const ReconcileAnswer = z.object({ decisions: z.array(ReconcileDecision) });
export type ReconcileAnswer = z.infer<typeof ReconcileAnswer>;

/** Thrown by a provider whose reconcile answer was still invalid after its one corrective turn. */
export const RECONCILE_INVALID = 'RECONCILE_INVALID';

export interface LlmProvider {
  /** `heuristic` or the configured model id. */
  readonly model: string;
  readonly paid: boolean;
  extract(input: ExtractInput): Promise<{ result: ExtractionResult; usage?: TokenUsage }>;
  /** Paid providers only: one batched reconcile decision. Without it the offline rules decide. */
  reconcile?(input: ReconcileInput): Promise<{ result: ReconcileAnswer; usage?: TokenUsage }>;
  ready(): Promise<void>;
  /** Starts loading what the first call needs (the heuristic extractor's thread), without waiting. */
  warm?(): void;
  close(): Promise<void>;
}
