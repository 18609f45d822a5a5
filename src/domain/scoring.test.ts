import { describe, expect, it } from 'vitest';
import { answerLifts, byScore, fuse, fusedRelevance, INTENT, LENGTH_SATURATION_TOKENS, lengthPrior, minMax, RELEVANCE, WEIGHTS, zScores } from './scoring.js';

const now = new Date('2026-03-01T00:00:00Z');
const daysAgo = (d: number) => new Date(now.getTime() - d * 86_400_000);

/** The whole path of a hybrid recall: z-scores per retriever, relevance, scaled, fused; best first. */
function rankIds(ids: string[], keyword: Map<string, number>, vector: Map<string, number>, extra: Record<string, { days?: number; importance?: number }> = {}) {
  const zk = zScores(ids, keyword);
  const zv = zScores(ids, vector);
  const rel = new Map(ids.map((id) => [id, fusedRelevance(zk.get(id) ?? 0, zv.get(id) ?? 0, {})]));
  const scale = minMax([...rel.values()]);
  return ids
    .map((id) => ({
      id,
      ...fuse(
        {
          relevance: scale(rel.get(id) ?? 0),
          keyword: keyword.get(id),
          vector: vector.get(id),
          occurredAt: daysAgo(extra[id]?.days ?? 1),
          importance: extra[id]?.importance ?? 5,
        },
        now,
      ),
    }))
    .sort(byScore);
}

describe('fusion: z-scores, relevance, score', () => {
  it('z-scores a candidate a retriever did not return as its lowest returned score', () => {
    const z = zScores(
      ['a', 'b', 'c'],
      new Map([
        ['a', 1],
        ['b', 0.5],
      ]),
    );
    expect(z.get('a')).toBeGreaterThan(0);
    expect(z.get('c')).toBe(z.get('b'));
    // A retriever that returned nothing, or one score for all, says nothing.
    expect(zScores(['a', 'b'], new Map()).size).toBe(0);
    expect(
      zScores(
        ['a', 'b'],
        new Map([
          ['a', 0.3],
          ['b', 0.3],
        ]),
      ).size,
    ).toBe(0);
  });

  it('ranks first what the retrievers rank first, the keyword retriever weighing more than the vector one', () => {
    const ids = ['kw', 'vec', 'neither'];
    const keyword = new Map([
      ['kw', 1],
      ['vec', 0.2],
      ['neither', 0.1],
    ]);
    const vector = new Map([
      ['kw', 0.2],
      ['vec', 1],
      ['neither', 0.1],
    ]);
    const ranked = rankIds(ids, keyword, vector);
    expect(ranked.map((r) => r.id)).toEqual(['kw', 'vec', 'neither']);
    expect(ranked[0]?.scores.relevance).toBe(1);
    expect(RELEVANCE.keyword).toBeGreaterThan(RELEVANCE.vector);
  });

  it('lets freshness and importance only break near-ties: an old, unimportant best match stays above a fresh, important one a third of the scale behind', () => {
    const ids = ['old', 'fresh', 'weak'];
    const keyword = new Map([
      ['old', 1],
      ['fresh', 0.7],
      ['weak', 0.1],
    ]);
    const vector = new Map([
      ['old', 0.5],
      ['fresh', 0.5],
      ['weak', 0.5],
    ]);
    const ranked = rankIds(ids, keyword, vector, { old: { days: 400, importance: 0 }, fresh: { days: 0, importance: 10 } });
    expect(ranked.map((r) => r.id)).toEqual(['old', 'fresh', 'weak']);
    // On a tie of relevance they decide.
    const tie = rankIds(
      ['a', 'b'],
      new Map([
        ['a', 1],
        ['b', 1],
      ]),
      new Map(),
      { a: { days: 400 }, b: { days: 0 } },
    );
    expect(tie.map((r) => r.id)).toEqual(['b', 'a']);
    expect(WEIGHTS.freshness + WEIGHTS.importance).toBeLessThan(WEIGHTS.relevance);
  });

  it('scales relevance so the best candidate of any query counts 1 and the worst 0', () => {
    const scale = minMax([-1.2, 0.4, 2]);
    expect(scale(2)).toBe(1);
    expect(scale(-1.2)).toBe(0);
    expect(scale(0.4)).toBeCloseTo(0.5, 9);
  });
});

