import { describe, expect, it } from 'vitest';
import { archiveBlockers, decayValue, reinforcedAgeDays, type ArchiveInput, type DecayInput } from './decay.js';

const DAY = 86_400_000;
const now = new Date('2026-11-29T00:00:00Z');
const ago = (days: number) => new Date(now.getTime() - days * DAY);
const policy = { halfLifeDays: 30, importanceFloor: 7 };
const fact = (over: Partial<DecayInput> = {}): DecayInput => ({
  kind: 'fact',
  importance: 5,
  occurredAt: ago(0),
  lastAccessedAt: null,
  accessCount: 0,
  ...over,
});

describe('decay', () => {
  it('halves every half-life and starts at 1', () => {
    expect(decayValue(fact(), policy, now)).toBe(1);
    expect(decayValue(fact({ occurredAt: ago(30) }), policy, now)).toBeCloseTo(0.5, 4);
    expect(decayValue(fact({ occurredAt: ago(60) }), policy, now)).toBeCloseTo(0.25, 4);
    expect(decayValue(fact({ occurredAt: ago(300) }), policy, now)).toBeLessThanOrEqual(0.001);
  });

  it('is lifted by the log-frequency of access and capped at 1', () => {
    const old = { occurredAt: ago(60) };
    const none = decayValue(fact(old), policy, now);
    const few = decayValue(fact({ ...old, accessCount: 3 }), policy, now);
    const many = decayValue(fact({ ...old, accessCount: 300 }), policy, now);
    expect(few).toBeCloseTo(0.25 * (1 + Math.log1p(3)), 4);
    expect(few).toBeGreaterThan(none);
    expect(many).toBe(1);
  });

  it('counts age from the last reinforcement: the latest event or the last recall', () => {
    expect(reinforcedAgeDays({ occurredAt: ago(100), lastAccessedAt: ago(10) }, now)).toBeCloseTo(10, 6);
    expect(reinforcedAgeDays({ occurredAt: ago(-5), lastAccessedAt: null }, now)).toBe(0);
  });

  it('keeps protected decisions and insights above the archive threshold, not other kinds', () => {
    const ancient = { occurredAt: ago(2000) };
    expect(decayValue(fact({ ...ancient, kind: 'decision', importance: 8 }), policy, now)).toBe(0.4);
    expect(decayValue(fact({ ...ancient, kind: 'insight', importance: 7 }), policy, now)).toBe(0.35);
    expect(decayValue(fact({ ...ancient, kind: 'decision', importance: 6 }), policy, now)).toBe(0);
    expect(decayValue(fact({ ...ancient, kind: 'procedure', importance: 9 }), policy, now)).toBe(0);
  });
});

describe('archive conditions', () => {
  const archivable: ArchiveInput = {
    kind: 'fact',
    importance: 5,
    status: 'active',
    decay: 0.01,
    accessCount: 0,
    hasFeedback: false,
    createdAt: ago(200),
    occurredAt: ago(200),
  };

  it('archives only when all four conditions hold', () => {
    expect(archiveBlockers(archivable, policy, now)).toEqual([]);
  });

  it('each condition alone blocks archiving', () => {
    expect(archiveBlockers({ ...archivable, decay: 0.05 }, policy, now)).toEqual(['decay']);
    expect(archiveBlockers({ ...archivable, accessCount: 1 }, policy, now)).toEqual(['interactions']);
    expect(archiveBlockers({ ...archivable, hasFeedback: true }, policy, now)).toEqual(['interactions']);
    expect(archiveBlockers({ ...archivable, createdAt: ago(89) }, policy, now)).toEqual(['age']);
    expect(archiveBlockers({ ...archivable, occurredAt: ago(89) }, policy, now)).toEqual(['age']);
    expect(archiveBlockers({ ...archivable, status: 'superseded' }, policy, now)).toEqual(['status']);
    expect(archiveBlockers({ ...archivable, kind: 'decision', importance: 7 }, policy, now)).toEqual(['importance_floor']);
  });

  it('does not protect decisions under the importance floor', () => {
    expect(archiveBlockers({ ...archivable, kind: 'decision', importance: 6 }, policy, now)).toEqual([]);
  });
});
