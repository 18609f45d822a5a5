import { describe, expect, it } from 'vitest';
import type { MemoryKind } from '../../../domain/vocabulary.js';
import { HeuristicLlm } from './index.js';

const llm = new HeuristicLlm();

/** Kinds of the memories extracted from one message said by `speaker`. */
async function kindsOf(content: string, speaker = 'Dana'): Promise<MemoryKind[]> {
  const { result } = await llm.extract({
    messages: [{ index: 0, type: 'message', role: 'user', speaker, content, occurredAt: '2024-03-14T10:00:00.000Z' }],
    knownEntities: [],
  });
  return result.memories.map((m) => m.kind);
}

const FOUND: Array<[MemoryKind, string]> = [
  ['decision', 'We decided to move the job queue to Redis.'],
  ['decision', "Decision: we'll use pgvector for similarity search."],
  ['decision', "Let's go with the monthly billing plan."],
  ['decision', 'The team agreed to freeze the API until the launch.'],
  ['decision', '我们决定使用PostgreSQL作为数据库。'],
  ['preference', 'I prefer dark roast coffee over tea.'],
  ['preference', 'I love hiking in the mountains with my dog.'],
  ['preference', 'I hate waking up early on weekends.'],
  ['preference', 'My favorite band is Radiohead.'],
  ['preference', 'I never drink alcohol at work events.'],
  ['preference', '我喜欢喝咖啡。'],
  ['plan', "Next week I'm flying to Tokyo for a conference."],
  ['plan', 'I plan to finish the migration by Friday.'],
  ['plan', 'Todo: update the README with the new environment variables.'],
  ['plan', "We're thinking about going camping next month."],
  ['plan', '我打算下个月去上海出差。'],
  ['procedure', 'To reset the database, run `npm run db:reset` and restart the worker.'],
  ['procedure', 'First install the CLI, then run `memloom init` in your project.'],
  ['procedure', 'Always run `npx vitest run` before pushing to main.'],
  ['profile', 'I work as a data engineer at Acme.'],
  ['profile', 'My name is Dana and I live in Berlin.'],
  ['profile', "I'm a nurse at the children's hospital."],
  ['profile', 'I have two kids and a very lazy cat.'],
  ['profile', '我是一名软件工程师，住在杭州。'],
  ['fact', 'Caroline went to the LGBTQ support group with her mentor.'],
  ['fact', 'The API runs on port 8787.'],
  ['fact', 'The billing service stores invoices in S3.'],
  ['episode', 'Yesterday I went hiking with my brother.'],
  // A change the speakers made is a decision, past tense or not (the office is in Shanghai now).
  ['decision', 'Last week we moved the office to Shanghai.'],
  ['decision', 'We switched the desktop client from Postgres to SQLite.'],
  ['decision', 'From now on we deploy on Fridays.'],
  ['episode', 'I ran a charity race for mental health last Saturday.'],
  ['episode', '昨天我去了北京的故宫。'],
  ['insight', 'I realized that most of our latency comes from cold starts.'],
  ['insight', 'Lesson learned: always pin your dependencies in production.'],
  ['insight', 'Turns out the bug was in the retry logic all along.'],
];

const NOTHING: Array<[string, string]> = [
  ['a question', 'Do you prefer tea or coffee?'],
  ['a question about a decision', 'What did you decide about the database?'],
  ['a question about the past', 'Did you go to the gym yesterday?'],
  ['a Chinese question', '你喜欢咖啡吗？'],
  ['a question without its mark', 'is a HYSA worth it over my regular savings'],
  ['a how-to question without its mark', 'how do I roll back a bad deploy'],
  ['a one-off request', 'can you look up prices for Jump Zone on Route 9'],
  ['a request beside a verbless lead-in', 'first week of spring semester, help me set up my calendar'],
  ['an acknowledgement', 'ok thanks'],
  ['a greeting', 'Hey Mel! Good to see you!'],
  ['filler', 'haha wow'],
  ['thanks', 'thanks!'],
  ['a reaction', "That's so cool!"],
  ['a compliment to the listener', "You're so inspiring, keep it up!"],
  ['an insight cue that is too short', 'Turns out, yes.'],
];

describe('memory kinds', () => {
  it.each(FOUND)('finds a %s in %j', async (kind, content) => {
    expect(await kindsOf(content)).toContain(kind);
  });

  it.each(NOTHING)('finds nothing in %s (%j)', async (_what, content) => {
    expect(await kindsOf(content)).toEqual([]);
  });

  it('does not mistake near misses for the kind their words suggest', async () => {
    expect(await kindsOf('I love that!')).toEqual([]); // a reaction, not a preference
    expect(await kindsOf('Did you decide to use Redis?')).toEqual([]);
    expect(await kindsOf("I'll never forget it!")).toEqual([]);
    expect(await kindsOf('I went hiking yesterday, have you been?')).toEqual(['episode']); // the tag question is dropped
  });

  it('keeps the statement beside a one-off request, and standing requests as preferences', async () => {
    const { result } = await llm.extract({
      messages: [
        { index: 0, type: 'message', role: 'user', content: 'I just became scrum master, help me plan the ceremonies', occurredAt: '2024-03-14T10:00:00.000Z' },
        {
          index: 1,
          type: 'message',
          role: 'user',
          content: 'I use Neovim as my editor, please give me vim keybindings.',
          occurredAt: '2024-03-14T10:01:00.000Z',
        },
      ],
      knownEntities: [],
    });
    expect(result.memories.map((m) => m.content)).toEqual([
      'The user just became scrum master',
      'The user uses Neovim as their editor, please give them vim keybindings.',
    ]);
  });

  it('grades importance by kind and emphasis, and confidence by hedging', async () => {
    const run = async (content: string) =>
      (await llm.extract({ messages: [{ index: 0, type: 'message', speaker: 'Dana', content, occurredAt: '2024-03-14T10:00:00.000Z' }], knownEntities: [] }))
        .result.memories[0];
    const decision = await run('We decided to use Redis for the queue.');
    const critical = await run('We decided it is critical to use Redis for the queue.');
    const hedged = await run("I'm probably going to try Kafka next quarter.");
    const sure = await run("I'm going to try Kafka next quarter.");
    expect(decision?.importance).toBe(8);
    expect(critical?.importance).toBe(9);
    expect(hedged?.kind).toBe('plan');
    expect(sure?.kind).toBe('plan');
    expect(hedged?.confidence).toBeLessThan(sure?.confidence ?? 0);
    for (const m of [decision, critical, hedged, sure]) {
      expect(m?.confidence).toBeGreaterThanOrEqual(0.5);
      expect(m?.confidence).toBeLessThanOrEqual(0.9);
    }
  });
});