describe('the length prior', () => {
  it('costs nothing at LENGTH_SATURATION_TOKENS tokens or more and INTENT.length for an empty text', () => {
    expect(lengthPrior(LENGTH_SATURATION_TOKENS)).toBe(0);
    expect(lengthPrior(10 * LENGTH_SATURATION_TOKENS)).toBe(0);
    expect(lengthPrior(0)).toBe(-INTENT.length);
    expect(lengthPrior(LENGTH_SATURATION_TOKENS / 2)).toBeCloseTo(-INTENT.length / 2, 12);
  });

  it('ranks a very short turn below a full one that matches as well', () => {
    const thanks = fusedRelevance(0.5, 0.5, { tokens: 2 });
    const full = fusedRelevance(0.5, 0.5, { tokens: 40 });
    expect(thanks).toBeLessThan(full);
    // Shorter never ranks higher.
    for (let t = 1; t <= LENGTH_SATURATION_TOKENS + 2; t++) expect(lengthPrior(t)).toBeGreaterThanOrEqual(lengthPrior(t - 1));
  });

  it('leaves memories (no token count) unchanged', () => {
    expect(fusedRelevance(0.5, -0.2, {})).toBe(RELEVANCE.keyword * 0.5 + RELEVANCE.vector * -0.2);
  });
});

describe('the answer lift', () => {
  it('lifts the reply to a question the query matched above a turn it ranked below', () => {
    const turns = [
      { id: 'question', next_id: 'reply' },
      { id: 'reply', next_id: null },
      { id: 'other', next_id: null },
    ];
    const rel = new Map([
      ['question', 2],
      ['reply', 0.1],
      ['other', 0.5],
    ]);
    const lift = answerLifts(turns, rel);
    expect(lift.get('reply')).toBeCloseTo(INTENT.answer * 2, 12);
    expect((rel.get('reply') as number) + (lift.get('reply') as number)).toBeGreaterThan(rel.get('other') as number);
    expect(lift.has('question')).toBe(false);
    expect(lift.has('other')).toBe(false);
  });

  it('passes nothing from a question of no positive relevance, nor to a reply that is not a candidate', () => {
    expect(
      answerLifts(
        [{ id: 'q', next_id: 'r' }],
        new Map([
          ['q', -0.4],
          ['r', 0],
        ]),
      ).size,
    ).toBe(0);
    expect(answerLifts([{ id: 'q', next_id: 'r' }], new Map([['q', 3]])).size).toBe(0);
  });

  it('takes the best of two questions a reply answers', () => {
    const turns = [
      { id: 'q1', next_id: 'r' },
      { id: 'q2', next_id: 'r' },
    ];
    const lift = answerLifts(
      turns,
      new Map([
        ['q1', 1],
        ['q2', 3],
        ['r', 0],
      ]),
    );
    expect(lift.get('r')).toBeCloseTo(INTENT.answer * 3, 12);
  });
});

describe('the query-intent adjustments', () => {
  const base = fusedRelevance(0.3, 0.3, {});

  it('each raises the relevance of an item that answers what the query asks', () => {
    expect(fusedRelevance(0.3, 0.3, { speaker: true }) - base).toBeCloseTo(INTENT.speaker, 12);
    expect(fusedRelevance(0.3, 0.3, { temporal: true }) - base).toBeCloseTo(INTENT.temporal, 12);
    expect(fusedRelevance(0.3, 0.3, { date: true }) - base).toBeCloseTo(INTENT.date, 12);
    expect(fusedRelevance(0.3, 0.3, { asks: true }) - base).toBeCloseTo(-INTENT.asks, 12);
    for (const k of ['speaker', 'temporal', 'date'] as const) expect(fusedRelevance(0.3, 0.3, { [k]: true })).toBeGreaterThan(base);
  });

  it('adds up: a turn of the named speaker, from the named day, about time outranks one with any one of them', () => {
    const all = fusedRelevance(0, 0, { speaker: true, temporal: true, date: true, tokens: 30 });
    for (const one of [{ speaker: true }, { temporal: true }, { date: true }]) expect(all).toBeGreaterThan(fusedRelevance(0, 0, { ...one, tokens: 30 }));
  });

  it('puts evidence from the day the query names above a turn a standard deviation better on words alone', () => {
    // The same words on two days: the day asked for first (test/recall-dates.test.ts end to end).
    expect(fusedRelevance(0, 0, { date: true })).toBeGreaterThan(fusedRelevance(1, 0, {}));
  });
});

describe('the order of results', () => {
  it('puts, of two equal scores, the result that still holds first, whatever their ids', () => {
    const stale = { id: 'a', score: 0.975, current: false };
    const holds = { id: 'b', score: 0.975, current: true };
    expect([stale, holds].sort(byScore).map((r) => r.id)).toEqual(['b', 'a']);
    expect(
      [
        { id: 'b', score: 0.5 },
        { id: 'a', score: 0.5 },
        { id: 'c', score: 0.9, current: false },
      ]
        .sort(byScore)
        .map((r) => r.id),
    ).toEqual(['c', 'a', 'b']);
  });
});
