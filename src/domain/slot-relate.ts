/**
 * How two slots relate (src/domain/slots.ts reads them): a restatement of the same value, a newer
 * value that replaces the older, or unrelated. Subjects agree by their shared about-terms; values
 * by their normalised forms and categories. Which statement is newer is the caller's to say, by
 * event time (workers/extract/plan.ts). Pure and deterministic.
 */
import { PERSONAL_CATEGORIES } from './slot-lexicon.js';
import { fold, SHAPE_KINDS, type Slot, type SlotRelation } from './slots.js';
import { synonymous } from './synonyms.js';
import { ftsStem } from './text.js';

/** Categories and shapes that can hold each other's values ("10" for a time, a name for a known category). */
function compatibleKinds(a: string | null, b: string | null): boolean {
  if (a === null || b === null) return false;
  if (a === b) return true;
  const timeish = new Set(['time', 'number']);
  if (timeish.has(a) && timeish.has(b)) return true;
  const amount = new Set(['money', 'number']);
  if (amount.has(a) && amount.has(b)) return true;
  const versionish = new Set(['version', 'number']);
  if (versionish.has(a) && versionish.has(b)) return true;
  // An unknown name may be a value of a known category (a hosting provider the lexicon lacks).
  const isCategory = (k: string) => !SHAPE_KINDS.has(k) && k !== 'name' && k !== 'thing';
  return (a === 'name' && isCategory(b)) || (b === 'name' && isCategory(a));
}

function overlap(a: readonly string[], b: readonly string[]): number {
  const set = new Set(a);
  return b.filter((x) => set.has(x)).length;
}

/**
 * How well two slots' subjects agree, 0..1: the shared about-terms over the smaller side's
 * (1: one side's subject is contained in the other's), 0 when a side has none.
 */
export function aboutAgreement(a: Slot, b: Slot): number {
  const x = a.about.filter((t) => t !== 'pref');
  const y = b.about.filter((t) => t !== 'pref');
  if (x.length === 0 || y.length === 0) return 0;
  // A subject in other words agrees too ("the kids" / "the children", src/domain/synonyms.ts).
  const [small, large] = x.length <= y.length ? [x, y] : [y, x];
  return small.filter((t) => large.some((u) => synonymous(t, u))).length / small.length;
}

/**
 * The share of the smaller side's subject terms the other side must hold: more than half, so
 * "the web app" (web, app) does not meet "the desktop app" (desktop, app) on "app" alone. A
 * statement that names the replaced value needs only half (ANCHORED_AGREEMENT): the value itself
 * is the stronger evidence.
 */
export const ABOUT_AGREEMENT = 0.6;
export const ANCHORED_AGREEMENT = 0.5;
/** A restatement of the same value needs less agreement on the subject: the value itself agrees. */
export const SAME_VALUE_AGREEMENT = 0.4;

/** Both name who the statement is about, and neither's names are among the other's terms: two people. */
function namesClash(a: Slot, b: Slot): boolean {
  if (a.names.length === 0 || b.names.length === 0) return false;
  const stems = (xs: readonly string[]) => xs.flatMap((n) => n.split(/\s+/)).map((w) => fold(ftsStem(w)));
  return overlap(stems(a.names), b.about) === 0 && overlap(stems(b.names), a.about) === 0;
}

/** The slot is about a named person and nothing else (its about-terms are the stems of its names). */
function onlyPerson(slot: Slot): boolean {
  const about = slot.about.filter((t) => t !== 'pref');
  if (slot.names.length === 0 || about.length === 0) return false;
  const names = new Set(slot.names.flatMap((n) => n.split(/\s+/)).map((w) => fold(ftsStem(w))));
  return about.every((t) => names.has(t));
}

/** The newer states no value the older did not: a restatement ("Postgres" after "Postgres and Redis"). */
function sameValues(older: readonly string[], newer: readonly string[]): boolean {
  if (older.length === 0 || newer.length === 0) return false;
  return overlap(older, newer) === newer.length;
}

/**
 * How a newer statement relates to an older one about, possibly, the same slot: `same` (a
 * restatement: the older is confirmed), `replaces` (the newer value, or the newer "no longer",
 * supersedes the older), or `unrelated`. Which is newer is the caller's to say, by event time.
 */
