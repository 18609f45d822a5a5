import { describe, expect, it } from 'vitest';
import { countTokens } from '../domain/tokens.js';
import { mergeOverlapping, nearIdentical, packBlock, type PackCandidate } from './pack.js';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const fact = (n: number, text: string, events: string[] = [id(100 + n)]): PackCandidate => ({
  section: 'facts',
  type: 'memory',
  id: id(n),
  event_ids: events,
  text,
  date: '2026-03-02',
  current: true,
  score: 1,
});
const chunk = (n: number, text: string, event = id(200 + n), extra: Partial<PackCandidate> = {}): PackCandidate => ({
  section: 'evidence',
  type: 'chunk',
  id: id(n),
  event_id: event,
  text,
  date: '2026-03-01',
  current: true,
  score: 0.5,
  ...extra,
});

describe('packBlock', () => {
  const many = Array.from({ length: 60 }, (_, i) =>
    // Distinct words per item: similar texts would be left out as near-identical.
    i < 10 ? fact(i, `Fact number ${i} about k${i}a k${i}b k${i}c.`) : chunk(i, `Turn ${i}: we talked about t${i}a t${i}b t${i}c t${i}d today.`),
  );

  it('never exceeds the budget, headings included, and fills most of it', () => {
    for (const budget of [50, 100, 300, 1000, 2000]) {
      const p = packBlock(many, budget);
      expect(p.tokens).toBe(countTokens(p.markdown));
      expect(p.tokens, `budget ${budget}`).toBeLessThanOrEqual(budget);
      if (budget >= 300) expect(p.tokens, `budget ${budget}`).toBeGreaterThan(budget * 0.8);
    }
  });

  it('puts the facts before the evidence, each line dated with its source id', () => {
    const p = packBlock(many, 1000);
    expect(p.markdown.indexOf('## Current facts')).toBe(0);
    expect(p.markdown.indexOf('## Evidence')).toBeGreaterThan(p.markdown.lastIndexOf('Fact number'));
    expect(p.markdown).toContain(`- 2026-03-02: Fact number 0 about k0a k0b k0c. (memory ${id(0)})`);
    expect(p.markdown).toContain(`- 2026-03-01: Turn 10: we talked about t10a t10b t10c t10d today. (event ${id(210)})`);
  });

  it('leaves out a chunk of a listed fact’s event and a near-identical text; merges overlapping chunks of one event', () => {
    const p = packBlock(
      [
        fact(1, 'We moved the desktop client to SQLite.', [id(500)]),
        chunk(2, 'We moved the desktop client from Postgres to SQLite, the installer was too big.', id(500)),
        chunk(3, 'we moved the desktop client to SQLite!'),
        chunk(4, 'First part of a long note. The shared middle sentence of both chunks.', id(600)),
        chunk(5, 'The shared middle sentence of both chunks. Last part of the note.', id(600)),
      ],
      1000,
    );
    expect(p.items.map((i) => i.id)).toEqual([id(1), id(4)]);
    expect(p.items[1]).toMatchObject({
      text: 'First part of a long note. The shared middle sentence of both chunks. Last part of the note.',
      merged_ids: [id(4), id(5)],
    });
  });

  it('dates a fact about another day as recall results do', () => {
    const p = packBlock([{ ...fact(1, 'The release is due.'), about: '2026-03-20' }], 200);
    expect(p.markdown).toContain(`- 2026-03-02, about 2026-03-20: The release is due. (memory ${id(1)})`);
  });

  it('marks evidence that no longer holds with what replaced it and when', () => {
    const p = packBlock(
      [
        chunk(1, 'For the desktop app we use Postgres.', id(700), {
          current: false,
          replaced_by: { id: id(9), text: 'We moved to SQLite.', date: '2026-03-09' },
        }),
      ],
      300,
    );
    expect(p.markdown).toContain('- 2026-03-01: For the desktop app we use Postgres. (replaced by “We moved to SQLite.” on 2026-03-09)');
  });

  it('cuts the first item to fit rather than answering an empty block; passes over a later one that does not fit', () => {
    const long = chunk(1, Array.from({ length: 400 }, (_, i) => `word${i}`).join(' '));
    const p = packBlock([long, chunk(2, 'A short turn that fits.')], 120);
    expect(p.items[0]?.text).toMatch(/^word0 word1 .* …$/);
    expect(p.tokens).toBeLessThanOrEqual(120);
    const q = packBlock([fact(3, 'A short fact.'), long, chunk(2, 'A short turn that fits.')], 120);
    expect(q.items.map((i) => i.id)).toEqual([id(3), id(2)]);
  });

  it('is empty for no candidates', () => {
    expect(packBlock([], 500)).toEqual({ markdown: '', tokens: 0, items: [] });
  });
});

describe('text helpers', () => {
  it('nearIdentical: normalised equality, containment, or most words shared', () => {
    expect(nearIdentical('Standup is at 10:15.', 'standup is at 10 15')).toBe(true);
    expect(nearIdentical('Postgres', 'We use Postgres for the desktop app')).toBe(true);
    expect(nearIdentical('We use Postgres for the desktop app', 'We use SQLite for the mobile app')).toBe(false);
    expect(nearIdentical('art', 'We went to a party')).toBe(false);
  });

  it('mergeOverlapping joins at the common run, keeps a contained text, else joins with an ellipsis', () => {
    expect(mergeOverlapping('alpha beta gamma delta kappa', 'gamma delta kappa epsilon')).toBe('alpha beta gamma delta kappa epsilon');
    expect(mergeOverlapping('gamma delta kappa epsilon', 'alpha beta gamma delta kappa')).toBe('alpha beta gamma delta kappa epsilon');
    expect(mergeOverlapping('one two three', 'two')).toBe('one two three');
    expect(mergeOverlapping('one', 'two')).toBe('one … two');
  });
});
