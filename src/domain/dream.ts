/**
 * Auto-dream consolidation as pure functions (stage 5, workers/README.md): given the active memories of one
 * user scope, plan which near-duplicates merge, which pairs get `enriches` / `challenges` links and
 * which memories are crystals. The plan is a fixed point: applying it and planning again yields an
 * empty plan, so a second dream in a row changes nothing.
 */
import { cosine, type ReconcileThresholds } from './reconcile.js';
import { normalizeText } from './text.js';

export interface DreamMemory {
  id: string;
  kind: string;
  content: string;
  subjectId: string | null;
  /** The embedding under the current model, or null (no comparable vector: text rules only). */
  vector: readonly number[] | null;
  confidence: number;
  importance: number;
  isCrystal: boolean;
  validFrom: Date;
  /** Independent sources: distinct sessions, or distinct events for events without a session. */
  sources: readonly string[];
  /** Supporting events (provenance rows). */
  evidence: number;
}

export type MergeRelation = 'confirms' | 'replaces';

export interface DreamMerge {
  survivorId: string;
  /** Superseded by the survivor: `confirms` for the same statement, `replaces` for a near-duplicate. */
  members: Array<{ id: string; relation: MergeRelation }>;
  /** Confidence only grows: the highest in the cluster. */
  confidence: number;
  importance: number;
}

export interface DreamLink {
  /** The newer memory. */
  from: string;
  to: string;
  relation: 'enriches' | 'challenges';
}

export interface DreamPlan {
  merges: DreamMerge[];
  links: DreamLink[];
  /** Only memories whose crystal flag changes. */
  crystals: Array<{ id: string; isCrystal: boolean }>;
}

export interface CrystalRule {
  /** Independent sources a crystal needs (at least three). */
  minSources: number;
  /** Quality gate: no crystal under this many characters. */
  minChars: number;
}

export const CRYSTAL_RULE: CrystalRule = { minSources: 3, minChars: 30 };

/** The same negation test as reconcile.ts: a contradiction is two statements, one of them negated. */
const NEGATION = /\b(?:not|no longer|never|don't|doesn't|didn't|won't|isn't|aren't|wasn't|cannot|can't|stopped|quit|anymore)\b|不|没有|别|再也/i;

export function negated(text: string): boolean {
  return NEGATION.test(text);
}