export function relate(older: Slot, newer: Slot): SlotRelation {
  const agreement = aboutAgreement(older, newer);
  const knownKind = (k: string | null) => k !== null && !SHAPE_KINDS.has(k) && k !== 'name' && k !== 'thing';
  // The newer names what it replaces, and the older holds it: "moved from Postgres to SQLite" after "we use Postgres".
  if (newer.replaces.length > 0 && !newer.planned) {
    const held = new Set([...older.value, ...older.value.flatMap((v) => v.split(/\s+/)), ...older.about]);
    const named = newer.replaces.filter((w) => held.has(w) || held.has(fold(ftsStem(w))) || w.split(/\s+/).every((x) => held.has(x))).length;
    const whole = older.value.length > 0 && older.value.every((v) => newer.replaces.includes(v));
    if (named > 0 && named >= Math.ceil(newer.replaces.length / 2)) {
      if (
        whole ||
        newer.about.length === 0 ||
        older.about.length === 0 ||
        agreement >= ANCHORED_AGREEMENT ||
        (knownKind(older.kind) && older.kind === newer.kind)
      )
        return sameValues(older.value, newer.value) && !newer.negated ? 'same' : 'replaces';
    }
  }
  if (namesClash(older, newer)) return 'unrelated';
  // One side is about a person and nothing else ("John is determined to make an impact"): sharing
  // that person is no shared attribute when neither value is of a known category or shape (a time,
  // an amount: "Standup is at 10" reads "Standup" as a name too).
  const vague = (k: string | null) => k === null || k === 'thing' || k === 'name';
  if ((onlyPerson(older) || onlyPerson(newer)) && vague(older.kind) && vague(newer.kind)) return 'unrelated';
  if (newer.planned) return sameValues(older.value, newer.value) && agreement >= ABOUT_AGREEMENT ? 'same' : 'unrelated';
  // A new value said with change language beside the old one ("…on Buttondown now, Mailchimp's pricing got silly").
  if (
    newer.change &&
    older.value.length > 0 &&
    newer.value.length > 0 &&
    older.value.every((v) => newer.mentions.includes(v)) &&
    !sameValues(older.value, newer.value) &&
    compatibleKinds(older.kind, newer.kind)
  )
    return 'replaces';
  if (older.value.length === 0 || newer.value.length === 0) return 'unrelated';
  const sameAbout = older.about.length === newer.about.length && overlap(older.about, newer.about) === older.about.length;
  if (sameAbout && sameValues(older.value, newer.value)) return newer.negated ? 'replaces' : 'same';
  const oneSideBare = older.about.length === 0 || newer.about.length === 0;
  const personal = older.kind !== null && older.kind === newer.kind && PERSONAL_CATEGORIES.has(older.kind);
  const subjectMatches =
    personal ||
    agreement >= ABOUT_AGREEMENT ||
    // A changed value of a known category sharing a subject word: "switching the orders API to Fastify" after "the orders API is an Express app".
    (knownKind(older.kind) && older.kind === newer.kind && agreement > 0 && newer.change) ||
    (oneSideBare && older.kind === newer.kind && (knownKind(older.kind) || (newer.change && !['thing', 'name', 'number'].includes(newer.kind ?? 'thing'))));
  // The same value of a known kind, said of much the same subject: a restatement.
  if (compatibleKinds(older.kind, newer.kind) && older.kind !== 'thing' && agreement >= SAME_VALUE_AGREEMENT && sameValues(older.value, newer.value))
    return newer.negated ? 'replaces' : 'same';
  if (!subjectMatches || !compatibleKinds(older.kind, newer.kind)) return 'unrelated';
  if (sameValues(older.value, newer.value)) return newer.negated ? 'replaces' : 'same';
  if (older.kind === 'thing' && newer.kind === 'thing' && !(older.single && newer.single) && !newer.change) return 'unrelated';
  return older.single || newer.single || newer.change ? 'replaces' : 'unrelated';
}

/** The newer statement names the older one's value as what it replaces ("from Postgres", "Jenkins is gone"). */
export function namesReplaced(older: Slot, newer: Slot): boolean {
  if (newer.replaces.length === 0 || older.value.length === 0) return false;
  const held = new Set([...older.value, ...older.value.flatMap((v) => v.split(/\s+/))]);
  return newer.replaces.some((w) => held.has(w) || w.split(/\s+/).every((x) => held.has(x)));
}

/**
 * A reversal: the newer statement, said with change language, gives again the value a former
 * version of a chain held ("we went back to Jenkins" after Jenkins → GitHub Actions). The value
 * anchors the subject: a value of a known category needs no shared subject word ("went back to
 * Jenkins" names no CI); any other value needs the subjects to agree as a restatement's do.
 */
export function revertsTo(former: Slot, newer: Slot): boolean {
  if (!newer.change || newer.planned || newer.negated || !sameValues(former.value, newer.value)) return false;
  if (!compatibleKinds(former.kind, newer.kind)) return false;
  const known = former.kind !== null && !SHAPE_KINDS.has(former.kind) && former.kind !== 'name' && former.kind !== 'thing';
  return known || aboutAgreement(former, newer) >= SAME_VALUE_AGREEMENT;
}
