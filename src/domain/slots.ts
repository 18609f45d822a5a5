/**
 * Slots: what a statement is about and which value it gives it, read from its words alone
 * (no model), so that a newer statement about the same thing can replace the older one.
 *
 * "For the desktop app we use Postgres as the local database" reads as about {desktop, app,
 * local, database}, value {postgres} (a database); "we moved the desktop client from Postgres to
 * SQLite" as about {desktop, app}, value {sqlite}, replaces {postgres}, a change. relate()
 * (slot-relate.ts) then says the second replaces the first; the values are read as spans
 * (slot-spans.ts), the change phrases and implied attributes by slot-grammar.ts, numbers that name
 * rather than give a value by slot-numbers.ts. Pure and deterministic; the extractor, PATCH corrections and
 * the startup backfill all read slots the same way.
 *
 * Where it stops: it reads English clauses of the usual shapes (copulas, "X uses Y", change verbs,
 * "from X to Y", "instead of", "no longer"); it knows categories of common software and everyday
 * values (slot-lexicon.ts) and folds a few synonyms. A paraphrase that shares no word and no
 * category with the older statement ("our laptop client keeps its data in a single file now") is
 * beyond it: with a model configured, reconcile asks the model (workers/extract/reconcile.ts).
 */
import type { MemoryKind } from './vocabulary.js';
import { SLOT_KINDS } from './vocabulary.js';
import { ABOUT_SYNONYMS, CHANGE_WORDS, EVALUATIVE_WORDS, GENERIC_WORDS, VALUE_CATEGORIES, VALUE_SYNONYMS } from './slot-lexicon.js';
import { lexiconSpans, nameSpans, shapeSpans, type Span } from './slot-spans.js';
import {
  attributes,
  CHANGE_RE,
  CHANGE_VERB_PAST,
  COPULA_RE,
  DEFINITE_PREDICATE_RE,
  FAVOURITE_RE,
  PATTERNS,
  PLANNED_RE,
  POSSESSIVE_RE,
  ROLE,
  stateOfMind,
  VERB_RE,
} from './slot-grammar.js';
import { COUNTERS, glued, identifiers, NUMBERED_HEADING } from './slot-numbers.js';
import { isStopword } from './stopwords.js';
import { ftsStem } from './text.js';

export interface Slot {
  /** Stems of what the statement is about and of the attribute, synonyms folded, sorted. */
  about: string[];
  /** The value the statement gives (normalised words), sorted; empty when it names none. */
  value: string[];
  /** The value's category (slot-lexicon.ts) or shape: time, date, money, duration, version, percent, number, name, thing. */
  kind: string | null;
  /** Values the statement says were replaced ("from Postgres", "instead of Vim", "no longer X"). */
  replaces: string[];
  /** Change language: "moved to", "switched", "now", "anymore", "from now on". */
  change: boolean;
  /** The statement says a value no longer holds ("no longer use X", "X is gone", "doesn't like X anymore"). */
  negated: boolean;
  /** A change still to come ("we will move to X next month"): it replaces nothing yet. */
  planned: boolean;
  /** Names in the subject ("Sam works at Acme" → sam): two statements about different people never share a slot. */
  names: string[];
  /** Every value the whole statement mentions, in any clause ("…on Buttondown now, Mailchimp's pricing got silly"). */
  mentions: string[];
  /** One value at a time: a copula ("X is Y"), a favourite, or a value of a known category, time or amount. */
  single: boolean;
}

export type SlotRelation = 'same' | 'replaces' | 'unrelated';

const PRONOUNS = new Set(['it', 'its', 'them', 'this', 'that', 'these', 'those', 'everything', 'something', 'one', 'him', 'her']);

