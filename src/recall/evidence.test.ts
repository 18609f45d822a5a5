import { describe, expect, it } from 'vitest';
import type { TermWeight } from '../db/sql/recall-bm25.js';
import { fusedRelevance, EVIDENCE_WEIGHT, zScores } from '../domain/scoring.js';
import type { RecallContext } from './context.js';
import { evidenceShare, inheritedFromChunks, onePerTurn, type ChunkEvidence } from './evidence.js';

const weight = (term: string, df: number, n = 50): TermWeight => ({ term, w: Math.log(1 + (n - df + 0.5) / (df + 0.5)), df, avgdl: 10, n });
const hit = (id: string, score: number, matched: string[]) => ({ id, bm25: score, session: 0, score, matched });
const pair = (chunk_id: string, memory_id: string, restates = false) => ({ chunk_id, memory_id, restates });

describe('a memory inherits the relevance of its source chunk', () => {
  const ctx = { terms: ['concert', 'perform'] } as unknown as RecallContext;
  const evidence: ChunkEvidence = {
    // The answer turn's key holds the question's words through its neighbour ("how was the concert?").
    hits: [hit('c-answer', 4, ['concert', 'perform']), hit('c-other', 1, ['concert'])],
    weights: [weight('concert', 3), weight('perform', 5)],
    pairs: [pair('c-answer', 'm-singer'), pair('c-answer', 'm-voice'), pair('c-other', 'm-ticket')],
    // No unit states the question's words: they are the turn's context, which every unit of it shares.
    stated: new Map([['m-ticket', new Set(['concert'])]]),
  };

  it('takes its best chunk’s normalised keyword score and cover', () => {
    const { score, cover } = inheritedFromChunks(ctx, evidence);
    expect(score.get('m-singer')).toBe(1);
    expect(score.get('m-ticket')).toBe(0.25);
    expect(cover.get('m-singer')).toBe(1);
    expect(cover.get('m-ticket')).toBeGreaterThan(0);
    expect(cover.get('m-ticket')).toBeLessThan(1);
  });

  it('ranks a unit whose own words miss the question by the turn it came from (EVIDENCE_WEIGHT)', () => {
    // m-ticket holds the question's word itself; m-singer ("Matt Patterson sang") barely, but its turn answers.
    const ids = ['m-singer', 'm-ticket'];
    const zk = zScores(
      ids,
      new Map([
        ['m-ticket', 1],
        ['m-singer', 0.2],
      ]),
    );
    const ze = zScores(ids, inheritedFromChunks(ctx, evidence).score);
    const rel = (id: string) => fusedRelevance(zk.get(id) ?? 0, 0, {}) + EVIDENCE_WEIGHT * (ze.get(id) ?? 0);
    expect(rel('m-singer')).toBeGreaterThan(rel('m-ticket'));
    expect(fusedRelevance(zk.get('m-singer') ?? 0, 0, {})).toBeLessThan(fusedRelevance(zk.get('m-ticket') ?? 0, 0, {}));
  });

  it('lets one unit per turn inherit: the one its own signals rank best', () => {
    const { score } = inheritedFromChunks(ctx, evidence);
    const memories = [
      { id: 'm-singer', event_ids: ['e1'] },
      { id: 'm-voice', event_ids: ['e1'] },
      { id: 'm-ticket', event_ids: ['e2'] },
    ];
    const own = new Map([
      ['m-singer', 0.2],
      ['m-voice', 0.5],
      ['m-ticket', 0],
    ]);
    const kept = onePerTurn(score, memories, (id) => own.get(id) ?? 0);
    expect([...kept.keys()].sort()).toEqual(['m-ticket', 'm-voice']);
    expect(kept.get('m-voice')).toBe(1);
  });
});

describe('an assistant turn that repeats a memory passes it only the words the memory states', () => {
  const focus = new Map([
    ['standup', 3],
    ['meet', 1],
  ]);
  const none = new Set<string>();

  it('passes a user turn’s words, its neighbours’ included, to its units', () => {
    expect(evidenceShare(focus, ['standup', 'meet'], none, false)).toBe(1);
  });

  it('passes a repetition only the words its memory states, in proportion to their weight', () => {
    // "Hi Ana! Nice to meet you." (next turn: "our standup is at 9:45") standing for "I lead the mobile team".
    expect(evidenceShare(focus, ['standup', 'meet'], none, true)).toBe(0);
    expect(evidenceShare(focus, ['standup', 'meet'], new Set(['standup']), true)).toBe(0.75);
    expect(evidenceShare(new Map(), ['name'], none, true)).toBe(1);
  });

  it('ranks the memory a confirmation names below the one that states the question’s words (a truth scenario)', () => {
    // "our service caches with Redis" / "we release on Tuesdays" / "Noted: Redis for caching, releases
    // on Tuesday." (a confirmation of the Redis memory): "Which day do we ship?" matches the
    // confirmation best, through "releases" (ship's synonym).
    const ctx = { terms: ['ship'] } as unknown as RecallContext;
    const evidence: ChunkEvidence = {
      hits: [hit('c-noted', 1, ['ship']), hit('c-release', 0.6, ['ship'])],
      weights: [weight('ship', 2)],
      pairs: [pair('c-noted', 'm-redis', true), pair('c-release', 'm-release')],
      stated: new Map([['m-release', new Set(['ship'])]]),
    };
    const { score } = inheritedFromChunks(ctx, evidence);
    expect(score.get('m-redis')).toBe(0);
    expect(score.get('m-release')).toBe(0.6);
  });
});

describe('of the units of one turn, the one that inherits most inherits', () => {
  it('keeps the corrected value’s inheritance over another unit of its turn (a truth scenario)', () => {
    // "my manager is Diane now" was corrected by "I got it wrong, my manager is Dana, not Diane.
    // Diane leads the other squad" (two units). "who is my boss?" matches the first turn best; its
    // evidence passes to the correction's unit, which must not lose it to "Diane leads the other
    // squad", better on its own words ("Diane").
    const ctx = { terms: ['boss'] } as unknown as RecallContext;
    const evidence: ChunkEvidence = {
      hits: [hit('c-diane', 1, ['boss']), hit('c-dana', 0.8, ['boss'])],
      weights: [weight('boss', 2)],
      pairs: [pair('c-diane', 'm-org-chart'), pair('c-diane', 'm-dana'), pair('c-dana', 'm-dana'), pair('c-dana', 'm-diane-leads')],
      stated: new Map([['m-dana', new Set(['boss'])]]),
    };
    const { score } = inheritedFromChunks(ctx, evidence);
    const memories = [
      { id: 'm-org-chart', event_ids: ['e1'] },
      { id: 'm-dana', event_ids: ['e5'] },
      { id: 'm-diane-leads', event_ids: ['e5'] },
    ];
    const own = new Map([
      ['m-diane-leads', 0.9],
      ['m-dana', 0.1],
    ]);
    const kept = onePerTurn(score, memories, (id) => own.get(id) ?? 0);
    expect(kept.get('m-dana')).toBe(1);
    expect(kept.has('m-diane-leads')).toBe(false);
  });
});
