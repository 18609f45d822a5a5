/**
 * Newer values among the evidence (docs/recall.md "Current truth"). The slots of memory units
 * (src/domain/slots.ts) say when a statement replaced another, but only for the sentence shapes
 * the slot reader knows; "with Helix going up to $62k a year, I'm at 105% of quota" or "Dr. Mensah
 * is covering Eastside" change a value in words it cannot read. For a question about the present,
 * the evidence itself still shows it: two statements of the same user about what the question
 * asks (both hold one of its informative words) that give different values of the same kind (a
 * weekday, a time, an amount, a name, a known category's value); the newer one is the current
 * value. So among the best ten candidates, the older statement is marked `current: false` with
 * `superseded_by` the newer one, and the newer one ranks at least where the older did. It only reorders what was found (nothing is brought in), so what the top k holds
 * changes only at its edge. Pure, no I/O.
 */
import { asksAboutPast } from '../domain/query-intent.js';
import { NEWER_REACH, SHARED_WORDS } from '../domain/scoring.js';
import { givesOtherValue, valuesByKind } from '../domain/slot-values.js';
import { CATEGORY_TERMS, categoryWords } from '../domain/slot-keys.js';
import { withSynonyms } from '../domain/synonyms.js';
import { ftsQuery } from '../domain/text.js';
import { informative } from './match.js';
import type { Candidate } from './rank.js';

/** "did", "was", "ago": the question asks about a past moment, when the older value was the answer. */
const PAST_TENSE_RE = /\b(?:did|didn't|was|wasn't|were|weren't|had|ago|last time|first time)\b/i;

/** The question asks what holds now (a present-tense question, not about an earlier value or moment). */
export function asksAboutPresent(query: string): boolean {
  return !asksAboutPast(query) && !PAST_TENSE_RE.test(query);
}

/**
 * Two statements are about the same thing when they share one of the question's informative words
 * and one more word: "Ethan has piano on Mondays" and "Ethan's piano is back on Mondays" share
 * Ethan and piano; a dentist appointment of Ethan's on Friday shares only Ethan.
 */
export function sameTopic(a: ReadonlySet<string>, b: ReadonlySet<string>, focus: ReadonlySet<string>): boolean {
  const shared = [...a].filter((t) => b.has(t));
  return shared.length >= SHARED_WORDS && shared.some((t) => focus.has(t));
}

/**
 * Marks the older of two candidates that give different values about what the query asks, and
 * lifts the newer to at least its relevance; chains (A, then B, then C) end with the newest first.
 */
export function preferNewerValues(candidates: Candidate[], query: string, terms: readonly string[], asOf?: string): void {
  if (!asksAboutPresent(query)) return;
  const then = asOf === undefined ? undefined : Date.parse(asOf);
  // A statement in other words of the question's still speaks to it ("the kids" of "the children").
  const focus = new Set(withSynonyms(informative(terms)).terms);
  if (focus.size === 0) return;
  // Stale candidates too: a newer statement goes above them (they may have gained since they were marked).
  const reach = [...candidates].sort((a, b) => b.rel - a.rel).slice(0, NEWER_REACH);
  // "What's my usual coffee?" asks for a value of a category: a statement naming one ("my order is
  // an oat latte") is about what is asked without sharing its words.
  const asksCategory = [...focus].some((t) => CATEGORY_TERMS.has(t));
  const read = reach.map((c) => {
    const stems = new Set(ftsQuery(c.result.content));
    // The question's own words are no value ("coffee" in "the coffee machine is broken").
    const valueText = asksCategory ? c.result.content.replace(/[\p{L}\p{N}'’-]+/gu, (w) => (ftsQuery(w).some((t) => focus.has(t)) ? ' ' : w)) : '';
    const asked = asksCategory ? new Set(ftsQuery(categoryWords(valueText)).filter((t) => focus.has(t))) : new Set<string>();
    return {
      c,
      at: c.signals.occurredAt.getTime(),
      stems,
      asked,
      focused: asked.size > 0 || [...stems].some((t) => focus.has(t)),
      values: valuesByKind(c.result.content),
      events: new Set(c.result.source.event_ids),
    };
  });
  // Oldest first, so a chain's newest statement is lifted above a statement already lifted.
  read.sort((a, b) => a.at - b.at);
  for (const [j, newer] of read.entries()) {
    if (!newer.focused || newer.values.size === 0 || newer.c.result.current === false) continue;
    // A recall as of a past time: what was said after it did not exist yet.
    if (then !== undefined && newer.at > then) continue;
    for (const older of read.slice(0, j)) {
      if (older.at >= newer.at || [...older.events].some((e) => newer.events.has(e))) continue;
      // Both name a value of the category asked for, and the newer holds every other word of the
      // question the older does ("mobile … offline" for the mobile app's store is not the web
      // dashboard's); or they share the question's words.
      const sameCategory =
        [...newer.asked].some((t) => older.asked.has(t)) && [...older.stems].every((t) => !focus.has(t) || CATEGORY_TERMS.has(t) || newer.stems.has(t));
      if (!sameCategory && !sameTopic(older.stems, newer.stems, focus)) continue;
      if (!givesOtherValue(older.values, newer.values)) continue;
      newer.c.rel = Math.max(newer.c.rel, older.c.rel);
      newer.c.outranks = [...(newer.c.outranks ?? []), older.c];
      // It answers what the older one did, whatever words it shares with the question.
      newer.c.replacing = true;
      // Marked, but not scored down: the newer one ranks just above it (rank.ts `outranks`), and
      // the older keeps its place among the rest.
      if (older.c.result.current !== false) {
        older.c.result.current = false;
        older.c.result.superseded_by = newer.c.result.id;
      }
    }
  }
}
