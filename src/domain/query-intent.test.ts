import { describe, expect, it } from 'vitest';
import {
  asksAboutPast,
  asksAboutTime,
  asksAssistant,
  asksOnly,
  expectedShapes,
  hasTimeExpression,
  holdsShape,
  namesParticipant,
  queryWords,
  withoutPresentPhrases,
} from './query-intent.js';
import { ftsQuery } from './text.js';
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

  it('reads the shape of value a question asks for', () => {
    const cases: Array<[string, string[]]> = [
      ['what time do we meet for the daily check-in?', ['time']],
      ['Which afternoon do I collect the children from school?', ['date', 'day']],
      ['By what day each month do I have to pay the landlord?', ['date', 'day']],
      ['what am I paying monthly to work out?', ['money']],
      ['How much can I spend on food shopping per month?', ['money', 'quantity']],
      ['how long is an iteration?', ['duration']],
      ['which runtime version should my local nvm be set to?', ['number', 'version']],
      ['How many dogs does Andrew have?', ['duration', 'money', 'number', 'quantity']],
    ];
    for (const [q, kinds] of cases) expect([...expectedShapes(q)].sort(), q).toEqual(kinds);
    // A question for a thing, a person or a place asks for no shape; "how much time" is no amount.
    for (const q of ['What coffee do I usually order?', 'Who is my boss?', 'Where is our app deployed these days?', 'how much time do I have left?'])
      expect([...expectedShapes(q)], q).toEqual([]);
  });

  it('finds a value of the asked shape in a text, not a word of the same topic', () => {
    const time = expectedShapes('what time do we meet for the daily check-in?');
    expect(holdsShape('our standup is at 9:45, fifteen minutes', time)).toBe(true);
    expect(holdsShape('Hi Ana! Nice to meet you.', time)).toBe(false);
    const day = expectedShapes('By what day each month do I have to pay the landlord?');
    expect(holdsShape('the due date moves to the 5th', day)).toBe(true);
    expect(holdsShape('Tuesdays work best for me', day)).toBe(true);
    expect(holdsShape('the landlord is nice', day)).toBe(false);
    const money = expectedShapes('what am I paying monthly to work out?');
    expect(holdsShape('the gym raised the membership to €52 a month', money)).toBe(true);
    expect(holdsShape('A common rule of thumb is 5–10% of take-home pay.', money)).toBe(false);
  });

  it("tells a question about what the assistant said from one about the user's life", () => {
    for (const q of ['What did you recommend for my knee?', 'which plan did you make me last week?', 'what was your advice on the lease?'])
      expect(asksAssistant(q), q).toBe(true);
    for (const q of ['What coffee do I usually order?', 'do you know when my rent is due?', 'where do our builds run right now?'])
      expect(asksAssistant(q), q).toBe(false);
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
    'what do I say to a patient asking whether they can get covid and flu shots together',
    'is a HYSA worth it over my regular savings',
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

describe('withoutPresentPhrases', () => {
  it('leaves out the words that only say "now", so they match no turn about a day', () => {
    const [day] = ftsQuery('days');
    const [moment] = ftsQuery('moment');
    expect(ftsQuery("when's my team's daily check-in these days?")).toContain(day);
    expect(ftsQuery(withoutPresentPhrases("when's my team's daily check-in these days?"))).not.toContain(day);
    expect(ftsQuery(withoutPresentPhrases('Which editor do I use at the moment?'))).not.toContain(moment);
    expect(ftsQuery(withoutPresentPhrases('What did I do on the last day of the trip?'))).toContain(day);
  });
});
