import { describe, expect, it } from 'vitest';
import { dreamTrigger, isEmptyPlan, linkedPairKey, looseKey, planDream, type DreamMemory, type DreamPlan } from './dream.js';

const t = { same: 0.9, related: 0.55 };
const day = (n: number) => new Date(Date.UTC(2026, 10, n));
/** A unit vector at `angle` radians in the plane: cos(a − b) is the similarity of two of them. */
const at = (angle: number) => [Math.cos(angle), Math.sin(angle), 0];
const SIM = (s: number) => Math.acos(s);

let seq = 0;
function mem(over: Partial<DreamMemory> & { content: string }): DreamMemory {
  seq++;
  return {
    id: `m${String(seq).padStart(3, '0')}`,
    kind: 'fact',
    subjectId: 's1',
    vector: at(0),
    confidence: 0.7,
    importance: 5,
    isCrystal: false,
    validFrom: day(seq),
    sources: [`e${seq}`],
    evidence: 1,
    ...over,
  };
}

/** Applies a plan the way src/db/sql/dream.ts does, to check that a second plan is empty. */
function apply(ms: DreamMemory[], plan: DreamPlan, linked: Set<string>): DreamMemory[] {
  const merged = new Set(plan.merges.flatMap((m) => m.members.map((x) => x.id)));
  for (const l of plan.links) linked.add(linkedPairKey(l.from, l.to));
  return ms
    .filter((m) => !merged.has(m.id))
    .map((m) => {
      const merge = plan.merges.find((x) => x.survivorId === m.id);
      const members = merge ? ms.filter((x) => merge.members.some((y) => y.id === x.id)) : [];
      const crystal = plan.crystals.find((c) => c.id === m.id);
      return {
        ...m,
        sources: [...new Set([...m.sources, ...members.flatMap((x) => x.sources)])],
        evidence: m.evidence + members.reduce((n, x) => n + x.evidence, 0),
        confidence: merge?.confidence ?? m.confidence,
        isCrystal: crystal ? crystal.isCrystal : m.isCrystal,
      };
    });
}

