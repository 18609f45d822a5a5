/**
 * The values a statement names, by kind (a weekday, a time, an amount, a name, a known category's
 * value), and how two statements' values compare: whether a newer one gives another value of a
 * kind the older gives (src/recall/newer.ts), and whether a statement names anything another does
 * not hold (workers/extract/plan.ts: a restatement confirms only when it says nothing more). Pure.
 */
import { lexiconSpans, nameSpans, shapeSpans } from './slot-spans.js';

/** Kinds of value whose difference says "another value": not bare numbers or identifiers, which any two turns differ in. */
const COMPARED = (kind: string) => kind !== 'number' && kind !== 'id' && kind !== 'initial';

/** The values a text names, by kind, as normalised forms. */
export function valuesByKind(text: string): Map<string, Set<string>> {
  const shapes = shapeSpans(text);
  const known = lexiconSpans(text, shapes);
  const names = nameSpans(text, [...shapes, ...known]);
  const out = new Map<string, Set<string>>();
  for (const s of [...shapes, ...known, ...names]) {
    if (!COMPARED(s.kind)) continue;
    const set = out.get(s.kind) ?? new Set<string>();
    for (const n of s.norm) set.add(n);
    out.set(s.kind, set);
  }
  return out;
}

/**
 * Two forms of one value: equal, or one's words all within the other's ("Sam" and "Sam Okafor",
 * "Postgres" and "Postgres 16"): a name given in full later is the same person.
 */
function sameValue(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  const words = new Set(long.split(/\s+/));
  return short.split(/\s+/).every((w) => words.has(w));
}

/** The newer text gives a value of a kind the older one also gives, that the older one does not hold. */
export function givesOtherValue(older: Map<string, Set<string>>, newer: Map<string, Set<string>>): boolean {
  for (const [kind, values] of newer) {
    const before = older.get(kind);
    if (before && [...values].some((v) => ![...before].some((u) => sameValue(u, v)))) return true;
  }
  return false;
}

/**
 * The text names a value `other` does not hold, of any kind: "Lindqvist called out sick, Dr.
 * Mensah is covering Eastside" names Mensah, which "Dr. Lindqvist is on duty at Eastside" does
 * not, so it is no restatement of it, whatever slot the reader gave both.
 */
export function addsValue(text: Map<string, Set<string>>, other: Map<string, Set<string>>): boolean {
  const held = [...other.values()].flatMap((v) => [...v]);
  return [...text.values()].some((values) => [...values].some((v) => !held.some((u) => sameValue(u, v))));
}
