/**
 * Packing a context block (docs/api.md "Context block"): no I/O. Candidates come ranked, the
 * current facts first, then the evidence; each is taken in that order when it adds something and
 * fits the budget (greedy by rank), and the whole Markdown, headings included, is counted again
 * at the end so it never exceeds the budget.
 */
import { resultDate } from '../domain/result-date.js';
import { countTokens } from '../domain/tokens.js';
import type { ContextItem } from './schema.js';

export type Section = 'facts' | 'evidence';
export interface PackCandidate extends ContextItem {
  section: Section;
}

export const HEADINGS: Record<Section, string> = { facts: '## Current facts', evidence: '## Evidence' };

/** Two texts this similar (shared words over all words) say the same thing: the later one is left out. */
export const NEAR_IDENTICAL = 0.8;
/** Chunks of one event share about 32 tokens (src/domain/chunking.ts); a shorter common run is chance. */
const MIN_OVERLAP_CHARS = 12;

export interface Packed {
  markdown: string;
  tokens: number;
  items: ContextItem[];
}

export function renderLine(item: ContextItem): string {
  const text = item.text.replace(/\s+/g, ' ').trim();
  const source = item.type === 'memory' ? `memory ${item.id}` : `event ${item.event_id ?? item.id}`;
  let stale = '';
  if (!item.current) {
    const r = item.replaced_by;
    // No text: the replacement is among the current facts (not repeated), or out of this scope.
    const what = r?.text ? `“${r.text.replace(/\s+/g, ' ').trim()}”` : 'a newer statement';
    stale = ` (replaced by ${what}${r?.date ? ` on ${r.date}` : ''})`;
  }
  // Dates as every other reader prints them (src/domain/result-date.ts): said, and about when it differs.
  return `- ${resultDate({ occurred_at: item.date, event_time: item.about })}: ${text}${stale} (${source})`;
}

export function renderBlock(items: Array<ContextItem & { section: Section }>): string {
  const out: string[] = [];
  for (const section of ['facts', 'evidence'] as const) {
    const mine = items.filter((i) => i.section === section);
    if (mine.length === 0) continue;
    out.push(HEADINGS[section], ...mine.map(renderLine));
  }
  return out.join('\n');
}

const words = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/** The same statement: equal or contained once normalised, or sharing NEAR_IDENTICAL of their words. */
export function nearIdentical(a: string, b: string): boolean {
  const x = words(a);
  const y = words(b);
  // Contained as whole words: "art" is not in "party".
  if (x === y || (x.length > 0 && ` ${y} `.includes(` ${x} `))) return true;
  const sx = new Set(x.split(' '));
  const sy = new Set(y.split(' '));
  let shared = 0;
  for (const w of sx) if (sy.has(w)) shared++;
  return shared / (sx.size + sy.size - shared) >= NEAR_IDENTICAL;
}

/** Two overlapping chunks of one event as one text: joined at their longest common end/start, else with an ellipsis. */
export function mergeOverlapping(a: string, b: string): string {
  if (a.includes(b)) return a;
  if (b.includes(a)) return b;
  const join = (first: string, second: string) => {
    for (let k = Math.min(first.length, second.length) - 1; k >= MIN_OVERLAP_CHARS; k--) if (first.endsWith(second.slice(0, k))) return first + second.slice(k);
    return undefined;
  };
  return join(a, b) ?? join(b, a) ?? `${a} … ${b}`;
}

/** `text` cut at a word boundary so its line costs at most `tokens`. */
function truncated(item: PackCandidate, tokens: number): PackCandidate | undefined {
  const parts = item.text.split(/(\s+)/);
  const cut = (n: number) => ({ ...item, text: `${parts.slice(0, n).join('').trimEnd()} …` });
  // The most parts that fit: lo always fits (0: none does).
  let lo = 0;
  let hi = parts.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (countTokens(renderLine(cut(mid))) + 1 <= tokens) lo = mid;
    else hi = mid - 1;
  }
  return lo > 0 ? cut(lo) : undefined;
}

/**
 * The block for `candidates` (ranked: facts, then evidence) within `budget` tokens. Left out: a
 * chunk of an event a listed fact was extracted from, a text near-identical to a listed one; a
 * chunk of an event already listed is merged into that line. An item that does not fit is passed
 * over for the next; the first item is cut to fit rather than leaving the block empty.
 */
export function packBlock(candidates: PackCandidate[], budget: number): Packed {
  const chosen: PackCandidate[] = [];
  const cost = new Map<PackCandidate, number>();
  const factEvents = new Set<string>();
  const opened = new Set<Section>();
  let used = 0;
  const lineCost = (c: PackCandidate) => countTokens(renderLine(c)) + 1;
  const headingCost = (s: Section) => (opened.has(s) ? 0 : countTokens(HEADINGS[s]) + 1);
  for (const cand of candidates) {
    if (cand.type === 'chunk' && cand.event_id && factEvents.has(cand.event_id)) continue;
    const sameEvent = cand.type === 'chunk' ? chosen.find((c) => c.type === 'chunk' && c.event_id === cand.event_id) : undefined;
    if (sameEvent) {
      const merged = { ...sameEvent, text: mergeOverlapping(sameEvent.text, cand.text) };
      if (merged.text === sameEvent.text) continue;
      const extra = lineCost(merged) - (cost.get(sameEvent) as number);
      if (used + extra > budget) continue;
      merged.merged_ids = [...(sameEvent.merged_ids ?? [sameEvent.id]), cand.id];
      merged.current = sameEvent.current && cand.current;
      chosen[chosen.indexOf(sameEvent)] = merged;
      cost.set(merged, (cost.get(sameEvent) as number) + extra);
      used += extra;
      continue;
    }
    if (chosen.some((c) => nearIdentical(cand.text, c.text))) continue;
    const heading = headingCost(cand.section);
    let item: PackCandidate | undefined = cand;
    let c = lineCost(cand);
    if (used + heading + c > budget) {
      if (chosen.length > 0) continue;
      item = truncated(cand, budget - heading);
      if (!item) continue;
      c = lineCost(item);
    }
    chosen.push(item);
    cost.set(item, c);
    used += heading + c;
    opened.add(item.section);
    if (item.type === 'memory' && item.section === 'facts') for (const e of item.event_ids ?? []) factEvents.add(e);
  }
  // Tokens of joined lines may differ from the sum of their parts: the whole is what counts.
  for (;;) {
    const markdown = renderBlock(chosen);
    const tokens = markdown === '' ? 0 : countTokens(markdown);
    if (tokens <= budget) return { markdown, tokens, items: chosen.map(({ section: _, ...i }) => i) };
    chosen.pop();
  }
}
