/**
 * Numbers in a statement that are no value of it: a numbered heading ("Note 41:"), a number that
 * says which one ("service 41", "table 4", "服务42"), and counters ("session 3", "page 12").
 * Read by slots.ts. Pure.
 */
import type { Span } from './slot-spans.js';

/** Words a number counts or places rather than versions ("session 3", "page 12", "room 4"). */
export const COUNTERS = new Set(
  'session turn step page chapter line item room floor week day month year grade part phase round episode season number no section table figure option point lane gate seat row'.split(
    ' ',
  ),
);
/** Counters of time or sequence: "in session 3 we chose Postgres" is about the database, not about session 3. */
const SEQUENCE_COUNTERS = new Set('session turn step week day month year grade part phase round episode season'.split(' '));
/** A script written without spaces: a number glued to its letters is part of a name ("服务42", service 42). */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
/** What may follow a number in such a script and make it a count or a date ("42个", "3月", "5号"). */
const MEASURE = /^[个個条條次年月日号號天岁歲元块塊人名位件只台本页頁章节節分秒点點周週倍%]/u;

/** A number glued to the letters before it in a script written without spaces ("服务42的"): part of a name, no value ("42个" is a count). */
export const glued = (text: string, span: Span): boolean => UNSPACED.test(text[span.start - 1] ?? '') && !MEASURE.test(text.slice(span.end));

/**
 * A numbered heading before a statement ("Note 41:", "Step 3 -", "#12:", "Q3:", "第42条："): it
 * numbers the statement, it is no value of it; read as one, every numbered note of a user would be
 * a version of "note" and supersede the one before.
 */
export const NUMBERED_HEADING = /^(?:[\p{L}]*\s?#?\d+[a-z]?\s*(?:[:)](?=\s)|：|\s[—–-]\s)|第[\d一二三四五六七八九十百千]+\p{Script=Han}?\s*[:：、.])\s*/u;

/**
 * "Keep service 41 on Redis", "table 4 is booked": a number right after a word of the subject that
 * is not the value says which one, so the term becomes "servic#41" and service 42's statements
 * neither confirm nor replace it. Counters of time or sequence ("in session 3") stay out of it.
 */
export function identifiers(text: string, value: readonly Span[], about: Set<string>, term: (word: string) => string): void {
  for (const m of text.matchAll(/([\p{L}][\p{L}-]*)\s?#?(\d+)(?![\d.:,/\p{L}])/gu)) {
    const at = (m.index ?? 0) + (m[0].length - (m[2] as string).length);
    if (value.some((v) => at >= v.start && at < v.end)) continue;
    const word = (m[1] as string).toLowerCase();
    const t = term(word);
    if (SEQUENCE_COUNTERS.has(word) || !about.has(t)) continue;
    about.delete(t);
    about.add(`${t}#${m[2]}`);
  }
}
