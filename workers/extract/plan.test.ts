import { describe, expect, it } from 'vitest';
import { slotOf } from '../../src/domain/slots.js';
import { confirmedConfidence, type MemoryNeighbour } from '../../src/db/sql/memories-write.js';
import { thresholdsFor } from '../../src/domain/reconcile.js';
import { confirmRestatedHistory, planMemories } from './plan.js';
import type { PreparedMemory } from './prepare.js';

const T = thresholdsFor('local-hashing-v1'); // same ≥ 0.9, related ≥ 0.55

function unit(kind: PreparedMemory['kind'], content: string, occurredAt = '2026-01-01T00:00:00Z'): PreparedMemory {
  return {
    kind,
    content,
    hash: content,
    ftsDoc: content,
    importance: 5,
    confidence: 0.8,
    eventTime: null,
    timePrecision: null,
    subject: null,
    entities: [],
    eventIds: ['e'],
    occurredAt,
    slot: slotOf(kind, content),
  };
}
/** A unit vector at `angle` radians from the x axis, in 2-D: cos(a - b) is the similarity. */
const at = (angle: number) => [Math.cos(angle), Math.sin(angle)];
function neighbour(id: string, kind: string, content: string, similarity: number, subject: string | null = 'alice'): MemoryNeighbour {
  return {
    id,
    kind,
    content,
    content_hash: content,
    subject_entity_id: subject,
    version: 1,
    occurred_at: new Date('2026-01-01T00:00:00Z'),
    valid_from: new Date('2026-01-01T00:00:00Z'),
    slot: slotOf(kind as PreparedMemory['kind'], content),
    similarity,
  };
}

describe('planMemories (reconcile decisions for one extraction pass)', () => {
  it('lets a unit reconcile against an earlier unit of the same pass, as if that one had been written first', () => {
    const plan = planMemories(
      [unit('preference', 'Alice prefers tea'), unit('preference', 'Alice no longer drinks coffee but prefers green tea', '2026-01-01T00:05:00Z')],
      [at(0), at(0.8)], // cos 0.70: related, not the same
      ['alice', 'alice'],
      [[], []],
      T,
    );
    // Same slot (Alice's drink), a new value: the later statement replaces the earlier one.
    expect(plan.map((p) => p.decision.action)).toEqual(['ADD', 'UPDATE']);
    expect(plan[1]?.target).toEqual({ pass: 0 });
    expect(plan[1]?.supersedes).toEqual([{ pass: 0 }]);
  });

  it('updates an existing memory once: a later unit of the pass no longer sees the superseded one', () => {
    const plan = planMemories(
      [unit('preference', 'Alice prefers green tea'), unit('preference', 'Alice prefers jasmine tea')],
      [at(0), at(0.1)],
      ['alice', 'alice'],
      [[neighbour('m1', 'preference', 'Alice prefers black tea', 0.7)], [neighbour('m1', 'preference', 'Alice prefers black tea', 0.65)]],
      T,
    );
    expect(plan[0]).toMatchObject({ decision: { action: 'UPDATE' }, target: { id: 'm1', version: 1 }, version: 2 });
    // The second unit is near-identical to the first (cos 0.995) and never meets m1 again.
    expect(plan[1]).toMatchObject({ decision: { action: 'CONFIRM' }, target: { pass: 0 } });
  });

  it('confirms an existing near-identical memory of the same kind, and adds what is new', () => {
    const plan = planMemories(
      [unit('fact', 'The cluster runs in Frankfurt'), unit('plan', 'We will move to Berlin')],
      [at(0), at(1.5)],
      [null, null],
      [[neighbour('m2', 'fact', 'The cluster runs in Frankfurt, Germany', 0.95, null)], []],
      T,
    );
    expect(plan.map((p) => [p.decision.action, p.target])).toEqual([
      ['CONFIRM', { id: 'm2', version: 1 }],
      ['ADD', undefined],
    ]);
  });

  it('adds a near-identical statement with other numbers: another service, another amount', () => {
    const plan = planMemories(
      [unit('decision', 'We decided to keep service 365 on Redis')],
      [at(0)],
      [null],
      [[neighbour('m3', 'decision', 'We decided to keep service 52 on Redis', 0.97, null)]],
      T,
    );
    expect(plan.map((p) => [p.decision.action, p.target])).toEqual([['ADD', undefined]]);
  });

  it("takes a model's decision over the rules: an UPDATE the rules would have called an ADD", () => {
    const plan = planMemories(
      [unit('preference', 'Alice drinks coffee every morning now'), unit('fact', 'The office is in Lyon')],
      [at(0), at(1.5)],
      ['alice', null],
      [[neighbour('m1', 'preference', 'Alice prefers tea in the morning', 0.4)], []],
      T,
      [{ action: 'UPDATE', target: { id: 'm1', version: 3 } }, { action: 'NOOP' }],
    );
    expect(plan[0]).toMatchObject({ decision: { action: 'UPDATE', targetId: 'm1', reason: 'model' }, target: { id: 'm1', version: 3 }, version: 4 });
    expect(plan[1]?.decision.action).toBe('NOOP');
  });

  it('keeps the rules where they know better: a target superseded earlier in the pass, a unit of the same pass, identical text', () => {
    const plan = planMemories(
      [
        unit('preference', 'Alice prefers green tea'),
        unit('preference', 'Alice prefers oolong'),
        unit('preference', 'Alice prefers jasmine tea'),
        unit('fact', 'Alice lives in Lyon'),
      ],
      [at(0), at(1.2), at(0.1), at(2.5)],
      ['alice', 'alice', 'alice', 'alice'],
      [
        [neighbour('m1', 'preference', 'Alice prefers black tea', 0.7)],
        [neighbour('m1', 'preference', 'Alice prefers black tea', 0.5)],
        [],
        [neighbour('m2', 'fact', 'Alice lives in Lyon', 0.99)],
      ],
      T,
      [
        { action: 'UPDATE', target: { id: 'm1', version: 1 } },
        { action: 'CHALLENGE', target: { id: 'm1', version: 1 } }, // m1 is superseded by unit 0 by then
        { action: 'ADD' }, // but unit 0 of this pass says the same (cos 0.995)
        { action: 'ADD' }, // but m2 has the very text
      ],
    );
    expect(plan[0]).toMatchObject({ decision: { action: 'UPDATE', reason: 'model' }, target: { id: 'm1' } });
    expect(plan[1]).toMatchObject({ decision: { action: 'ADD' }, target: undefined });
    expect(plan[2]).toMatchObject({ decision: { action: 'CONFIRM' }, target: { pass: 0 } });
    expect(plan[3]).toMatchObject({ decision: { action: 'CONFIRM', reason: 'same text' }, target: { id: 'm2' } });
  });
});

