/**
 * The working memory (docs/architecture.md, pipeline stage 7): a short Markdown digest of what
 * matters now for one user, built from current memories without an LLM. Sections, in reading order:
 * who the user is, preferences, current decisions (with what they replaced), people, open plans and
 * deadlines, recent changes, key procedures, then the most important of everything else.
 *
 * Every line ends with its date and a short memory id, `_(2026-11-05 · m:abcd1234)_`: the date is
 * the time the memory is about (its event time when it has one, a deadline's due date, otherwise
 * when it was said); `m:abcd1234` is the first 8 hex digits of the memory id, which
 * GET /v1/memories/:id accepts. Under a token budget whole lines are dropped, lowest priority first
 * (section weight, then importance and recency: briefingPriority); nothing to say gives null.
 */
import { displayText, isAboutPerson, isAboutUserIdentity, isUserPreference } from './briefing-text.js';
import { countTokens } from './tokens.js';

export interface BriefingItem {
  id: string;
  kind: string;
  content: string;
  importance: number;
  isCrystal: boolean;
  /** When the memory says it happens or happened (a deadline's date), if it says. */
  eventTime: Date | null;
  /** When the supporting event happened (when it was said). */
  occurredAt: Date;
  accessCount: number;
  /** The version this memory superseded, if any: its text and when it stopped holding. */
  replaced?: { id: string; content: string; at: Date } | null;
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

export type SectionName = 'profile' | 'preferences' | 'decisions' | 'people' | 'plans' | 'changes' | 'procedures' | 'rest';

interface Section {
  name: SectionName;
  title: string;
  /** Added to an item's score when lines compete for the budget. */
  weight: number;
}

/** Reading order; weights decide which lines a small budget keeps. */
const SECTIONS: readonly Section[] = [
  { name: 'profile', title: 'Who the user is', weight: 0.5 },
  { name: 'preferences', title: 'Preferences', weight: 0.4 },
  { name: 'decisions', title: 'Current decisions', weight: 0.5 },
  { name: 'people', title: 'People', weight: 0.3 },
  { name: 'plans', title: 'Open plans and deadlines', weight: 0.45 },
  { name: 'changes', title: 'Recent changes', weight: 0.3 },
  { name: 'procedures', title: 'Key procedures', weight: 0.2 },
  { name: 'rest', title: 'Also important', weight: 0 },
];

export const BRIEFING_MAX_ITEMS = 20;
const PER_SECTION = 5;
const PROCEDURE_MIN_IMPORTANCE = 7;
const MAX_LINE_CHARS = 280;
const MAX_REPLACED_CHARS = 80;
const FRESHNESS_HALF_LIFE_DAYS = 30;
/** A supersession this recent is a "recent change". */
export const RECENT_CHANGE_DAYS = 14;
const DAY_MS = 86_400_000;
const MAX_MISSES = 5;

/** The time a memory is about: its event time when it has one, otherwise when it was said. */
export const aboutTime = (i: BriefingItem): Date => i.eventTime ?? i.occurredAt;
const day = (d: Date) => d.toISOString().slice(0, 10);
export const shortMemoryId = (id: string): string => `m:${id.replace(/-/g, '').slice(0, 8)}`;

const byTimeDesc = (a: BriefingItem, b: BriefingItem) => aboutTime(b).getTime() - aboutTime(a).getTime() || (a.id < b.id ? -1 : 1);
const byImportance = (a: BriefingItem, b: BriefingItem) => b.importance - a.importance || b.accessCount - a.accessCount || byTimeDesc(a, b);
/** Deadlines soonest first, then plans without a date, newest first. */
const byDue = (a: BriefingItem, b: BriefingItem) =>
  (a.eventTime && b.eventTime ? a.eventTime.getTime() - b.eventTime.getTime() : a.eventTime ? -1 : b.eventTime ? 1 : 0) || byTimeDesc(a, b);

/** Rank of an item: importance first, then freshness, crystals and use. */
export function briefingScore(i: BriefingItem, now: Date): number {
  const days = Math.max(0, (now.getTime() - aboutTime(i).getTime()) / DAY_MS);
  const fresh = 0.5 ** (days / FRESHNESS_HALF_LIFE_DAYS);
  return 0.5 * (i.importance / 10) + 0.3 * fresh + (i.isCrystal ? 0.1 : 0) + Math.min(0.1, Math.log1p(i.accessCount) / 50);
}

/** Which line a budget keeps first: the section's weight plus the item's score. */
export function briefingPriority(section: SectionName, i: BriefingItem, now: Date): number {
  const weight = SECTIONS.find((s) => s.name === section)?.weight ?? 0;
  // A deadline's event time lies ahead: it counts as fresh, not as old.
  return weight + briefingScore(section === 'plans' && i.eventTime && i.eventTime > now ? { ...i, eventTime: now } : i, now);
}

const isFuture = (d: Date | null, now: Date) => d !== null && d.getTime() >= now.getTime() - DAY_MS;
const recentlyReplaced = (i: BriefingItem, now: Date) => !!i.replaced && now.getTime() - i.replaced.at.getTime() <= RECENT_CHANGE_DAYS * DAY_MS;

/** The section of one item, or null when it has no place (a plan past its date is not open). */
export function sectionOf(i: BriefingItem, now: Date): SectionName | null {
  if (i.kind === 'decision') return 'decisions';
  if (i.kind === 'plan') return i.eventTime === null || isFuture(i.eventTime, now) ? 'plans' : null;
  if (i.eventTime && i.eventTime > now && i.kind !== 'episode') return 'plans';
  if (i.kind === 'profile' || isAboutUserIdentity(i.content)) return 'profile';
  if (i.kind === 'preference' || isUserPreference(i.content)) return 'preferences';
  if (isAboutPerson(i.content)) return 'people';
  if (recentlyReplaced(i, now)) return 'changes';
  if (i.kind === 'procedure' && i.importance >= PROCEDURE_MIN_IMPORTANCE) return 'procedures';
  return 'rest';
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1).trimEnd()}…` : s);

export function briefingLine(i: BriefingItem, section: SectionName): string {
  const text = clip(displayText(i.content), MAX_LINE_CHARS);
  const notes: string[] = [];
  if (i.replaced) notes.push(`replaced "${clip(displayText(i.replaced.content), MAX_REPLACED_CHARS)}", since ${day(i.replaced.at)}`);
  else if (section === 'plans' && i.eventTime) notes.push(`due ${day(i.eventTime)}`);
  else notes.push(day(aboutTime(i)));
  if (i.isCrystal) notes.push('confirmed by several sources');
  notes.push(shortMemoryId(i.id));
  return `- ${text} _(${notes.join(' · ')})_`;
}

const ORDER: Record<SectionName, (a: BriefingItem, b: BriefingItem) => number> = {
  profile: byImportance,
  preferences: byImportance,
  decisions: byTimeDesc,
  people: byImportance,
  plans: byDue,
  changes: (a, b) => (b.replaced?.at.getTime() ?? 0) - (a.replaced?.at.getTime() ?? 0) || byTimeDesc(a, b),
  procedures: byImportance,
  rest: byImportance,
};

function render(userId: string, chosen: ReadonlyMap<SectionName, BriefingItem[]>): string {
  const who = userId.replace(/\s+/g, ' ').trim();
  let md = `# Working memory${who ? ` — ${who}` : ''}\n`;
  for (const s of SECTIONS) {
    const items = chosen.get(s.name);
    if (!items || items.length === 0) continue;
    md += `\n## ${s.title}\n${[...items]
      .sort(ORDER[s.name])
      .map((i) => `${briefingLine(i, s.name)}\n`)
      .join('')}`;
  }
  return md;
}

