import { z } from 'zod';
import type { InputIssue } from '../errors.js';
import { identifier, storableProblem as storableText, timestamp } from '../input.js';
import { EVENT_ROLES, EVENT_TYPES, MAX_BATCH, MAX_CONTENT_BYTES } from './constants.js';

export { EVENT_ROLES, EVENT_TYPES, MAX_BATCH, MAX_CONTENT_BYTES };

const MAX_METADATA_DEPTH = 8;
const MAX_METADATA_BYTES = 64 * 1024;

// Text PostgreSQL can store, and identifiers without control characters (src/input.ts).
const id = identifier(200);

/** ISO-8601 duration (P30D, PT12H, P1Y2M…), stored as a PostgreSQL interval. */
// Bounded digit counts keep every accepted value inside PostgreSQL's interval range (a 500 otherwise).
const ISO_DURATION = /^P(?!$)(\d{1,7}Y)?(\d{1,7}M)?(\d{1,7}W)?(\d{1,7}D)?(T(?=\d)(\d{1,7}H)?(\d{1,7}M)?(\d{1,9}(\.\d{1,6})?S)?)?$/;

/**
 * Checks metadata without recursion (a body can nest 100,000 levels, which would overflow a
 * recursive walk or JSON.stringify): stops at the first value deeper than the limit, and only
 * then measures the size. Returns the first problem, or undefined.
 */
export function metadataProblem(m: Record<string, unknown>): string | undefined {
  const stack: Array<[unknown, number]> = [[m, 0]];
  while (stack.length > 0) {
    const [value, level] = stack.pop() as [unknown, number];
    if (typeof value === 'string') {
      const problem = storableText(value);
      if (problem) return `strings in metadata ${problem}`;
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (level >= MAX_METADATA_DEPTH) return `metadata may nest at most ${MAX_METADATA_DEPTH} levels`;
    if (Array.isArray(value)) {
      for (const v of value) stack.push([v, level + 1]);
    } else {
      for (const [k, v] of Object.entries(value)) {
        const problem = storableText(k);
        if (problem) return `keys in metadata ${problem}`;
        stack.push([v, level + 1]);
      }
    }
    if (stack.length > MAX_METADATA_BYTES) return 'metadata must be at most 64 KiB as JSON';
  }
  if (Buffer.byteLength(JSON.stringify(m)) > MAX_METADATA_BYTES) return 'metadata must be at most 64 KiB as JSON';
  return undefined;
}

/** The event of docs/architecture.md, "The write path". Only `content` is required; unknown fields are an error, not silently dropped. */
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
      .superRefine((s, ctx) => {
        const problem = storableText(s);
        if (problem) ctx.addIssue({ code: 'custom', message: `content ${problem}` });
      }),
    occurred_at: timestamp().optional(),
    importance: z.number().int().min(1).max(10).optional(),
    ttl: z.string().max(64).regex(ISO_DURATION, 'an ISO-8601 duration such as P30D or PT12H').optional(),
    metadata: z
      .record(z.string(), z.unknown())
      .superRefine((m, ctx) => {
        const problem = metadataProblem(m);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
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
    else {
      for (const issue of parsed.error.issues) {
        const at = issue.path.join('.');
        // one detail per unknown field, naming it, rather than one for the whole object
        if (issue.code === 'unrecognized_keys') for (const key of issue.keys) issues.push({ index, path: at ? `${at}.${key}` : key, message: 'unknown field' });
        else issues.push({ index, path: at, message: issue.message });
      }
    }
  });
  return { valid, issues, tooLarge };
}
