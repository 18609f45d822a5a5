import { describe, expect, it } from 'vitest';
import { asksAboutPast, asksAboutTime, asksOnly, hasTimeExpression, namesParticipant, queryWords } from './query-intent.js';
import { minMax, zScores } from './scoring.js';

describe('query intent', () => {
  it('tells questions about time from others', () => {
    for (const q of [
      'When did Melanie paint a sunrise?',
      'How long has Jon been dancing?',
      'Since when is the API public?',
      'What year did we move?',
      '我们什么时候上线？',
    ])
      expect(asksAboutTime(q), q).toBe(true);
    for (const q of ['What did Melanie paint?', 'Which database did we choose?', 'Where has Melanie camped?']) expect(asksAboutTime(q), q).toBe(false);
  });

  it('finds time expressions in text', () => {
    for (const t of [
      'I went there last week.',
      'We met on 8 May, 2023.',
      'It was two days ago',
      'See you on Friday!',
      'Deploy on 2024-03-01',
      '我们去年去了北京',
    ])
      expect(hasTimeExpression(t), t).toBe(true);
    for (const t of ['That painting is lovely.', 'We use PostgreSQL with pgvector.']) expect(hasTimeExpression(t), t).toBe(false);
  });

  it('matches a participant named in the query, stopwords and possessives included', () => {
    const words = queryWords("What do Melanie's kids like?");
    expect(namesParticipant(words, 'Melanie')).toBe(true);
    expect(namesParticipant(words, 'Caroline')).toBe(false);
    expect(namesParticipant(queryWords('What did May say about the trip?'), 'May')).toBe(true);
    expect(namesParticipant(words, null)).toBe(false);
  });
});

describe('score normalisation', () => {
  it('z-scores count a candidate a retriever missed as its lowest returned score', () => {
    const z = zScores(
      ['a', 'b', 'c'],
      new Map([
        ['a', 3],
        ['b', 1],
      ]),
    );
    expect(z.get('b')).toBeCloseTo(z.get('c') as number);
    expect(z.get('a')).toBeGreaterThan(0);
    expect([...z.values()].reduce((x, y) => x + y, 0)).toBeCloseTo(0);
    expect(zScores(['a'], new Map()).size).toBe(0);
  });

  it('scales to [0, 1] with the best at 1', () => {
    const f = minMax([-1, 0, 3]);
    expect([f(-1), f(3)]).toEqual([0, 1]);
    expect(minMax([2, 2])(2)).toBe(1);
  });
});

describe('asksAboutPast', () => {
  it.each([
    'What database did we use before SQLite?',
    'Where did Caroline move from?',
    'What was the original plan, previously?',
    'Which editor did I use before we switched?',
    'What did the team use before the migration?',
  ])('asks for an earlier value: %s', (q) => expect(asksAboutPast(q)).toBe(true));
  it.each([
    'Which database does the desktop app use?',
    'When is standup?',
    'Which database did we pick?',
    'How many people have to sign off before I can merge?',
    'What should I run before we deploy?',
    'Which branch do I work on until the release ships?',
  ])('asks for the current value: %s', (q) => expect(asksAboutPast(q)).toBe(false));
});

describe('asksOnly', () => {
  it.each([
    'Sure. Which region are they in?',
    'Noted. When do you ship?',
    "Of course. What's it about, and who's supervising?",
    'Do you have a time goal?',
    'can you book the boys a dental cleaning',
    'hi, can you help me plan my week around work',
    'also remind me to renew the TLS cert for the status page',
  ])('only asks: %s', (t) => expect(asksOnly(t)).toBe(true));
  it.each([
    'I drive a 2012 Corolla with 190k miles, is it worth fixing the AC?',
    "my phone's a Pixel 7, can you find me a case with a kickstand?",
    'We moved to SQLite. Want me to update the docs?',
    'Sure! Flights, hotel, car?',
    'Thanks!',
    'hey! starting my senior thesis this year, can you help me stay organized',
    'money goals for the year, can you keep track',
    'we moved to SQLite, can you update the docs?',
    'Can you believe it? We adopted a puppy last week!',
  ])('states something, or too little to tell: %s', (t) => expect(asksOnly(t)).toBe(false));
});