describe('planDream', () => {
  it('merges the same statement written differently into the most confirmed, then oldest, memory', () => {
    const a = mem({ content: 'The API runs on port 8787.', evidence: 1 });
    const b = mem({ content: 'the api runs on port 8787', evidence: 2, confidence: 0.9 });
    const c = mem({ content: 'The API runs on port 8787!!', evidence: 2, vector: null });
    const plan = planDream([a, b, c], new Set(), t);
    expect(plan.merges).toEqual([
      {
        survivorId: b.id,
        members: [
          { id: c.id, relation: 'confirms' },
          { id: a.id, relation: 'confirms' },
        ],
        confidence: 0.9,
        importance: 5,
      },
    ]);
  });

  it('merges near-duplicate vectors only within the same kind and subject', () => {
    const a = mem({ content: 'Alice lives in Berlin since 2020', vector: at(0) });
    const b = mem({ content: 'Alice has lived in Berlin since 2020', vector: at(SIM(0.95)) });
    const otherKind = mem({ content: 'Alice lived in Berlin in 2020', kind: 'episode', vector: at(SIM(0.95)) });
    const otherSubject = mem({ content: 'Bob lives in Berlin since 2020', subjectId: 's2', vector: at(SIM(0.96)) });
    const plan = planDream([a, b, otherKind, otherSubject], new Set(), t);
    expect(plan.merges).toEqual([{ survivorId: a.id, members: [{ id: b.id, relation: 'replaces' }], confidence: 0.7, importance: 5 }]);
  });

  it('never merges a contradiction: it links the newer side with challenges and keeps both', () => {
    const a = mem({ content: 'We use Kafka for the event bus', vector: at(0) });
    const b = mem({ content: 'We no longer use Kafka for the event bus', vector: at(SIM(0.97)) });
    const plan = planDream([a, b], new Set(), t);
    expect(plan.merges).toEqual([]);
    expect(plan.links).toEqual([{ from: b.id, to: a.id, relation: 'challenges' }]);
    expect(planDream([a, b], new Set([linkedPairKey(a.id, b.id)]), t).links).toEqual([]);
  });

  it('links enriches in the middle similarity band for a named subject only', () => {
    const a = mem({ content: 'The billing service is written in Go', vector: at(0) });
    const b = mem({ content: 'The billing service uses Go 1.22 with chi routing', vector: at(SIM(0.7)) });
    const far = mem({ content: 'The billing team meets on Mondays', vector: at(-SIM(0.3)) });
    expect(planDream([a, b, far], new Set(), t).links).toEqual([{ from: b.id, to: a.id, relation: 'enriches' }]);
    const x = mem({ content: 'Deploys happen on Tuesdays', subjectId: null, vector: at(0) });
    const y = mem({ content: 'Deploys happen on Tuesdays after the review', subjectId: null, vector: at(SIM(0.7)) });
    expect(planDream([x, y], new Set(), t).links).toEqual([]);
  });

  it('forms a crystal at three independent sources, not at two, and never under 30 characters', () => {
    const two = mem({ content: 'Releases are cut every second Thursday', sources: ['s-a', 's-b'], evidence: 3 });
    const three = mem({ content: 'Incidents are reviewed within two working days', sources: ['s-a', 's-b', 's-c'], evidence: 3, vector: at(2) });
    const short = mem({ content: 'Uses Go.', sources: ['s-a', 's-b', 's-c'], evidence: 3, vector: at(1) });
    expect(planDream([two, three, short], new Set(), t).crystals).toEqual([{ id: three.id, isCrystal: true }]);
  });

  it('counts the union of sources of a merged cluster toward the crystal', () => {
    const ms = ['s-a', 's-b', 's-c'].map((s) => mem({ content: 'The on-call rotation changes every Monday', sources: [s] }));
    const plan = planDream(ms, new Set(), t);
    expect(plan.merges).toHaveLength(1);
    expect(plan.crystals).toEqual([{ id: ms[0]!.id, isCrystal: true }]);
  });

  it('reaches a fixed point: planning again after applying a plan changes nothing', () => {
    const angles = [0, 0.1, 0.2, 0.35, 0.5, 0.9, 1.3, 1.31, 2.0, 2.05];
    const ms = angles.map((a, i) =>
      mem({
        content: i % 4 === 3 ? `It is not the case that item ${i} holds` : `Statement ${i} about the subject holds`,
        vector: at(a),
        evidence: 1 + (i % 3),
        sources: [`x${i % 4}`],
      }),
    );
    ms.push(mem({ content: 'Statement 2 about the subject holds.', vector: at(3) }));
    const linked = new Set<string>();
    const first = planDream(ms, linked, t);
    expect(isEmptyPlan(first)).toBe(false);
    const after = apply(ms, first, linked);
    expect(planDream(after, linked, t)).toEqual({ merges: [], links: [], crystals: [] });
  });
});

describe('looseKey', () => {
  it('ignores case, spacing and punctuation but keeps words', () => {
    expect(looseKey('  We use  Redis, daily! ')).toBe(looseKey('we use redis daily'));
    expect(looseKey('We use Redis')).not.toBe(looseKey('We use Kafka'));
  });
});

describe('dreamTrigger', () => {
  const policy = { intervalMs: 86_400_000, sessions: 5, memories: 20 };
  const now = day(20);
  const base = { lastDreamAt: day(19), firstMemoryAt: day(1), newSessions: 1, newMemories: 1 };

  it('fires on whichever comes first: sessions, memories or the interval', () => {
    expect(dreamTrigger(base, policy, new Date(day(19).getTime() + 3_600_000))).toBeNull();
    expect(dreamTrigger({ ...base, newSessions: 5 }, policy, now)).toBe('sessions');
    expect(dreamTrigger({ ...base, newMemories: 20 }, policy, now)).toBe('memories');
    expect(dreamTrigger(base, policy, now)).toBe('interval');
    expect(dreamTrigger({ ...base, lastDreamAt: null }, policy, now)).toBe('interval');
  });

  it('does not fire when nothing is new since the last dream', () => {
    expect(dreamTrigger({ ...base, lastDreamAt: day(1), newSessions: 0, newMemories: 0 }, policy, now)).toBeNull();
  });
});
