/**
 * What a slot (src/domain/slots.ts) is found by: its index keys, the words its memory's full-text
 * key gets beside the content, its readable label, and the category words of the values a text
 * names. Pure.
 */
import { ATTRIBUTE_WORDS, CATEGORY_WORDS, VALUE_CATEGORIES } from './slot-lexicon.js';
import { AMBIGUOUS_VALUES, EVERYDAY_DRINKS } from './slot-spans.js';
import { SHAPE_KINDS, type Slot } from './slots.js';
import { ftsQuery } from './text.js';

const sorted = (xs: Iterable<string>): string[] => [...new Set(xs)].sort();

/**
 * Index keys of a slot for finding candidates (a GIN array): its about-terms, its values, the
 * values it replaces (as values, so a statement naming them finds the statement that held them)
 * and its category when it is a known one.
 */
export function slotKeys(slot: Slot): string[] {
  const knownKind = slot.kind !== null && !SHAPE_KINDS.has(slot.kind) && slot.kind !== 'name' && slot.kind !== 'thing';
  return sorted([
    ...slot.about.map((t) => `a:${t}`),
    ...slot.value.map((v) => `v:${v}`),
    ...slot.replaces.map((v) => `v:${v}`),
    ...(knownKind ? [`k:${slot.kind}`] : []),
  ]);
}

/** A short readable name of the slot ("app desktop · database"), for the API and the console. */
export function slotLabel(slot: Slot): string {
  const about = slot.about.filter((t) => t !== 'pref').join(' ');
  const kind = slot.kind && slot.kind !== 'thing' && slot.kind !== 'name' ? slot.kind : '';
  return [about, kind].filter(Boolean).join(' · ') || (slot.value.join(' ') ?? '');
}

/**
 * Words a memory's full-text key gets beside its content: its value's category and the attribute
 * the slot reader inferred ("Hetzner" → cloud host hosting deploy…), so a question in the
 * attribute's words finds a statement that only names the value.
 */
export function slotKeyText(slot: Slot | null): string {
  if (slot === null) return '';
  // The categories of what it states and of what it drops ("no longer uses bash" is about a shell).
  const kinds = new Set([slot.kind, ...[...slot.value, ...slot.replaces].map((v) => VALUE_CATEGORIES.get(v))]);
  const words = [...[...kinds].map((k) => (k ? (CATEGORY_WORDS[k] ?? '') : '')), ...slot.about.map((a) => ATTRIBUTE_WORDS[a] ?? '')];
  return [...new Set(words.filter(Boolean).join(' ').split(' '))].join(' ');
}

/**
 * The category words of the known values a text names ("We picked PostgreSQL" → database db data
 * storage store): what a question about the category is answered by, when the text only names
 * the value. For the match (src/recall/match.ts), not for keys.
 */
export function categoryWords(text: string): string {
  if (text.length > 4000) return '';
  // One pass over the words (recall calls this for every candidate): up to three-word names.
  const tokens = text.match(/[\p{L}\p{N}][\p{L}\p{N}.+#!_-]*[\p{L}\p{N}+#]|[\p{L}\p{N}]/gu) ?? [];
  const lower = tokens.map((t) => t.toLowerCase());
  const kinds = new Set<string>();
  for (let i = 0; i < lower.length; i++) {
    for (let n = 3; n >= 1; n--) {
      if (i + n > lower.length) continue;
      let name = lower.slice(i, i + n).join(' ');
      if (!VALUE_CATEGORIES.has(name) && name.endsWith('s')) name = name.slice(0, -1);
      const kind = VALUE_CATEGORIES.get(name);
      if (kind === undefined) continue;
      if (AMBIGUOUS_VALUES.has(name) && !EVERYDAY_DRINKS.has(name) && !/^\p{Lu}/u.test(tokens[i] as string)) continue;
      kinds.add(kind);
      break;
    }
  }
  return [...kinds].map((k) => CATEGORY_WORDS[k] ?? '').join(' ');
}

/** Every term a category answers to (CATEGORY_WORDS, as full-text terms): does a question name a category at all? */
export const CATEGORY_TERMS: ReadonlySet<string> = new Set(ftsQuery(Object.values(CATEGORY_WORDS).join(' ')));