/** Text identity looser than the content hash: punctuation and symbols do not make a new statement. */
export function looseKey(text: string): string {
  return normalizeText(text)
    .replace(/[\p{P}\p{S}]+/gu, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
}

/** Survivor order: the most confirmed first, then the oldest, then the id (deterministic). */
function byPriority(a: DreamMemory, b: DreamMemory): number {
  return b.evidence - a.evidence || a.validFrom.getTime() - b.validFrom.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

const newer = (a: DreamMemory, b: DreamMemory) =>
  a.validFrom.getTime() > b.validFrom.getTime() || (a.validFrom.getTime() === b.validFrom.getTime() && a.id > b.id);
const pairKey = (a: string, b: string) => (a < b ? `${a}|${b}` : `${b}|${a}`);

/**
 * Plans one dream over a scope's active memories. `linked` holds every pair (either direction)
 * that already has a relation: such pairs get no new link.
 *
 * Clusters are greedy around representatives taken in survivor order, so the survivors are
 * pairwise unmergeable and a second plan over them merges nothing. Two memories merge when they
 * have the same kind and either the same loose text (`confirms`) or the same subject and a cosine
 * at or above the embedder's `same` threshold (`replaces`) — never when exactly one of them is
 * negated: a contradiction is linked `challenges` (same kind and subject, cosine ≥ `related`)
 * and both sides stay active. Same-kind memories about the same named subject with a cosine in
 * [related, same) are linked `enriches` (the newer adds detail to the older).
 *
 * `neighbours` (symmetric: id → ids) restricts every comparison to candidate pairs, the nearest
 * neighbours a vector search found for the new memories: the plan then costs O(pairs), not
 * O(memories²), and a memory is only compared with memories it is adjacent to. Without it every
 * pair is compared.
 */
export function planDream(
  memories: readonly DreamMemory[],
  linked: ReadonlySet<string>,
  t: ReconcileThresholds,
  rule: CrystalRule = CRYSTAL_RULE,
  neighbours?: ReadonlyMap<string, ReadonlySet<string>>,
): DreamPlan {
  const keys = new Map(memories.map((m) => [m.id, looseKey(m.content)]));
  const neg = new Map(memories.map((m) => [m.id, negated(m.content)]));
  const sim = (a: DreamMemory, b: DreamMemory) => (a.vector && b.vector ? cosine(a.vector, b.vector) : 0);
  const sameSubject = (a: DreamMemory, b: DreamMemory) => a.subjectId === b.subjectId;

  const mergeRelation = (rep: DreamMemory, m: DreamMemory): MergeRelation | null => {
    if (rep.kind !== m.kind) return null;
    if (keys.get(rep.id) === keys.get(m.id) && (keys.get(m.id) ?? '') !== '') return 'confirms';
    if (neg.get(rep.id) !== neg.get(m.id)) return null;
    return sameSubject(rep, m) && sim(rep, m) >= t.same ? 'replaces' : null;
  };

  type Cluster = { rep: DreamMemory; members: Array<{ m: DreamMemory; relation: MergeRelation }>; index: number };
  const clusters: Cluster[] = [];
  const clusterOfRep = new Map<string, Cluster>();
  // The clusters whose representative `m` may be compared with, in creation order.
  const candidateClusters = (m: DreamMemory): Cluster[] => {
    if (!neighbours) return clusters;
    const near = [...(neighbours.get(m.id) ?? [])].map((id) => clusterOfRep.get(id)).filter((c): c is Cluster => c !== undefined);
    return near.sort((a, b) => a.index - b.index);
  };
  for (const m of [...memories].sort(byPriority)) {
    let joined = false;
    for (const c of candidateClusters(m)) {
      const relation = mergeRelation(c.rep, m);
      if (relation) {
        c.members.push({ m, relation });
        joined = true;
        break;
      }
    }
    if (!joined) {
      const c: Cluster = { rep: m, members: [], index: clusters.length };
      clusters.push(c);
      clusterOfRep.set(m.id, c);
    }
  }

  const merges: DreamMerge[] = clusters
    .filter((c) => c.members.length > 0)
    .map((c) => ({
      survivorId: c.rep.id,
      members: c.members.map(({ m, relation }) => ({ id: m.id, relation })),
      confidence: Math.max(c.rep.confidence, ...c.members.map(({ m }) => m.confidence)),
      importance: Math.max(c.rep.importance, ...c.members.map(({ m }) => m.importance)),
    }));

  const links: DreamLink[] = [];
  const reps = clusters.map((c) => c.rep);
  const repPairs = function* (): Generator<[DreamMemory, DreamMemory]> {
    for (let i = 0; i < reps.length; i++) {
      const a = reps[i] as DreamMemory;
      if (neighbours) {
        for (const c of candidateClusters(a)) if (c.index > i) yield [a, c.rep];
      } else {
        for (let j = i + 1; j < reps.length; j++) yield [a, reps[j] as DreamMemory];
      }
    }
  };
  for (const [a, b] of repPairs()) {
    if (a.kind !== b.kind || !sameSubject(a, b) || linked.has(pairKey(a.id, b.id))) continue;
    const s = sim(a, b);
    if (s < t.related) continue;
    const [from, to] = newer(a, b) ? [a, b] : [b, a];
    if (neg.get(a.id) !== neg.get(b.id)) links.push({ from: from.id, to: to.id, relation: 'challenges' });
    else if (a.subjectId !== null && s < t.same) links.push({ from: from.id, to: to.id, relation: 'enriches' });
  }

  const crystals: DreamPlan['crystals'] = [];
  for (const c of clusters) {
    const group = [c.rep, ...c.members.map((x) => x.m)];
    const sources = new Set(group.flatMap((m) => m.sources));
    const evidence = group.reduce((n, m) => n + m.evidence, 0);
    const isCrystal = isCrystalCandidate(c.rep.content, sources.size, evidence, rule);
    if (isCrystal !== c.rep.isCrystal) crystals.push({ id: c.rep.id, isCrystal });
  }
  return { merges, links, crystals };
}

/** A crystal: a conclusion with evidence from ≥ minSources independent sources that passes the quality gate. */
export function isCrystalCandidate(content: string, sources: number, evidence: number, rule: CrystalRule = CRYSTAL_RULE): boolean {
  return evidence > 0 && sources >= rule.minSources && content.trim().length >= rule.minChars;
}

export function isEmptyPlan(p: DreamPlan): boolean {
  return p.merges.length === 0 && p.links.length === 0 && p.crystals.length === 0;
}

export interface DreamTriggerState {
  lastDreamAt: Date | null;
  /** When the scope's first active memory was recorded (the baseline before any dream). */
  firstMemoryAt: Date;
  /** Sessions with events since the last dream (or ever, before the first). */
  newSessions: number;
  /** Memories recorded since the last dream (or ever, before the first). */
  newMemories: number;
  /** The last run stopped at a cap with new memories left. */
  backlog?: boolean;
}

export interface DreamTriggerPolicy {
  intervalMs: number;
  sessions: number;
  memories: number;
}

export type DreamTrigger = 'backlog' | 'sessions' | 'memories' | 'interval';

/**
 * Whichever fires first: a backlog the last run left (at once), N new sessions, N new memories, or
 * the interval — and only with something new to consolidate.
 */
export function dreamTrigger(s: DreamTriggerState, p: DreamTriggerPolicy, now: Date): DreamTrigger | null {
  if (s.backlog) return 'backlog';
  if (s.newSessions === 0 && s.newMemories === 0) return null;
  if (s.newSessions >= p.sessions) return 'sessions';
  if (s.newMemories >= p.memories) return 'memories';
  const since = (s.lastDreamAt ?? s.firstMemoryAt).getTime();
  return now.getTime() - since >= p.intervalMs ? 'interval' : null;
}

export { pairKey as linkedPairKey };
