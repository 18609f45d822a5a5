/**
 * The working memory (docs/architecture.md, pipeline stage 7): a short Markdown digest of what matters now for one
 * user, built from active memories without an LLM. Sections in priority order — recent decisions,
 * open plans, key procedures (importance ≥ 7), then the most important of everything else — up
 * to `maxItems` items and never more than `maxTokens` tokens. Nothing to say gives null: an empty
 * briefing is never emitted.
 */
import { countTokens } from './tokens.js';

export interface BriefingItem {
  id: string;
  kind: string;
  content: string;
  importance: number;
  isCrystal: boolean;
  /** Event time when known, else when the supporting event happened. */
  at: Date;
  accessCount: number;
}

export interface BriefingOptions {
  /** The user id ('' for memories without a user). */
  userId: string;
  maxTokens: number;
  now: Date;
  /** Total items: the top 15–20, short enough to load into every session. */
  maxItems?: number;
  /** Items per typed section. */
  perSection?: number;
}

export interface Briefing {
  markdown: string;
  tokens: number;
  itemIds: string[];
}

export const BRIEFING_MAX_ITEMS = 20;
const PER_SECTION = 5;
const PROCEDURE_MIN_IMPORTANCE = 7;
const MAX_LINE_CHARS = 280;
const FRESHNESS_HALF_LIFE_DAYS = 30;

const byTimeDesc = (a: BriefingItem, b: BriefingItem) => b.at.getTime() - a.at.getTime() || (a.id < b.id ? -1 : 1);
const byImportance = (a: BriefingItem, b: BriefingItem) => b.importance - a.importance || b.accessCount - a.accessCount || byTimeDesc(a, b);

/** Rank of an item among "everything else": importance first, then freshness, crystals and use. */
export function briefingScore(i: BriefingItem, now: Date): number {
  const days = Math.max(0, (now.getTime() - i.at.getTime()) / 86_400_000);
  const fresh = 0.5 ** (days / FRESHNESS_HALF_LIFE_DAYS);
  return 0.5 * (i.importance / 10) + 0.3 * fresh + (i.isCrystal ? 0.1 : 0) + Math.min(0.1, Math.log1p(i.accessCount) / 50);
}

function line(i: BriefingItem, withDate: boolean): string {
  const flat = i.content.replace(/\s+/g, ' ').trim();
  const text = flat.length > MAX_LINE_CHARS ? `${flat.slice(0, MAX_LINE_CHARS - 1).trimEnd()}…` : flat;
  const notes = [withDate ? i.at.toISOString().slice(0, 10) : null, i.isCrystal ? 'confirmed by several sources' : null].filter(Boolean);
  return `- ${text}${notes.length > 0 ? ` _(${notes.join('; ')})_` : ''}`;
}

export function buildBriefing(items: readonly BriefingItem[], opts: BriefingOptions): Briefing | null {
  const maxItems = opts.maxItems ?? BRIEFING_MAX_ITEMS;
  const per = opts.perSection ?? PER_SECTION;
  const usable = items.filter((i) => i.content.trim() !== '');
  const used = new Set<string>();
  const take = (list: BriefingItem[], n: number) => {
    const out = list.filter((i) => !used.has(i.id)).slice(0, n);
    for (const i of out) used.add(i.id);
    return out;
  };
  const sections: Array<{ title: string; items: BriefingItem[]; dated: boolean }> = [
    { title: 'Recent decisions', items: take(usable.filter((i) => i.kind === 'decision').sort(byTimeDesc), per), dated: true },
    { title: 'Open plans', items: take(usable.filter((i) => i.kind === 'plan').sort(byTimeDesc), per), dated: true },
    {
      title: 'Key procedures',
      items: take(usable.filter((i) => i.kind === 'procedure' && i.importance >= PROCEDURE_MIN_IMPORTANCE).sort(byImportance), per),
      dated: false,
    },
  ];
  const rest = usable.filter((i) => !used.has(i.id)).sort((a, b) => briefingScore(b, opts.now) - briefingScore(a, opts.now) || byImportance(a, b));
  const room = Math.max(0, maxItems - sections.reduce((n, s) => n + s.items.length, 0));
  sections.push({ title: 'Also important', items: take(rest, room), dated: false });

  const who = opts.userId.replace(/\s+/g, ' ').trim();
  let markdown = `# Working memory${who ? ` — ${who}` : ''}\n`;
  let tokens = countTokens(markdown);
  const itemIds: string[] = [];
  // Lines are added in priority order while the whole text stays within the cap; a heading is
  // added together with its first line so no section is ever empty.
  fill: for (const s of sections) {
    let heading = `\n## ${s.title}\n`;
    for (const i of s.items.slice(0, Math.max(0, maxItems - itemIds.length))) {
      const next = `${markdown}${heading}${line(i, s.dated)}\n`;
      const nextTokens = countTokens(next);
      if (nextTokens > opts.maxTokens) break fill;
      markdown = next;
      tokens = nextTokens;
      heading = '';
      itemIds.push(i.id);
    }
  }
  return itemIds.length === 0 ? null : { markdown, tokens, itemIds };
}

export { briefingFileName } from './briefing-file.js';