export const SHAPE_KINDS: ReadonlySet<string> = new Set(['time', 'date', 'money', 'duration', 'version', 'percent', 'number', 'quantity', 'id']);
const SELF = new Set('i me my mine myself we us our ours ourselves user users assistant the team everything everyone all'.split(' '));
/** Content words of a stretch of text: lower case, stopwords and self references out. */
function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}.+#@'’_-]*[\p{L}\p{N}+#]|[\p{L}\p{N}]/gu) ?? [])
    .map((w) => w.replace(/['’](?:s|re|ve|ll|d|m)$/, ''))
    .flatMap((w) => (/^[\p{L}]+(?:-[\p{L}]+)+$/u.test(w) ? w.split('-') : [w]))
    .filter((w) => w.length > 0 && !isStopword(w) && !SELF.has(w));
}

/** A stem with its synonyms folded ("client" → "app"): how about-terms are compared. */
export function fold(stem: string): string {
  return ABOUT_SYNONYMS.get(stem) ?? stem;
}

const sorted = (xs: Iterable<string>): string[] => [...new Set(xs)].sort();

/**
 * Reads the slot of one statement (a memory's content). Returns null for text that is not a
 * statement about a value (empty, a question, or longer than a few sentences).
 */
export function readSlot(statement: string): Slot | null {
  const text = statement
    .replace(/[’‘]/g, "'")
    .replace(/\bstand[\s-]ups?\b/gi, 'standup')
    .replace(/\b(?:1[:-]on[:-]1|1:1|one[\s-]on[\s-]one)s?\b/gi, 'oneonone')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(NUMBERED_HEADING, '');
  if (!text || text.length > 400 || /\?\s*$/.test(text)) return null;
  const clauses = splitClauses(text)
    .map((c) => ({ c, slot: readClause(c) }))
    .filter((x) => x.slot.about.length + x.slot.value.length + x.slot.replaces.length > 0);
  // The statement's slot is that of its first clause that gives a value or names a replaced one;
  // "X is gone; we use Y now" joins a clause that only drops a value to the next one that gives one.
  // A changing clause with a value of a known kind first: "cutting back on dairy, so from now on my
  // order is an oat latte" changes the order, not the dairy.
  const changing = (x: { slot: Slot }) => x.slot.replaces.length > 0 || (x.slot.value.length > 0 && x.slot.change && !x.slot.planned);
  const main =
    clauses.find((x) => changing(x) && x.slot.kind !== 'thing') ??
    clauses.find(changing) ??
    clauses.find((x) => x.slot.value.length > 0 && x.slot.kind !== 'thing') ??
    clauses.find((x) => x.slot.value.length > 0) ??
    clauses[0];
  if (main === undefined) return readClause(text);
  const at = clauses.indexOf(main);
  const next = clauses[at + 1]?.slot;
  const mentions = sorted(clauses.flatMap((x) => x.slot.mentions));
  // "Two-space indents now, tabs are dead to me": what another clause drops, this one replaces.
  const dropped = clauses.filter((x) => x !== main && x.slot.negated && x.slot.value.length === 0).flatMap((x) => x.slot.replaces);
  const slot = { ...main.slot, mentions, replaces: sorted([...main.slot.replaces, ...(main.slot.value.length > 0 ? dropped : [])]) };
  if (slot.replaces.length > 0) slot.change = true;
  if (slot.negated && slot.value.length === 0 && next && next.value.length > 0 && next.replaces.length === 0 && !next.planned)
    return { ...slot, value: next.value, kind: next.kind, negated: false, about: sorted([...slot.about, ...next.about]), single: true };
  // A clause whose subject is a pronoun ("…, it's an Express app", "…, it runs on Nomad now") borrows the first clause's words.
  if (at > 0 && (slot.about.length === 0 || /^(?:it|they|this|that|he|she|we|everything|everyone|which)\b/i.test(main.c)))
    return { ...slot, about: sorted([...slot.about, ...(clauses[0] as { slot: Slot }).slot.about]) };
  return slot;
}

/** Splits a sentence where a new clause starts: ; : — and commas before a conjunction, a pronoun or a name. */
function splitClauses(text: string): string[] {
  return (
    text
      .split(
        /\s*(?:[;:]\s|\s[—–-]+\s|[—–]|,\s*(?=(?:and|but|so|because|since|while|although|though|which|who|whereas|plus|then|he|she|they|it|we|i|the user|that|this|there|now)\b)|\s(?=(?:because|since|whereas|although|though|so that)\s))\s*/iu,
      )
      .flatMap((c) => c.split(/,\s*(?=\p{Lu}\p{Ll}+(?:'s)?\s+\p{Ll})/u))
      // "…to pnpm, installs dropped from 4 minutes to under one": a short subject and a past-tense
      // change verb after a comma start another statement.
      .flatMap((c) => c.split(new RegExp(String.raw`,\s*(?=(?:[\p{L}-]+\s+){1,2}${CHANGE_VERB_PAST}\b)`, 'iu')))
      .map((c) => c.trim())
      .filter(Boolean)
  );
}

function readClause(text: string): Slot {
  const low = text.toLowerCase();
  let neuRange: [number, number] | undefined;
  let oldRange: [number, number] | undefined;
  let objectRange: [number, number] | undefined;
  let negated = false;
  for (const p of PATTERNS) {
    const m = p.re.exec(text);
    if (!m) continue;
    const range = (g: number): [number, number] | undefined => {
      const s = m[g];
      if (!s) return undefined;
      const at = (m.index ?? 0) + m[0].indexOf(s);
      return [at, at + s.length];
    };
    // "decommissioned last week": a phrase with no word of its own is no value.
    const said = (g: number) => g === 0 || /\d/.test(m[g] ?? '') || words(m[g] ?? '').some((w) => !CHANGE_WORDS.has(w));
    if (!said(p.neu) || !said(p.old)) continue;
    if (p.object && !objectRange) {
      const o = range(p.object);
      if (o && words(text.slice(...o)).some((w) => !CHANGE_WORDS.has(w) && !GENERIC_WORDS.has(w) && !PRONOUNS.has(w))) objectRange = o;
    }
    if (p.neu && !neuRange) neuRange = range(p.neu);
    if (p.old && !oldRange) oldRange = range(p.old);
    if (p.negated) negated = true;
    if (neuRange && oldRange) break;
  }
  // "moved from X to Y" without a change verb is a range ("works from 9 to 5"), unless both ends are values.
  // "服务42的数据库": a number glued to the letters before it names which one; it is no value.
  const shapes = shapeSpans(text).filter((x) => !glued(text, x));
  const known = lexiconSpans(text, shapes);
  const names = nameSpans(text, [...shapes, ...known]);
  // "to help improve James's game dev skills", "instead of John's usual shooters": a possessor says
  // whose it is; it is never the value nor the value replaced.
  // ("Rachel's the manager now" is a contraction: the name is the value.)
  const possessive = (s: Span) => POSSESSIVE_RE.test(text.slice(s.end));
  const spans = [...shapes, ...known, ...names.filter((s) => s.kind === 'name' && !possessive(s))].sort((a, b) => a.start - b.start);
  const inside = (r: [number, number] | undefined) => (r ? spans.filter((s) => s.start >= r[0] && s.end <= r[1]) : []);

  const change = CHANGE_RE.test(text);
  const planned = PLANNED_RE.test(low) && !/\bfrom now on\b|\bgoing forward\b/i.test(low) && !/\b(?:has|have|had)\s+\w+ed\b/i.test(low);
  let value: Span[] = [];
  let valueWords: string[] = [];
  let replacesWords: string[] = [];
  if (oldRange) {
    const olds = inside(oldRange);
    replacesWords = olds.length > 0 ? olds.flatMap((s) => s.norm) : words(text.slice(...oldRange)).filter((w) => !CHANGE_WORDS.has(w));
  }
  if (neuRange) {
    value = inside(neuRange);
    if (value.length === 0) valueWords = words(text.slice(...neuRange)).filter((w) => !CHANGE_WORDS.has(w) && !GENERIC_WORDS.has(w));
  }
  const verb = VERB_RE.exec(text);
  const predicateStart = verb ? (verb.index ?? 0) : 0;
  // What follows the value after a comma is another thought ("…Galileo, every other Monday", "…May 18,
  // the SSO integration is not ready"): read the clause up to there.
  const outsideOld = (x: Span) => !oldRange || x.end <= oldRange[0] || x.start >= oldRange[1];
  const patternEnd = Math.max(neuRange?.[1] ?? -1, oldRange?.[1] ?? -1);
  const firstValueEnd = patternEnd >= 0 ? patternEnd : spans.find((x) => x.start >= predicateStart && outsideOld(x))?.end;
  const after =
    firstValueEnd === undefined ? -1 : text.slice(firstValueEnd).search(/,\s|\s(?:and|but|so|while)\s+(?:the user|we|i|he|she|they|it|the|our|my)\b/i);
  const cut = firstValueEnd === undefined || after < 0 || (negated && !neuRange) ? -1 : firstValueEnd + after;
  if (cut > 0) return readClause(text.slice(0, cut));
  if (!neuRange) {
    // After "X is gone" / "no longer X", only a value in a later clause is a new one ("…, we use Y now").
    const candidates = spans.filter((s) => !oldRange || (negated ? s.start >= oldRange[1] : s.end <= oldRange[0] || s.start >= oldRange[1]));
    // A name right after "for", "of", "about" names what the statement is about, not its value.
    const isAboutName = (s: Span) => s.kind === 'name' && /\b(?:for|of|about|regarding)\s+(?:the\s+)?$/i.test(text.slice(Math.max(0, s.start - 16), s.start));
    const predicate = candidates.filter((s) => s.start >= predicateStart && !isAboutName(s));
    const personal = attributes(text, false).some((a) => a === 'employ' || a === 'manag' || a === 'resid');
    const pick = (xs: Span[]) => {
      // "works at Atlassian on the Jira team": for an employer, a manager or a home, names come first.
      const named = xs.filter((s) => s.kind === 'name');
      if (personal && named.length > 0) return named.slice(0, 1);
      const categorised = xs.filter((s) => !SHAPE_KINDS.has(s.kind) && s.kind !== 'name');
      if (categorised.length > 0) return categorised;
      // Otherwise the value nearest the verb: "goes out via Mailchimp on the first Monday" gives Mailchimp.
      const first = xs.find((s) => s.kind !== 'number') ?? xs[0];
      if (!first) return [];
      // "Node 18": a name with a number right after it is versioned; the number is the value.
      const next = xs[xs.indexOf(first) + 1];
      if (first.kind === 'name' && next && (next.kind === 'number' || next.kind === 'version') && next.start - first.end <= 1) return [next];
      return xs.filter((s) => s.kind === first.kind);
    };
    value = pick(predicate);
    // "Lena is a backend engineer": an indefinite role after the copula says what the person is;
    // the role is the value and the person what it is about. ("Rachel is the manager" says who the
    // manager is: the person is the value, read below.)
    const classified = value.length === 0 && !negated ? new RegExp(String.raw`\b(?:is|am|was)\s+(?:now\s+)?(?:a|an)\s+${ROLE}`, 'iu').exec(text) : null;
    if (classified) valueWords = words(classified[1] as string).filter((w) => !CHANGE_WORDS.has(w) && !GENERIC_WORDS.has(w));
    // "Postgres is what the desktop app uses": the value before a copula.
    // "Rachel is the manager now", "Postgres is what the desktop app uses": the value before a copula.
    // Only a definite predicate makes the word before the copula its value: "Rachel is the manager
    // now", "Postgres is what the app uses"; in "John is a big video game fan" or "Max is great"
    // the name is who the statement is about.
    if (value.length === 0 && valueWords.length === 0 && COPULA_RE.test(text) && !negated && DEFINITE_PREDICATE_RE.test(text.slice(predicateStart))) {
      const initials = names.filter((s) => s.kind === 'initial' && s.start < predicateStart).map((s) => ({ ...s, kind: 'name' }));
      value = pick([...candidates, ...initials].filter((s) => s.start < predicateStart));
    }
    if (value.length === 0 && !negated) {
      // "my favourite food is sushi": the words after a copula are the value.
      const m =
        /\b(?:is|are|was|were)\s+(?:now\s+|still\s+|actually\s+)?((?:a|an|the)\s+)?([^,.;!?]{1,40}?)(?=$|[,.;!?]|\s(?:for|because|and|but|since|now|anymore|these|nowadays)\b)/i.exec(
          text.slice(predicateStart),
        );
      if (m && !m[1] && !/^\w+ing\b/i.test(m[2] as string) && !stateOfMind(m[2] as string) && COPULA_RE.test(text.slice(0, predicateStart + 4)))
        valueWords = words(m[2] as string).filter((w) => !CHANGE_WORDS.has(w) && !GENERIC_WORDS.has(w) && !EVALUATIVE_WORDS.has(w));
    }
    if (value.length === 0 && valueWords.length === 0 && !negated) {
      // "likes dark mode": the object of a preference verb is the value.
      const m =
        /\b(?:like|likes|love|loves|prefer|prefers|enjoy|enjoys|fan of|into|drink|drinks|eat|eats|use|uses)\s+([^,.;!?]{1,40}?)(?=$|[,.;!?]|\s(?:over|for|because|and|but|in|on|at|when|with|now|anymore)\b)/i.exec(
          text,
        );
      if (m) valueWords = words(m[1] as string).filter((w) => !CHANGE_WORDS.has(w) && !EVALUATIVE_WORDS.has(w));
    }
  }
  if (negated && (value.length > 0 || valueWords.length > 0)) negated = false;
  // A versioned name ("Node 22"): the name is what it is about, the number its value.
  let versionSubject: string[] = [];
  const version = value.find((s) => s.kind === 'version' || s.kind === 'number');
  if (version) {
    const before = /([\p{L}][\p{L}.+#-]*)\s*$/u.exec(text.slice(0, version.start));
    const subject = before?.[1]?.toLowerCase();
    const known = spans.some((s) => s.kind !== 'name' && !SHAPE_KINDS.has(s.kind) && s.end <= version.start && s.end >= version.start - 2);
    // "iPhone 13" is one value of a known category; "Node 22" is a version of Node. A version is
    // written in digits right after its name: "needs one approval" and "session 3" are no versions.
    const digits = /^\s*[\d.]+\s*$/.test(text.slice(version.start, version.end));
    // A word of a script written without spaces ("把服务42") is the run of the whole phrase, no name.
    if (
      subject &&
      digits &&
      !/\p{Script=Han}|\p{Script=Hiragana}|\p{Script=Katakana}|\p{Script=Hangul}/u.test(subject) &&
      !COUNTERS.has(subject) &&
      !known &&
      !isStopword(subject) &&
      !CHANGE_WORDS.has(subject) &&
      !SELF.has(subject)
    ) {
      versionSubject = [VALUE_SYNONYMS.get(subject) ?? subject];
      value = [{ ...version, kind: 'version' }];
    }
  }
  // Several shapes in one predicate ("$1,800 a month"): the first one's kind is the value.
  const firstKind = value[0]?.kind;
  if (firstKind !== undefined && SHAPE_KINDS.has(firstKind)) value = value.filter((s) => s.kind === firstKind || !SHAPE_KINDS.has(s.kind));
  // Times and amounts that are not the value are adjuncts ("on Monday", "last week"), never the subject.
  const adjuncts = shapes.map((s): [number, number] => [s.start, s.end]);
  const usedRanges = [...value.map((s): [number, number] => [s.start, s.end]), ...adjuncts, ...(oldRange ? [oldRange] : []), ...(neuRange ? [neuRange] : [])];
  const valueSet = new Set([...value.flatMap((s) => s.norm), ...valueWords]);
  const replaces = new Set(replacesWords);
  // What it is about: every other content word (names before the verb included), stemmed and folded.
  let rest = '';
  let at = 0;
  for (const [s, e] of [...usedRanges].sort((a, b) => a[0] - b[0])) {
    if (s < at) {
      at = Math.max(at, e);
      continue;
    }
    rest += `${text.slice(at, s)} `;
    at = e;
  }
  rest += text.slice(at);
  // "the funder extended the deadline to October 14": the deadline is the subject, the funder an agent.
  if (objectRange) rest = text.slice(...objectRange);
  const categorised = value.some((s) => !SHAPE_KINDS.has(s.kind) && s.kind !== 'name');
  const about = new Set<string>([...versionSubject, ...attributes(text, categorised)]);
  // "moved to room Kepler": the words around the new value name the slot too.
  // (For a known category's value the words around it describe the value: "black coffee".)
  if (neuRange && value.length > 0 && value.every((v) => v.kind === 'name' || SHAPE_KINDS.has(v.kind))) {
    let leftover = text.slice(...neuRange);
    for (const v of [...value].sort((a, b) => b.start - a.start))
      leftover = `${leftover.slice(0, Math.max(0, v.start - neuRange[0]))} ${leftover.slice(Math.max(0, v.end - neuRange[0]))}`;
    for (const w of words(leftover)) if (!CHANGE_WORDS.has(w) && !GENERIC_WORDS.has(w) && !/^\d/.test(w)) about.add(fold(ftsStem(w)));
  }
  for (const w of words(rest)) {
    if (CHANGE_WORDS.has(w) || GENERIC_WORDS.has(w) || valueSet.has(w) || replaces.has(w) || /^\d/.test(w)) continue;
    about.add(fold(ftsStem(w)));
  }
  identifiers(text, value, about, (w) => fold(ftsStem(w)));
  const valueStarts = new Set(value.map((s) => s.start));
  const subjectNames = names.filter(
    (s) => s.start < predicateStart && !valueStarts.has(s.start) && (!oldRange || s.end <= oldRange[0] || s.start >= oldRange[1]),
  );
  const first = value[0];
  const kind = first ? first.kind : valueWords.length > 0 ? (VALUE_CATEGORIES.get(valueWords.join(' ')) ?? 'thing') : null;
  const single =
    (COPULA_RE.test(text) && about.size > 0) ||
    FAVOURITE_RE.test(text) ||
    (kind !== null && kind !== 'thing' && kind !== 'name') ||
    about.has('employ') ||
    about.has('resid') ||
    about.has('manag') ||
    about.has('role');
  return {
    about: sorted(about),
    value: sorted(valueSet),
    kind,
    replaces: sorted(replaces),
    change: change || replaces.size > 0 || neuRange !== undefined,
    negated,
    planned,
    names: sorted(subjectNames.flatMap((s) => s.norm)),
    mentions: sorted(spans.filter((s) => s.kind !== 'number').flatMap((s) => s.norm)),
    single,
  };
}

/**
 * The slot of a memory unit: read from its content for the kinds that state values (SLOT_KINDS);
 * a model's label ("desktop app / local database") replaces the about-terms read from the words,
 * since it names the subject the way the model understood it.
 */
export function slotOf(kind: MemoryKind, content: string, label?: string | null, self: readonly string[] = []): Slot | null {
  if (!SLOT_KINDS.has(kind) && kind !== 'episode') return null;
  const slot = notSpeakers(readSlot(content), self);
  // An episode states a value only when it changes one ("went vegan", "started at Canva", "upgraded to v3").
  if (kind === 'episode' && (slot === null || !changesState(slot))) return null;
  if (slot === null || !label?.trim()) return slot;
  const about = new Set(words(label).map((w) => fold(ftsStem(w))));
  for (const t of slot.about) if (t === 'employ' || t === 'resid' || t === 'pref') about.add(t);
  return { ...slot, about: sorted(about) };
}

/**
 * Who said a statement is never its value nor a replaced one: the extractor writes "I" as the
 * speaker's name ("Andrew" in LoCoMo), and "…brings Andrew joy" or "…during Andrew's hike" named
 * no value of Andrew's. `self` are the speakers of the statement's events; they stay in what it
 * is about (two speakers' statements are two people's). A slot left without a value keeps no
 * kind of a name.
 */
function notSpeakers(slot: Slot | null, self: readonly string[]): Slot | null {
  if (slot === null || self.length === 0) return slot;
  const names = new Set(self.flatMap((n) => [n.trim().toLowerCase(), ...n.trim().toLowerCase().split(/\s+/)]).filter((n) => n.length > 1));
  const keep = (xs: string[]) => xs.filter((v) => !names.has(v));
  const value = keep(slot.value);
  if (value.length === slot.value.length && keep(slot.replaces).length === slot.replaces.length) return slot;
  return { ...slot, value, replaces: keep(slot.replaces), mentions: keep(slot.mentions), kind: value.length === 0 && slot.kind === 'name' ? null : slot.kind };
}

/** A statement that sets a value: it names what it replaces, says it changed to a value, or gives an employer, manager or home. */
export function changesState(slot: Slot): boolean {
  if (slot.planned) return false;
  if (slot.replaces.length > 0) return true;
  if (slot.value.length === 0) return false;
  return (slot.change && slot.kind !== 'thing') || slot.about.some((a) => a === 'employ' || a === 'resid' || a === 'manag');
}
