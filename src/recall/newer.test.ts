import { describe, expect, it } from 'vitest';
import { ftsQuery } from '../domain/text.js';
import { givesOtherValue, valuesByKind } from '../domain/slot-values.js';
import { asksAboutPresent, preferNewerValues, sameTopic } from './newer.js';
import type { Candidate } from './rank.js';

function candidate(id: string, content: string, day: string, rel: number): Candidate {
  return {
    rel,
    signals: { occurredAt: new Date(`${day}T10:00:00Z`), importance: 5 },
    result: {
      id,
      type: 'chunk',
      content,
      occurred_at: `${day}T10:00:00Z`,
      recorded_at: `${day}T10:00:00Z`,
      source: { event_ids: [`e-${id}`], session_id: null, dataset: null },
    },
  };
}

/** Best first as rank() orders them: relevance, then (fresher) the later statement. */
const order = (cs: Candidate[]) =>
  [...cs].sort((a, b) => b.rel - a.rel || b.signals.occurredAt.getTime() - a.signals.occurredAt.getTime()).map((c) => c.result.id);

describe('newer values among the evidence', () => {
  it('tells a question about the present from one about the past', () => {
    expect(asksAboutPresent("What day is Ethan's music lesson?")).toBe(true);
    expect(asksAboutPresent('Which doctor is working at Eastside right now?')).toBe(true);
    expect(asksAboutPresent('What day was the lesson before it moved?')).toBe(false);
    expect(asksAboutPresent('When did Caroline go to the LGBTQ support group?')).toBe(false);
  });

  it('compares values of the same kind only', () => {
    const monday = valuesByKind('Ethan has piano on Mondays at 4:30');
    expect(givesOtherValue(monday, valuesByKind("Ethan's lesson moves to Wednesdays"))).toBe(true);
    expect(givesOtherValue(monday, valuesByKind('still Mondays at 4:30 for piano'))).toBe(false);
    // An amount is no answer to a weekday.
    expect(givesOtherValue(monday, valuesByKind('the lesson costs $40'))).toBe(false);
    expect(givesOtherValue(valuesByKind('Helix Biotech, $48k a year'), valuesByKind('Helix going up to $62k a year'))).toBe(true);
    // A name given in full later is the same one, not another value.
    expect(givesOtherValue(valuesByKind('big news, Sam made staff!'), valuesByKind('I will update the sheet: Sam Okafor, staff engineer.'))).toBe(false);
    expect(givesOtherValue(valuesByKind('Sam Okafor owns refunds'), valuesByKind('Mei Chen owns refunds now'))).toBe(true);
  });

  it('needs a word of the question and one more shared to call two statements one topic', () => {
    const focus = new Set(ftsQuery("What day is Ethan's music lesson?"));
    const stems = (t: string) => new Set(ftsQuery(t));
    expect(sameTopic(stems('Ethan has piano on Mondays'), stems("Ethan's piano is back on Mondays"), focus)).toBe(true);
    expect(sameTopic(stems('Ethan has piano on Mondays'), stems('Ethan has the dentist on Friday'), focus)).toBe(false);
  });

  it('puts the newest of a chain of values first and marks the older ones', () => {
    const cs = [
      candidate('a', 'Ethan has piano with Mrs. Kowalski on Mondays at 4:30', '2026-02-02', 2.0),
      candidate('b', "Mrs. Kowalski is moving Ethan's piano lesson to Wednesdays at 5", '2026-02-17', 2.5),
      candidate('c', 'scratch the piano change, Ethan is back in his old Monday 4:30 slot', '2026-02-24', -0.1),
      candidate('d', 'Ethan has the dentist on Friday, remind me', '2026-02-25', 0.5),
    ];
    preferNewerValues(cs, "What day is Ethan's piano lesson?", ftsQuery("What day is Ethan's piano lesson?"));
    expect(order(cs)[0]).toBe('c');
    expect(cs.find((c) => c.result.id === 'b')?.result).toMatchObject({ current: false, superseded_by: 'c' });
    expect(cs.find((c) => c.result.id === 'a')?.result.current).toBe(false);
    // The dentist shares only Ethan with the lessons: neither marked nor lifted.
    expect(cs.find((c) => c.result.id === 'd')).toMatchObject({ rel: 0.5 });
    expect(cs.find((c) => c.result.id === 'd')?.result.current).toBeUndefined();
  });

  it('takes two values of the category the question asks for as one topic, without a shared word', () => {
    const cs = [
      candidate('a', 'hey, coffee run: a cortado for me please', '2024-10-01', 2.0),
      candidate('b', 'cutting back on dairy, so from now on my order is an oat latte', '2024-11-12', 0.2),
      candidate('c', 'the coffee machine on our floor is broken again', '2024-11-20', 1.0),
    ];
    preferNewerValues(cs, "what's my usual coffee?", ftsQuery("what's my usual coffee?"));
    expect(order(cs)[0]).toBe('b');
    expect(cs.find((c) => c.result.id === 'a')?.result).toMatchObject({ current: false, superseded_by: 'b' });
    // Names no drink: neither lifted nor marked.
    expect(cs.find((c) => c.result.id === 'c')?.result.current).toBeUndefined();
  });

  it('keeps apart two values of the asked category said of different things', () => {
    const q = "where do mobile users' unsent messages get stored while offline?";
    const cs = [
      candidate('a', 'the mobile app keeps unsent messages in SQLite while offline', '2024-10-01', 2.0),
      candidate('b', 'the web dashboard caches charts in IndexedDB', '2024-11-12', 0.2),
    ];
    preferNewerValues(cs, q, ftsQuery(q));
    expect(order(cs)).toEqual(['a', 'b']);
    expect(cs.every((c) => c.result.current === undefined)).toBe(true);
  });

  it('leaves out what was said after as_of', () => {
    const cs = [
      candidate('a', 'Ethan has piano with Mrs. Kowalski on Mondays at 4:30', '2026-02-02', 2.0),
      candidate('b', "Mrs. Kowalski is moving Ethan's piano lesson to Wednesdays at 5", '2026-02-17', 1.0),
    ];
    preferNewerValues(cs, "What day is Ethan's piano lesson?", ftsQuery("What day is Ethan's piano lesson?"), '2026-02-10T00:00:00Z');
    expect(order(cs)).toEqual(['a', 'b']);
    expect(cs.every((c) => c.result.current === undefined)).toBe(true);
  });

  it('leaves the order alone for a question about the past', () => {
    const cs = [
      candidate('a', 'Ethan has piano with Mrs. Kowalski on Mondays at 4:30', '2026-02-02', 2.0),
      candidate('b', "Mrs. Kowalski is moving Ethan's piano lesson to Wednesdays at 5", '2026-02-17', 1.0),
    ];
    preferNewerValues(cs, "What day was Ethan's piano lesson at first?", ftsQuery("What day was Ethan's piano lesson at first?"));
    expect(order(cs)).toEqual(['a', 'b']);
    expect(cs.every((c) => c.result.current === undefined)).toBe(true);
  });
});