describe('planMemories: event time decides which value of a slot holds', () => {
  const slotted = (id: string, content: string, at: string): MemoryNeighbour => ({
    ...neighbour(id, 'fact', content, 0.3),
    valid_from: new Date(at),
    occurred_at: new Date(at),
  });

  it('makes a unit older than the stored value history: superseded by it, not superseding it', () => {
    const plan = planMemories(
      [unit('fact', 'The release is on Thursday.', '2026-03-05T00:00:00Z')],
      [at(0)],
      [null],
      [[]],
      T,
      [],
      [[slotted('m-fri', 'The release is on Friday.', '2026-03-20T00:00:00Z')]],
    );
    expect(plan[0]).toMatchObject({ decision: { action: 'ADD' }, supersedes: [], supersededBy: { id: 'm-fri' } });
  });

  it("confirms the version that held at a late unit's time when the unit says what it said, and keeps a different value as history", () => {
    const units = [unit('fact', 'The release is on Thursday.', '2026-03-08T00:00:00Z'), unit('fact', 'The release is on Wednesday.', '2026-03-08T00:00:00Z')];
    const plan = planMemories(
      units,
      [at(0), at(0.3)],
      [null, null],
      [[], []],
      T,
      [],
      [[slotted('m-fri', 'The release is on Friday.', '2026-03-20T00:00:00Z')], [slotted('m-fri', 'The release is on Friday.', '2026-03-20T00:00:00Z')]],
    );
    expect(plan.map((x) => x.supersededBy)).toEqual([
      { id: 'm-fri', version: 1 },
      { id: 'm-fri', version: 1 },
    ]);
    // Thursday held from March 5 to 20: both late units fall in it.
    const thursday = { id: 'm-thu', version: 1, content_hash: 'x', slot: slotOf('fact', 'Release day is Thursday.') };
    const held = new Map([
      [0, thursday],
      [1, thursday],
    ]);
    const settled = confirmRestatedHistory(plan, units, held);
    expect(settled[0]).toMatchObject({ decision: { action: 'CONFIRM' }, target: { id: 'm-thu' }, supersedes: [] });
    expect(settled[0]?.supersededBy).toBeUndefined();
    expect(settled[1]).toEqual(plan[1]);
    // Before the chain began, nothing held: the unit stays history of its own.
    expect(confirmRestatedHistory(plan, units, new Map([[0, undefined]]))[0]).toEqual(plan[0]);
  });

  it('supersedes every stored version of the slot a newer unit replaces, and confirms a restatement', () => {
    const stored = [
      slotted('m1', 'Our standup is at 9:30.', '2026-03-01T00:00:00Z'),
      slotted('m2', 'Daily standup is at 9:30 every day.', '2026-03-02T00:00:00Z'),
    ];
    const plan = planMemories(
      [unit('fact', 'Standup moved to 10:00.', '2026-03-10T00:00:00Z'), unit('fact', 'Standup is at 10:00 now.', '2026-03-11T00:00:00Z')],
      [at(0), at(0.05)],
      [null, null],
      [[], []],
      T,
      [],
      [stored, stored],
    );
    expect(plan[0]?.decision.action).toBe('UPDATE');
    expect(plan[0]?.supersedes).toEqual(
      expect.arrayContaining([
        { id: 'm1', version: 1 },
        { id: 'm2', version: 1 },
      ]),
    );
    expect(plan[1]).toMatchObject({ decision: { action: 'CONFIRM' }, target: { pass: 0 } });
  });

  it('orders two statements of the same event time the same way whichever is written first', () => {
    const [a, b] = ['The release is on Thursday.', 'The release is on Friday.'];
    const first = planMemories([unit('fact', a), unit('fact', b)], [at(0), at(0.1)], [null, null], [[], []], T);
    const second = planMemories([unit('fact', b), unit('fact', a)], [at(0.1), at(0)], [null, null], [[], []], T);
    /** The statement that ends up history: a unit placed before its successor, or the pass unit a later one supersedes. */
    const history = (plan: typeof first, texts: string[]): string | undefined => {
      const late = plan.find((x) => x.supersededBy !== undefined);
      if (late) return texts[late.index];
      const target = plan.find((x) => x.supersedes.length > 0)?.supersedes[0];
      return target && 'pass' in target ? texts[target.pass] : undefined;
    };
    expect(history(first, [a, b])).toBeDefined();
    expect(history(first, [a, b])).toBe(history(second, [b, a]));
  });

  it('confirms a restatement of the slot, but adds a unit of the same slot value that names something the memory does not', () => {
    const onDuty = neighbour('m7', 'fact', 'Dr. Lindqvist is on duty at Eastside this week.', 0.56, null);
    const plan = planMemories(
      [
        unit('fact', 'Noted: Dr. Lindqvist is on duty at Eastside.', '2026-04-06T08:00:00Z'),
        unit('fact', 'Lindqvist called out sick, Dr. Mensah is covering Eastside the rest of the week', '2026-04-08T07:00:00Z'),
      ],
      [at(0), at(1)],
      [null, null],
      [[onDuty], [onDuty]],
      T,
    );
    // Both are read as the slot value "Eastside"; the second names Mensah, which confirming would lose.
    expect(plan.map((p) => p.decision.action)).toEqual(['CONFIRM', 'ADD']);
  });

  it('goes back to a former value: the unit replaces the value that holds now, in one pass or against stored chains', () => {
    const texts = [
      'For context, CI runs on our Jenkins box in the server closet.',
      'We moved CI to GitHub Actions over the weekend.',
      'The bill for hosted runners was brutal, so we went back to Jenkins this week.',
    ];
    const days = ['2024-03-04T00:00:00Z', '2024-05-13T00:00:00Z', '2024-08-26T00:00:00Z'];
    // One pass: the third unit names no CI, only the value the first held.
    const pass = planMemories(
      texts.map((t, i) => unit('fact', t, days[i])),
      [at(0), at(0.9), at(1.6)],
      [null, null, null],
      [[], [], []],
      T,
    );
    expect(pass.map((p) => p.decision.action)).toEqual(['ADD', 'UPDATE', 'UPDATE']);
    expect(pass[2]?.supersedes).toEqual([{ pass: 1 }]);
    // Stored: GitHub Actions is the active head of a chain whose former version held Jenkins.
    const head = { ...neighbour('m-gha', 'fact', texts[1] as string, 0), valid_from: new Date(days[1] as string) };
    const former = slotOf('fact', texts[0] as string);
    const stored = planMemories([unit('fact', texts[2] as string, days[2])], [at(1.6)], [null], [[]], T, [], [[]], [[{ ...head, reverted_slot: former! }]]);
    expect(stored[0]?.decision.action).toBe('UPDATE');
    expect(stored[0]?.supersedes).toEqual([{ id: 'm-gha', version: 1 }]);
    // Without the former version, nothing ties "went back to Jenkins" to the CI slot.
    const alone = planMemories([unit('fact', texts[2] as string, days[2])], [at(1.6)], [null], [[]], T, [], [[head]]);
    expect(alone[0]?.decision.action).toBe('ADD');
  });
});

describe('confirmedConfidence', () => {
  it('applies each confirmation in order as the real column would store it, up to 0.99', () => {
    expect(confirmedConfidence(0.7, [])).toBe(Math.fround(0.7));
    expect(confirmedConfidence(0.7, [0.6])).toBeCloseTo(0.75, 6);
    expect(confirmedConfidence(0.7, [0.9])).toBeCloseTo(0.95, 6);
    expect(confirmedConfidence(0.7, [0.6, 0.6, 0.6])).toBeCloseTo(0.85, 5);
    expect(confirmedConfidence(0.96, [0.5, 0.5])).toBe(Math.fround(0.99));
  });
});
