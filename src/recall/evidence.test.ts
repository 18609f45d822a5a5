import { describe, expect, it } from 'vitest';
import type { TermWeight } from '../db/sql/recall-bm25.js';
import { fusedRelevance, EVIDENCE_WEIGHT, zScores } from '../domain/scoring.js';
import type { RecallContext } from './context.js';
import { inheritedFromChunks, onePerTurn, type ChunkEvidence } from './evidence.js';

const weight = (term: string, df: number, n = 50): TermWeight => ({ term, w: Math.log(1 + (n - df + 0.5) / (df + 0.5)), df, avgdl: 10, n });
const hit = (id: string, score: number, matched: string[]) => ({ id, bm25: score, session: 0, score, matched });

describe('a memory inherits the relevance of its source chunk', () => {
  const ctx = { terms: ['concert', 'perform'] } as unknown as RecallContext;
  const evidence: ChunkEvidence = {
    // The answer turn's key holds the question's words through its neighbour ("how was the concert?").
    hits: [hit('c-answer', 4, ['concert', 'perform']), hit('c-other', 1, ['concert'])],
    weights: [weight('concert', 3), weight('perform', 5)],
    pairs: [
      { chunk_id: 'c-answer', memory_id: 'm-singer' },
      { chunk_id: 'c-answer', memory_id: 'm-voice' },
      { chunk_id: 'c-other', memory_id: 'm-ticket' },
    ],
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
