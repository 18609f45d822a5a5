import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../src/db/pool.js';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';

/**
 * Dates as users ask them and speakers however they arrive (docs/recall.md "Dates", "Speakers"),
 * end to end: relative dates resolved at ingest into the chunk's key, a question naming a date
 * favouring evidence from then, and a `Name: ` prefix recognised as the speaker.
 */
let m: TestMemloom;

beforeAll(async () => {
  m = await startTestMemloom({ roles: { workers: QUEUE_NAMES } });
  const turn = (session: string, occurred_at: string, content: string, speaker?: string) => ({
    user_id: 'cal',
    session_id: session,
    occurred_at,
    content,
    ...(speaker ? { metadata: { speaker } } : {}),
  });
  const events = [
    turn('s1', '2023-09-10T18:00:00Z', 'I was in Boston for the concert, what a crowd.', 'Calvin'),
    turn('s1', '2023-09-10T18:01:00Z', 'Sounds amazing, I love live music.', 'Dave'),
    // Said on Wednesday 4 October 2023: "yesterday" is 3 October.
    turn('s2', '2023-10-04T18:00:00Z', 'Yesterday I was in Tokyo for the concert, what a crowd.', 'Calvin'),
    turn('s2', '2023-10-04T18:01:00Z', 'Wow, that must have been loud.', 'Dave'),
    turn('s3', '2023-10-20T18:00:00Z', 'I was in Lisbon for the concert, what a crowd.', 'Calvin'),
    // The same words on two days: only the date tells them apart.
    turn('s5', '2023-08-14T20:00:00Z', 'We watched a great movie at the cinema tonight.', 'Calvin'),
    turn('s6', '2023-11-21T20:00:00Z', 'We watched a great movie at the cinema tonight.', 'Calvin'),
    // No metadata: the speaker is in the content.
    turn('s4', '2023-11-02T10:00:00Z', 'Caroline: I went to a pottery class with my kids.'),
    turn('s4', '2023-11-02T10:01:00Z', 'Melanie: I went to a yoga class on my own.'),
    turn('s4', '2023-11-02T10:02:00Z', 'Note: the class schedule changed.'),
  ];
  expect((await postJson(`${m.url}/v1/events`, { events })).status).toBe(202);
  await waitFor(
    async () => {
      const s = (await getJson(`${m.url}/v1/stats`)).body;
      return s.objects.events === events.length && s.pending_events === 0;
    },
    { timeoutMs: 90_000, what: 'pipeline' },
  );
}, 120_000);
afterAll(async () => m?.close());

const recall = async (query: string) => {
  const r = await postJson(`${m.url}/v1/recall`, { query, user_id: 'cal', limit: 5 });
  expect(r.status).toBe(200);
  return (r.body as { results: Array<{ content: string }> }).results.map((x) => x.content);
};

describe('dates', () => {
  it('finds an event that says "yesterday" on 4 October by a question about 3 October', async () => {
    for (const q of [
      'Which city was Calvin in on October 3, 2023?',
      'Where was Calvin on 3 October 2023?',
      'Where was Calvin for the concert on 2023-10-03?',
    ]) {
      expect((await recall(q))[0], q).toBe('Yesterday I was in Tokyo for the concert, what a crowd.');
    }
  });

  it('favours evidence from the day or month a question names', async () => {
    expect((await recall('Where was Calvin for the concert on October 20, 2023?'))[0]).toBe('I was in Lisbon for the concert, what a crowd.');
    const when = async (query: string) => {
      const r = await postJson(`${m.url}/v1/recall`, { query, user_id: 'cal', limit: 2 });
      return (r.body as { results: Array<{ occurred_at: string }> }).results.map((x) => x.occurred_at.slice(0, 10));
    };
    for (const [q, day] of [
      ['What movie did Calvin watch at the cinema on August 14, 2023?', '2023-08-14'],
      ['What movie did Calvin watch at the cinema on 21 November 2023?', '2023-11-21'],
      ['What movie did Calvin watch at the cinema in November 2023?', '2023-11-21'],
      ['What movie did Calvin watch at the cinema in August 2023?', '2023-08-14'],
    ]) {
      expect((await when(q as string))[0], q).toBe(day);
    }
  });

  it('keeps the resolved date and the day of the month in the chunk key', async () => {
    const keys = await withTenant(m.deps.db, 'default', async (tx) => {
      const { rows } = await tx.query<{ content: string; fts: string }>(`SELECT content, fts::text FROM chunks WHERE user_id = 'cal'`);
      return new Map(rows.map((r) => [r.content, r.fts]));
    });
    const tokyo = keys.get('Yesterday I was in Tokyo for the concert, what a crowd.') ?? '';
    for (const word of ["'3'", "'4'", "'octob'", "'2023'", "'tuesdai'", "'wednesdai'"]) expect(tokyo, word).toContain(word);
    expect(keys.get('I was in Boston for the concert, what a crowd.')).not.toContain("'3'");
  });
});

describe('speakers', () => {
  it('takes a `Name: ` prefix as the speaker, keeping the content as sent', async () => {
    const { speakers, keys } = await withTenant(m.deps.db, 'default', async (tx) => {
      const ev = await tx.query<{ content: string; speaker: string | null }>(
        `SELECT content, metadata->>'speaker' AS speaker FROM events WHERE session_id = 's4'`,
      );
      const ch = await tx.query<{ content: string; fts: string }>(`SELECT content, fts::text FROM chunks WHERE session_id = 's4'`);
      return { speakers: new Map(ev.rows.map((r) => [r.content, r.speaker])), keys: new Map(ch.rows.map((r) => [r.content, r.fts])) };
    });
    expect(speakers.get('Caroline: I went to a pottery class with my kids.')).toBe('Caroline');
    expect(speakers.get('Melanie: I went to a yoga class on my own.')).toBe('Melanie');
    expect(speakers.get('Note: the class schedule changed.')).toBeNull();
    expect(keys.get('Melanie: I went to a yoga class on my own.')).toMatch(/'melani':[\d,]+A/);
  });

  it('ranks the named speaker’s turn first, as with the speaker in metadata', async () => {
    expect((await recall('Which class did Melanie go to?'))[0]).toBe('Melanie: I went to a yoga class on my own.');
    expect((await recall('Which class did Caroline go to?'))[0]).toBe('Caroline: I went to a pottery class with my kids.');
  });
});