export function buildBriefing(items: readonly BriefingItem[], opts: BriefingOptions): Briefing | null {
  const maxItems = opts.maxItems ?? BRIEFING_MAX_ITEMS;
  const per = opts.perSection ?? PER_SECTION;
  const { now } = opts;
  // Each item in one section, at most `per` per typed section (the best by priority), the rest by score.
  const bySection = new Map<SectionName, BriefingItem[]>();
  for (const i of items) {
    if (i.content.trim() === '') continue;
    const s = sectionOf(i, now);
    if (s) bySection.set(s, [...(bySection.get(s) ?? []), i]);
  }
  const ranked: Array<{ section: SectionName; item: BriefingItem; priority: number }> = [];
  for (const [section, list] of bySection) {
    const scored = list.map((item) => ({ section, item, priority: briefingPriority(section, item, now) })).sort((a, b) => b.priority - a.priority);
    ranked.push(...(section === 'rest' ? scored : scored.slice(0, per)));
  }
  ranked.sort((a, b) => b.priority - a.priority || (a.item.id < b.item.id ? -1 : 1));
  // Lines join in priority order while the whole text stays within the cap; they are shown in section order.
  const chosen = new Map<SectionName, BriefingItem[]>();
  const itemIds: string[] = [];
  let markdown = '';
  let tokens = 0;
  let misses = 0;
  for (const r of ranked) {
    // A few lines in a row that do not fit: the budget is spent (the rest would only be tried in vain).
    if (itemIds.length >= maxItems || misses >= MAX_MISSES) break;
    const list = chosen.get(r.section) ?? [];
    chosen.set(r.section, [...list, r.item]);
    const next = render(opts.userId, chosen);
    const nextTokens = countTokens(next);
    if (nextTokens > opts.maxTokens) {
      chosen.set(r.section, list);
      misses++;
      continue;
    }
    misses = 0;
    markdown = next;
    tokens = nextTokens;
    itemIds.push(r.item.id);
  }
  return itemIds.length === 0 ? null : { markdown, tokens, itemIds };
}

export { briefingFileName } from './briefing-file.js';
