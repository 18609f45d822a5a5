/**
 * Collects entity mentions across a batch and settles each entity once: one name (the tenant's
 * known name, else the most frequent surface form), one type, the union of its sources.
 * Mentions are keyed case-insensitively so "postgresql" and "PostgreSQL" are one entity.
 */
import type { ExtractedEntity } from '../types.js';
import { NOT_NAMES, PRONOUNS, STOPWORDS } from './lexicon.js';

export interface KnownEntity {
  name: string;
  type: string;
}

interface Entry {
  surfaces: Map<string, number>;
  types: Map<string, number>;
  description: string;
  sources: Set<number>;
  mentions: number;
  /** A single common noun: kept only when mentioned twice or used by a triplet. */
  weak: boolean;
  referenced: boolean;
}

/** Types that say more than "concept"/"other"; among them the earlier one wins a tie. */
const TYPE_PRIORITY = ['file', 'version', 'person', 'technology', 'tool', 'organization', 'place', 'project', 'event'];
const EDGE_PUNCT = /^[\s"'`“”‘’()[\]{}<>,;:!?*_~|—–-]+|[\s"'`“”‘’()[\]{}<>,;:!?*_~|—–.-]+$/g;
const DETERMINERS = /^(?:the|a|an|my|your|our|their|his|her|its|this|that|these|those|some|any|all|every|each|no|such|another|other|own)\s+/i;

/** Trim, collapse spaces, strip surrounding punctuation and a possessive 's. */
export function normaliseName(raw: string, opts: { code?: boolean; determiners?: boolean } = {}): string {
  let s = raw.replace(/\s+/g, ' ').trim();
  if (opts.code) return s.replace(/^[`'"(<[]+|[`'")\]>,;:!?]+$/g, '').replace(/\.$/, '');
  s = s.replace(EDGE_PUNCT, '');
  s = s.replace(/(?:'s|s')$/i, (m) => (m.toLowerCase() === "s'" ? 's' : ''));
  if (opts.determiners) {
    for (let i = 0; i < 3 && DETERMINERS.test(s); i++) s = s.replace(DETERMINERS, '');
  }
  return s.replace(EDGE_PUNCT, '').trim();
}

export function entityKey(name: string): string {
  return name.toLowerCase();
}

export class EntityRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly known = new Map<string, KnownEntity>();

  constructor(known: readonly KnownEntity[]) {
    for (const k of known) this.known.set(entityKey(k.name.trim()), k);
  }

  /** Records a mention and returns its key, or null when the name is not an entity. */
  add(name: string, type: string, source: number, opts: { description?: string; weak?: boolean } = {}): string | null {
    const clean = name.trim();
    if (!isPlausibleName(clean)) return null;
    const key = entityKey(clean);
    let e = this.entries.get(key);
    if (!e) {
      e = { surfaces: new Map(), types: new Map(), description: '', sources: new Set(), mentions: 0, weak: true, referenced: false };
      this.entries.set(key, e);
    }
    e.surfaces.set(clean, (e.surfaces.get(clean) ?? 0) + 1);
    e.types.set(type, (e.types.get(type) ?? 0) + 1);
    e.sources.add(source);
    e.mentions += 1;
    e.weak = e.weak && opts.weak === true;
    if (opts.description && !e.description) e.description = opts.description;
    return key;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** A triplet uses this entity, so it survives even with one mention. */
  reference(key: string): void {
    const e = this.entries.get(key);
    if (e) e.referenced = true;
  }

  /** Settled entities plus a key -> final name map (absent keys were dropped). */
  finalize(): { entities: ExtractedEntity[]; names: Map<string, string> } {
    const entities: ExtractedEntity[] = [];
    const names = new Map<string, string>();
    for (const [key, e] of this.entries) {
      if (e.weak && !e.referenced && e.mentions < 2) continue;
      const known = this.known.get(key);
      const name = known?.name ?? mostFrequent(e.surfaces);
      const type = known?.type ?? settleType(e.types);
      names.set(key, name);
      entities.push({ name, type, description: e.description, sources: [...e.sources].sort((a, b) => a - b) });
    }
    return { entities, names };
  }
}

function mostFrequent(surfaces: Map<string, number>): string {
  let best = '';
  let count = -1;
  for (const [s, n] of surfaces) {
    // Ties go to the form with capitals: "PostgreSQL" over "postgresql".
    if (n > count || (n === count && /\p{Lu}/u.test(s) && !/\p{Lu}/u.test(best))) {
      best = s;
      count = n;
    }
  }
  return best;
}

function settleType(types: Map<string, number>): string {
  let best: string | null = null;
  for (const t of TYPE_PRIORITY) {
    const n = types.get(t) ?? 0;
    if (n > 0 && (best === null || n > (types.get(best) ?? 0))) best = t;
  }
  if (best) return best;
  return (types.get('concept') ?? 0) >= (types.get('other') ?? 0) && types.has('concept') ? 'concept' : 'other';
}

function isPlausibleName(name: string): boolean {
  if (!name || name.length > 200 || !/[\p{L}\p{N}]/u.test(name)) return false;
  const lower = name.toLowerCase();
  if (PRONOUNS.has(lower) || STOPWORDS.has(lower) || NOT_NAMES.has(lower)) return false;
  return !/^\d+$/.test(name);
}
