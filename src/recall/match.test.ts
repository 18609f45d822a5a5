import { describe, expect, it } from 'vitest';
import type { TermWeight } from '../db/sql/recall-bm25.js';
import { MATCH_STRONG, MATCH_WEAK } from '../domain/scoring.js';
import { belowFloor, cover, focusWeights, matchOf, vectorFloor } from './match.js';
import { rankWithFloor } from './rank.js';

const weight = (term: string, df: number, n = 50): TermWeight => ({ term, w: Math.log(1 + (n - df + 0.5) / (df + 0.5)), df, avgdl: 10, n });

describe('the match floor', () => {
  it('weighs a query term never stored highest, and leaves generic question words out', () => {
    const focus = focusWeights(['databas', 'desktop', 'us', 'current'], [weight('databas', 0), weight('desktop', 5), weight('us', 30)]);
    expect([...focus.keys()]).toEqual(['databas', 'desktop']);
    expect(focus.get('databas')).toBeGreaterThan(focus.get('desktop') as number);
  });

  it('is none when no informative word of the question is stored anywhere near a candidate', () => {
    const focus = focusWeights(['priya'], [weight('priya', 0)]);
    expect(cover(focus, [])).toBe(0);
    expect(matchOf(0, 0.2, vectorFloor('local-hashing-v1'))).toBe('none');
  });

  it('is strong when a candidate holds most of the question, weak when it holds some of it', () => {
    const focus = focusWeights(['desktop', 'app', 'databas'], [weight('desktop', 2), weight('app', 3), weight('databas', 0)]);
    const all = cover(focus, ['desktop', 'app', 'databas']);
    const some = cover(focus, ['app']);
    expect(all).toBe(1);
    expect(matchOf(all, 0, undefined)).toBe('strong');
    expect(some).toBeGreaterThan(MATCH_WEAK);
    expect(some).toBeLessThan(MATCH_STRONG);
    expect(matchOf(some, 0, undefined)).toBe('weak');
  });

  it('lets a semantic embedder vouch for a paraphrase, never the lexical hashing one', () => {
    expect(vectorFloor('local-hashing-v1')).toBeUndefined();
    const floor = vectorFloor('text-embedding-3-small') as number;
    expect(matchOf(0, floor + 0.01, floor)).toBe('weak');
    expect(matchOf(0, floor - 0.01, floor)).toBe('none');
  });

  it('keeps evidence brought in as the replacement of a stale result, whatever its own words', () => {
    expect(belowFloor({ cover: 0, vector: 0 }, undefined)).toBe(true);
    expect(belowFloor({ cover: 0, vector: 0, replacing: true }, undefined)).toBe(false);
    expect(belowFloor({ cover: MATCH_WEAK, vector: 0 }, undefined)).toBe(false);
  });
});

describe('rankWithFloor', () => {
  const cand = (id: string, rel: number, cover: number) => ({
    rel,
    cover,
    signals: { occurredAt: new Date('2026-03-01T00:00:00Z'), importance: 5 },
    result: {
      id,
      type: 'memory' as const,
      content: id,
      occurred_at: '2026-03-01T00:00:00.000Z',
      recorded_at: '2026-03-01T00:00:00.000Z',
      source: { event_ids: [], session_id: null, dataset: null },
    },
  });
  const now = new Date('2026-03-02T00:00:00Z');
  const floor = { vectorFloor: undefined, includeWeak: false };

  it('leaves out what holds no informative word, and answers nothing when nothing does', () => {
    expect(rankWithFloor([cand('a', 1, 0.6), cand('b', 0.5, 0)], now, 10, floor).results.map((r) => r.id)).toEqual(['a']);
    expect(rankWithFloor([cand('a', 1, 0), cand('b', 0.5, 0)], now, 10, floor)).toEqual({ results: [], match: 'none' });
  });

  it('keeps the best candidates when supporting evidence matched though none of them holds the words', () => {
    const r = rankWithFloor([cand('a', 1, 0), cand('b', 0.5, 0)], now, 10, { ...floor, extraCover: 0.4 });
    expect(r.match).toBe('weak');
    expect(r.results.map((x) => x.id)).toEqual(['a', 'b']);
  });
});
