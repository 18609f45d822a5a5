import { describe, expect, it } from 'vitest';
import { slotOf } from '../../src/domain/slots.js';
import type { MemoryNeighbour } from '../../src/db/sql/memories-write.js';
import { thresholdsFor } from '../../src/domain/reconcile.js';
import { contentHash, normalizeText } from '../../src/domain/text.js';
import { buildReconcileMessages } from '../../src/providers/llm/prompts.js';
import type { PreparedMemory } from './prepare.js';
import { adviceFrom, buildReconcileRequest, RECONCILE_CANDIDATES } from './reconcile.js';

const T = thresholdsFor('text-embedding-3-small'); // consider ≥ 0.6
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
const ID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function unit(content: string, kind: PreparedMemory['kind'] = 'preference'): PreparedMemory {
  return {
    kind,
    content,
    hash: contentHash(normalizeText(content)),
    ftsDoc: content,
    importance: 5,
    confidence: 0.9,
    eventTime: null,
    timePrecision: null,
    subject: 'Bob',
    entities: [],
    eventIds: ['e'],
    occurredAt: '2026-03-02T10:00:00.000Z',
    slot: slotOf(kind, content),
  };
}
function near(n: number, content: string, similarity: number): MemoryNeighbour {
  return {
    id: ID(n),
    kind: 'preference',
    content,
    content_hash: contentHash(normalizeText(content)),
    subject_entity_id: null,
    version: 1,
    occurred_at: new Date('2026-01-05T00:00:00Z'),
    valid_from: new Date('2026-01-05T00:00:00Z'),
    slot: slotOf('preference', content),
    similarity,
  };
}

describe('the batched reconcile question of a pass', () => {
  it('asks only about units with a near existing memory, numbers memories once, and carries no UUID', () => {
    const units = [
      unit('Bob prefers aisle seats now'),
      unit('The build uses Vite', 'fact'),
      unit('Bob drinks coffee in the morning'),
      unit('Bob prefers window seats'),
    ];
    const shared = near(1, 'Bob prefers window seats', 0.74);
    const req = buildReconcileRequest(
      units,
      [
        [shared, near(2, 'Bob prefers tea in the morning', 0.61), near(3, 'Bob flies to Oslo', 0.3)],
        [near(4, 'The build uses Webpack', 0.55)], // under `consider`: plainly new, not asked
        [near(2, 'Bob prefers tea in the morning', 0.66), shared],
        [{ ...shared, similarity: 1 }], // its exact text exists: the rules confirm it
      ],
      T,
    );
    expect(req?.unitIndex).toEqual([0, 2]);
    expect(req?.memoryIds).toEqual([ID(1), ID(2)]);
    expect(req?.input.units.map((u) => [u.unit, u.candidates])).toEqual([
      [0, [1, 2]],
      [1, [1, 2]],
    ]);
    expect(req?.input.units[0]).toMatchObject({ kind: 'preference', content: 'Bob prefers aisle seats now', date: '2026-03-02' });
    expect(req?.input.memories[0]).toEqual({ id: 1, kind: 'preference', content: 'Bob prefers window seats', date: '2026-01-05' });
    expect(JSON.stringify(buildReconcileMessages(req!.input))).not.toMatch(UUID);
  });

  it('asks nothing when no unit has a candidate, and shows each unit its nearest few only', () => {
    expect(buildReconcileRequest([unit('Bob prefers tea')], [[]], T)).toBeUndefined();
    expect(buildReconcileRequest([unit('Bob prefers tea')], [[near(1, 'Bob likes jazz', 0.2)]], T)).toBeUndefined();
    const many = [0.9, 0.7, 0.8, 0.65, 0.62].map((s, k) => near(k + 1, `Bob prefers drink number ${k}`, s));
    const req = buildReconcileRequest([unit('Bob prefers water')], [many], T);
    expect(req?.input.units[0]?.candidates).toHaveLength(RECONCILE_CANDIDATES);
    expect(req?.memoryIds).toEqual([ID(1), ID(3), ID(2)]);
  });

  it("maps the model's numbers back to memory ids; an unknown unit or target leaves that unit to the rules", () => {
    const units = [unit('Bob prefers aisle seats now'), unit('Bob drinks coffee in the morning'), unit('Bob prefers jazz now')];
    const req = buildReconcileRequest(
      units,
      [[near(1, 'Bob prefers window seats', 0.74)], [near(2, 'Bob prefers tea in the morning', 0.66)], [near(3, 'Bob prefers rock music', 0.7)]],
      T,
    )!;
    const { decisions, ignored, missing } = adviceFrom(
      {
        decisions: [
          { unit: 0, action: 'UPDATE', target: 1 },
          { unit: 0, action: 'ADD' }, // a second decision for a unit
          { unit: 1, action: 'CHALLENGE', target: 1 }, // #1 is not among unit 1's candidates
          { unit: 7, action: 'ADD' }, // no such unit
        ],
      },
      req,
    );
    expect(decisions).toEqual([{ action: 'UPDATE', targetId: ID(1) }, undefined, undefined]);
    expect({ ignored, missing }).toEqual({ ignored: 3, missing: 1 });
    expect(
      adviceFrom(
        {
          decisions: [
            { unit: 1, action: 'CONFIRM', target: null },
            { unit: 2, action: 'NOOP', target: null },
          ],
        },
        req,
      ).decisions,
    ).toEqual([undefined, undefined, { action: 'NOOP' }]);
  });
});
