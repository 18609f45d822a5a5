import { z } from 'zod';

/**
 * What text the boundary accepts. PostgreSQL cannot store NUL in `text` and rejects a lone UTF-16
 * surrogate inside `jsonb` (`\ud800`); without these checks such input reaches a query and comes
 * back as a 500 instead of a 400. Identifiers (user, agent, session, dataset, idempotency key) also
 * refuse every other control character: they name files, log fields and Bull Board rows, and no
 * client means one. Free text (content, queries) keeps tabs, newlines and escape sequences.
 */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u; // with the `u` flag only unpaired halves match
const LONE_SURROGATES = /[\uD800-\uDFFF]/gu;
// C0 controls, DEL and C1 controls.
// eslint-disable-next-line no-control-regex
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL and control characters are what this expression is for
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/;

export function storableProblem(s: string): string | undefined {
  if (s.includes('\u0000')) return 'must not contain NUL characters';
  if (LONE_SURROGATE.test(s)) return 'must not contain unpaired UTF-16 surrogates';
  return undefined;
}

export function identifierProblem(s: string): string | undefined {
  return storableProblem(s) ?? (CONTROL.test(s) ? 'must not contain control characters' : undefined);
}

/** Free text of at most `max` characters, trimmed. */
export const storableText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .superRefine((s, ctx) => {
      const problem = storableProblem(s);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });

/** A non-empty identifier of at most `max` characters, trimmed. */
export const identifier = (max = 200) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .superRefine((s, ctx) => {
      const problem = identifierProblem(s);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });

/**
 * An ISO-8601 timestamp with a zone that PostgreSQL's timestamptz can hold: zod's format check
 * alone lets through year 0000 (PostgreSQL has no year 0) and days a month does not have
 * (2026-02-30), which the database would reject.
 */
export const timestamp = (error = 'an ISO-8601 timestamp with a time zone, e.g. 2026-11-29T10:00:00Z') =>
  z.iso
    .datetime({ offset: true, error })
    .refine((s) => !s.startsWith('0000'), 'the year must be 0001 or later')
    .refine((s) => realDate(s), error);

function realDate(s: string): boolean {
  const [y, m, d] = s.slice(0, 10).split('-').map(Number) as [number, number, number];
  const probe = new Date(Date.UTC(2000, m - 1, d));
  probe.setUTCFullYear(y);
  return probe.getUTCMonth() === m - 1 && probe.getUTCDate() === d && !Number.isNaN(Date.parse(s));
}

/**
 * A time from outside the boundary's checks (a model's answer, a date the heuristic extractor read
 * in user content) as an ISO string PostgreSQL's timestamptz accepts, or null: unparseable text,
 * year 0 (PostgreSQL has none) and years past 9999 (JavaScript writes them as ±YYYYYY, which
 * PostgreSQL does not read) are dropped rather than failing the write of everything else.
 */
export function storableTime(s: string | null | undefined): string | null {
  if (!s) return null;
  const date = new Date(s);
  if (Number.isNaN(date.getTime())) return null;
  const year = date.getUTCFullYear();
  return year >= 1 && year <= 9999 ? date.toISOString() : null;
}

/**
 * Cleans text that came from outside the boundary's checks (a model's answer, a slice of user
 * content cut at a UTF-16 boundary) so PostgreSQL can store it: drops NUL and replaces each lone
 * surrogate with U+FFFD, as a UTF-8 encoder would. Valid text is returned unchanged.
 */
export function toStorable(s: string): string {
  if (!s.includes('\u0000') && !LONE_SURROGATE.test(s)) return s;
  return s.replaceAll('\u0000', '').replace(LONE_SURROGATES, '\uFFFD');
}
