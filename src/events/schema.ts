import { z } from 'zod';
import type { InputIssue } from '../errors.js';

export const EVENT_TYPES = ['message', 'tool_call', 'tool_result', 'decision', 'note', 'document', 'feedback', 'session_end'] as const;
export const EVENT_ROLES = ['user', 'assistant', 'system', 'tool'] as const;
export const MAX_CONTENT_BYTES = 1024 * 1024;
export const MAX_BATCH = 1000;
const MAX_METADATA_DEPTH = 8;
const MAX_METADATA_BYTES = 64 * 1024;

const id = z.string().trim().min(1).max(200);
/** ISO-8601 duration (P30D, PT12H, P1Y2M…), stored as a PostgreSQL interval. */
const ISO_DURATION = /^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$/;

function depth(value: unknown, level = 0): number {
  if (level > MAX_METADATA_DEPTH) return level;
  if (Array.isArray(value)) return Math.max(level, ...value.map((v) => depth(v, level + 1)));
  if (value !== null && typeof value === 'object') return Math.max(level, ...Object.values(value).map((v) => depth(v, level + 1)));
  return level;
}

/** The event of DESIGN §2. Only `content` is required; unknown fields are an error, not silently dropped. */
export const EventInput = z
  .object({
    id: id.optional(),
    dataset: id.default('default'),
    user_id: id.optional(),
    agent_id: id.optional(),
    session_id: id.optional(),
    type: z.enum(EVENT_TYPES).default('message'),
    role: z.enum(EVENT_ROLES).optional(),
    content: z
      .string({ error: 'content is required and must be a string' })
      .refine((s) => s.trim().length > 0, 'content must not be empty')
      .refine((s) => !s.includes('\u0000'), 'content must not contain NUL characters'),
    occurred_at: z.iso.datetime({ offset: true, error: 'an ISO-8601 timestamp with a time zone, e.g. 2026-11-29T10:00:00Z' }).optional(),
    importance: z.number().int().min(1).max(10).optional(),
    ttl: z.string().regex(ISO_DURATION, 'an ISO-8601 duration such as P30D or PT12H').optional(),
    metadata: z
      .record(z.string(), z.unknown())
      .refine((m) => depth(m) <= MAX_METADATA_DEPTH, `metadata may nest at most ${MAX_METADATA_DEPTH} levels`)
      .refine((m) => Buffer.byteLength(JSON.stringify(m)) <= MAX_METADATA_BYTES, 'metadata must be at most 64 KiB as JSON')
      .refine((m) => !JSON.stringify(m).includes('\\u0000'), 'metadata must not contain NUL characters')
      .optional(),
  })
  .strict();
export type EventInput = z.infer<typeof EventInput>;

export interface ValidatedEvent {
  index: number;
  event: EventInput;
}

export interface BatchValidation {
  valid: ValidatedEvent[];
  issues: InputIssue[];
  /** Indexes rejected only because their content is over 1 MiB (answered 413 when nothing else is wrong). */
  tooLarge: number[];
}

/** Validates each item on its own so one bad event never blocks the good ones beside it. */
export function validateEvents(items: unknown[]): BatchValidation {
  const valid: ValidatedEvent[] = [];
  const issues: InputIssue[] = [];
  const tooLarge: number[] = [];
  items.forEach((item, index) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      issues.push({ index, path: '', message: 'an event must be a JSON object' });
      return;
    }
    const content = (item as { content?: unknown }).content;
    if (typeof content === 'string' && Buffer.byteLength(content, 'utf8') > MAX_CONTENT_BYTES) {
      issues.push({ index, path: 'content', message: 'content is over 1 MiB (UTF-8)' });
      tooLarge.push(index);
      return;
    }
    const parsed = EventInput.safeParse(item);
    if (parsed.success) valid.push({ index, event: parsed.data });
    else for (const issue of parsed.error.issues) issues.push({ index, path: issue.path.join('.'), message: issue.message });
  });
  return { valid, issues, tooLarge };
}
