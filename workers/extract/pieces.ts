import { createHash } from 'node:crypto';
import { normalizeEntityName, type Prepared } from './prepare.js';
import type { ModelDecision } from './reconcile.js';

/**
 * What one write transaction of an extraction pass holds at most. A pass of 25 short turns writes
 * a few dozen rows; a 1 MiB event gave thousands of units, entities and triplets, whose one
 * transaction held the embedded database for seconds and whose statements went over their limits
 * (`vectorList: 12000 vectors in one statement`, issue 35). An entity that no name matches is
 * compared with every entity of its type (resolveEntities, an exact scan): 64 of them took 270 ms
 * on average at 7,000 entities and 32 up to 254 ms at 6,000 (scripts/bench-large-event.ts), so 16;
 * a piece of 16 units takes about the time of an ordinary pass.
 */
export const PIECE_LIMITS = { memories: 16, entities: 16, triplets: 32 } as const;

export interface ExtractPiece {
  prepared: Prepared;
  vectors: { entities: number[][]; memories: number[][] };
  /** The model's decisions for this piece's units (same order), when it was asked. */
  decisions: Array<ModelDecision | undefined> | undefined;
  /** A digest of what the piece writes, with the events behind each row (the run's piece_key). */
  key: string;
}

interface Item {
  memory?: number;
  triplet?: number;
  /** Indexes into prepared.entities that the item names (or is). */
  entities: number[];
}

/**
 * Cuts a prepared pass into pieces within `limits`, in order: memory units keep their order (each
 * is decided against what the pieces before it committed, as the units of one piece are against
 * the earlier ones of the piece), then triplets, then entities nothing names. A piece carries every
 * entity its rows name, so a name resolves to the same entity in any piece. A pass within the
 * limits is one piece, the pass itself. No I/O.
 */
export function splitPass(
  p: Prepared,
  vectors: ExtractPiece['vectors'],
  decisions: ReadonlyArray<ModelDecision | undefined> | undefined,
  limits: { memories: number; entities: number; triplets: number } = PIECE_LIMITS,
): ExtractPiece[] {
  const whole = (): ExtractPiece[] => [{ prepared: p, vectors, decisions: decisions ? [...decisions] : undefined, key: pieceKey(p) }];
  if (p.memories.length <= limits.memories && p.triplets.length <= limits.triplets && p.entities.length <= limits.entities) return whole();

  const byName = new Map<string, number[]>();
  p.entities.forEach((e, i) => byName.set(e.normalized, [...(byName.get(e.normalized) ?? []), i]));
  const named = (names: Array<string | null>) => [...new Set(names.flatMap((n) => (n ? (byName.get(normalizeEntityName(n)) ?? []) : [])))];
  const items: Item[] = [
    ...p.memories.map((m, memory) => ({ memory, entities: named([m.subject, ...m.entities]) })),
    ...p.triplets.map((t, triplet) => ({ triplet, entities: named([t.source, t.target]) })),
  ];
  const used = new Set(items.flatMap((x) => x.entities));
  p.entities.forEach((_, i) => {
    if (!used.has(i)) items.push({ entities: [i] });
  });

  const groups: Array<{ memories: number[]; triplets: number[]; entities: Set<number> }> = [];
  let cur = { memories: [] as number[], triplets: [] as number[], entities: new Set<number>() };
  for (const item of items) {
    const fresh = item.entities.filter((i) => !cur.entities.has(i)).length;
    const full =
      cur.memories.length + (item.memory === undefined ? 0 : 1) > limits.memories ||
      cur.triplets.length + (item.triplet === undefined ? 0 : 1) > limits.triplets ||
      cur.entities.size + fresh > limits.entities;
    if (full && (cur.memories.length > 0 || cur.triplets.length > 0 || cur.entities.size > 0)) {
      groups.push(cur);
      cur = { memories: [], triplets: [], entities: new Set() };
    }
    if (item.memory !== undefined) cur.memories.push(item.memory);
    if (item.triplet !== undefined) cur.triplets.push(item.triplet);
    for (const i of item.entities) cur.entities.add(i);
  }
  groups.push(cur);
  if (groups.length === 1) return whole();

  return groups.map((g) => {
    const entities = [...g.entities].sort((a, b) => a - b);
    const prepared: Prepared = {
      entities: entities.map((i) => p.entities[i] as Prepared['entities'][number]),
      memories: g.memories.map((i) => p.memories[i] as Prepared['memories'][number]),
      triplets: g.triplets.map((i) => p.triplets[i] as Prepared['triplets'][number]),
    };
    return {
      prepared,
      vectors: { entities: entities.map((i) => vectors.entities[i] as number[]), memories: g.memories.map((i) => vectors.memories[i] as number[]) },
      decisions: decisions ? g.memories.map((i) => decisions[i]) : undefined,
      key: pieceKey(prepared),
    };
  });
}

/** sha256 of the rows a piece writes and the events behind each: equal keys, equal writes. */
function pieceKey(p: Prepared): string {
  const json = JSON.stringify({
    m: p.memories.map((m) => [m.kind, m.hash, m.eventIds]),
    e: p.entities.map((e) => [e.normalized, e.type, e.eventIds]),
    t: p.triplets.map((t) => [t.source, t.relation, t.target, t.eventIds]),
  });
  return `extract-${createHash('sha256').update(json).digest('hex')}`;
}
