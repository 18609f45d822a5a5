import { z } from 'zod';
import { MEMORY_STATUSES } from '../db/sql/memories-read.js';
import { InputError } from '../errors.js';
import { identifier, storableText, timestamp } from '../input.js';
import { MEMORY_KINDS } from '../domain/vocabulary.js';

/** Memory ids are uuids; anything else can name no memory (404, not a database cast error). */
export const MemoryId = z.uuid();

/** PATCH /v1/memories/:id — a correction: the new content, optionally a new kind or importance. */
export const CorrectInput = z
  .object({
    content: storableText(20_000).pipe(z.string().min(1, 'content must not be empty')),
    kind: z.enum(MEMORY_KINDS).optional(),
    importance: z.number().int().min(1).max(10).optional(),
  })
  .strict();
export type CorrectInput = z.infer<typeof CorrectInput>;

/** POST /v1/feedback — on one recall (its recall_id), score 1–5, optional text. */
export const FeedbackInput = z
  .object({
    recall_id: z.uuid({ error: 'the recall_id of a POST /v1/recall answer' }),
    score: z.number().int().min(1).max(5),
    text: storableText(10_000).pipe(z.string().min(1)).optional(),
  })
  .strict();
export type FeedbackInput = z.infer<typeof FeedbackInput>;

const id = identifier(200);

/** GET /v1/memories — filters and paging (query string: every value arrives as a string). */
export const ListMemoriesQuery = z
  .object({
    user_id: id.optional(),
    agent_id: id.optional(),
    session_id: id.optional(),
    dataset: id.optional(),
    /** One kind or a comma-separated list. */
    kind: z
      .string()
      .transform((s) =>
        s
          .split(',')
          .map((k) => k.trim())
          .filter((k) => k !== ''),
      )
      .pipe(z.array(z.enum(MEMORY_KINDS, { error: `one of ${MEMORY_KINDS.join(', ')}` })).min(1))
      .optional()
      .describe(`one kind or a comma-separated list of: ${MEMORY_KINDS.join(', ')}`),
    status: z.enum([...MEMORY_STATUSES, 'all']).default('active'),
    conflicts: z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true')
      .describe('only memories in a `challenges` relation'),
    q: storableText(1000).pipe(z.string().min(1)).optional().describe('text the memories contain'),
    since: timestamp().optional().describe('said at or after this time (occurred_at)'),
    until: timestamp().optional().describe('said before this time (occurred_at)'),
    limit: z.coerce.number().int().min(1).max(500).default(50),
    cursor: z.string().min(1).max(200).optional().describe('the next_cursor of the previous page'),
  })
  .strict();

/** Path parameter of /v1/memories/:id and /v1/graph/entities/:id. */
export const IdParams = z.object({ id: z.string().describe('a UUID') });
/** GET /v1/memories/:id also takes the working memory's short id. */
export const MemoryRefParams = z.object({ id: z.string().describe("a UUID, or m: and its first 8 hex digits (the working memory's short id)") });

/** GET /v1/working-memory — the user's digest (no user_id: memories recorded without a user). */
/** budget_tokens: at most this many tokens (whole lines dropped, lowest priority first); default the stored digest (BRIEFING_MAX_TOKENS). */
export const WorkingMemoryQuery = z.object({ user_id: id.optional(), budget_tokens: z.coerce.number().int().min(1).max(100_000).optional() }).strict();

/** Parses with `schema` or throws the HTTP 400 with one detail per problem. */
export function parseInput<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success)
    throw new InputError(
      `Invalid ${what}.`,
      parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    );
  return parsed.data;
}

/** POST /v1/memories/:id/supersede — the memory that wins the conflict. */
export const SupersedeInput = z.object({ by: MemoryId.describe('the id of the memory to keep') }).strict();
