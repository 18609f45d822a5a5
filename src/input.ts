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
 * The times memloom stores: 0001-01-01 to 9999-12-31, UTC. PostgreSQL holds 4713 BC to 294276 AD
 * and JavaScript ±275,760 years, but only this range is written the same by both (JavaScript
 * writes year 0 as 0000 and years past 9999 as +YYYYYY, which PostgreSQL reads as out of range or
 * as a time zone; a time past JavaScript's range reads back as an Invalid Date that throws when
 * written out). Every time that reaches the database is kept inside it.
 */
export const MIN_TIME_MS = Date.parse('0001-01-01T00:00:00Z');
export const MAX_TIME_MS = Date.parse('9999-12-31T23:59:59.999Z');
const TIME_RANGE = 'the time must fall between 0001-01-01 and 9999-12-31 (UTC)';

/**
 * An ISO-8601 timestamp with a zone that PostgreSQL's timestamptz can hold: zod's format check
 * alone lets through year 0000 (PostgreSQL has no year 0), days a month does not have
 * (2026-02-30), which the database would reject, and offsets that carry the time out of the
 * stored range (0001-01-01T00:00:00+14:00 is in year 0 in UTC).
 */
export const timestamp = (error = 'an ISO-8601 timestamp with a time zone, e.g. 2026-11-29T10:00:00Z') =>
  z.iso
    .datetime({ offset: true, error })
    .refine((s) => !s.startsWith('0000'), 'the year must be 0001 or later')
    .refine((s) => realDate(s), error)
    .refine((s) => inTimeRange(Date.parse(s)), TIME_RANGE);

function inTimeRange(ms: number): boolean {
  return Number.isFinite(ms) && ms >= MIN_TIME_MS && ms <= MAX_TIME_MS;
}

/** A stored time that may lie outside the range (a row written before the boundary checked it), clamped into it, as ISO. */
export function clampTime(d: Date | number): string {
  const ms = typeof d === 'number' ? d : d.getTime();
  return new Date(Number.isNaN(ms) ? 0 : Math.min(MAX_TIME_MS, Math.max(MIN_TIME_MS, ms))).toISOString();
}

function realDate(s: string): boolean {
  const [y, m, d] = s.slice(0, 10).split('-').map(Number) as [number, number, number];
  const probe = new Date(Date.UTC(2000, m - 1, d));
  probe.setUTCFullYear(y);
  return probe.getUTCMonth() === m - 1 && probe.getUTCDate() === d && !Number.isNaN(Date.parse(s));
}

/**
 * A time from outside the boundary's checks (a model's answer, a date the heuristic extractor read
 * in user content) as an ISO string PostgreSQL's timestamptz accepts, or null: unparseable text
 * and anything outside the stored range (year 0, BC, years past 9999, which JavaScript writes as
 * ±YYYYYY and PostgreSQL does not read) are dropped rather than failing the write of everything else.
 */
export function storableTime(s: string | null | undefined): string | null {
  if (!s) return null;
  const date = new Date(s);
  return inTimeRange(date.getTime()) ? date.toISOString() : null;
}

const DURATION = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;
const DAY_MS = 86_400_000;

/** An ISO-8601 duration's length in milliseconds, by mean calendar lengths (undefined when not one). */
export function durationMs(iso: string): number | undefined {
  const m = DURATION.exec(iso);
  if (!m) return undefined;
  const [y, mo, w, d, h, mi, sec] = m.slice(1).map((x) => Number(x ?? 0)) as number[];
  return ((y ?? 0) * 365.2425 + (mo ?? 0) * 30.436875 + (w ?? 0) * 7 + (d ?? 0)) * DAY_MS + ((h ?? 0) * 3600 + (mi ?? 0) * 60 + (sec ?? 0)) * 1000;
}

/**
 * An event's TTL, or null when its expiry would fall past the stored range (a TTL of millions of
 * years, valid ISO-8601): such an event never expires in any sense that matters, and
 * `occurred_at + ttl` past 294276 AD failed every write that computed an expiry (`timestamp out
 * of range`). Measured by mean calendar lengths with a year's margin.
 */
export function storableTtl(ttl: string | null | undefined, from: number): string | null {
  if (!ttl) return null;
  const ms = durationMs(ttl);
  return ms !== undefined && from + ms <= MAX_TIME_MS - 366 * DAY_MS ? ttl : null;
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
