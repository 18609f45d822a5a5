import { describe, expect, it } from 'vitest';
import { session, TUNE_SCENARIOS, type TruthQuestion, type TruthScenario } from './truth-scenarios.js';
import { CHECK_SCENARIOS } from './truth-scenarios-check.js';
import { type AsOfRun, failures, formatTable, holdsAny, type QuestionRun, scoreMode } from './truth-score.js';
import { neverSaidOverlaps, validateScenarios } from './truth-validate.js';

function scenario(over: Partial<TruthScenario> = {}): TruthScenario {
  return {
    id: 'db-move',
    set: 'tune',
    about: 'test',
    events: [
      ...session('dana', 's1', '2026-03-02T09:00:00Z', ['u: the desktop app keeps its data in Postgres', 'a: Got it.']),
      ...session('dana', 's2', '2026-03-16T09:00:00Z', ['u: we moved the desktop client from Postgres to SQLite', 'a: Noted.']),
    ],
    questions: [{ user: 'dana', query: 'Which database?', current: ['SQLite'], stale: ['Postgres'] }],
    ...over,
  };
}

describe('the truth scenarios', () => {
  it('are sound together: ids unique across both sets, users present, dates in UTC, as_of between the first event and 90 days after the last', () => {
    expect(validateScenarios([...TUNE_SCENARIOS, ...CHECK_SCENARIOS])).toEqual([]);
    expect(TUNE_SCENARIOS.every((s) => s.set === 'tune')).toBe(true);
    expect(CHECK_SCENARIOS.every((s) => s.set === 'check')).toBe(true);
  });

  it('tune has at least 40 scenarios, 10 never-said questions and as_of checks in 15 scenarios', () => {
    expect(TUNE_SCENARIOS.length).toBeGreaterThanOrEqual(40);
    expect(TUNE_SCENARIOS.flatMap((s) => s.questions).filter((q) => q.never_said).length).toBeGreaterThanOrEqual(10);
    expect(TUNE_SCENARIOS.filter((s) => s.questions.some((q) => q.as_of?.length)).length).toBeGreaterThanOrEqual(15);
  });

  it("tune's never-said questions use no subject word their user wrote", () => {
    expect(TUNE_SCENARIOS.flatMap((s) => neverSaidOverlaps(s).map((o) => `${s.id}: ${o.query} (${o.words.join(', ')})`))).toEqual([]);
  });

  it("tune's expected strings occur where they should: current in the user's events, stale in an event without a current string", () => {
    const wrong: string[] = [];
    for (const s of TUNE_SCENARIOS) {
      for (const q of s.questions.filter((x) => !x.never_said)) {
        const own = s.events.filter((e) => e.user === q.user);
        if (q.current && !own.some((e) => holdsAny(e.content, q.current))) wrong.push(`${s.id}: no event holds ${q.current}`);
        if (q.stale && !s.events.some((e) => holdsAny(e.content, q.stale) && !holdsAny(e.content, q.current))) wrong.push(`${s.id}: no stale-only event`);
        for (const c of q.as_of ?? []) {
          const then = own.filter((e) => Date.parse(e.at) <= Date.parse(c.at));
          if (!then.some((e) => holdsAny(e.content, c.expect) && !holdsAny(e.content, c.not))) wrong.push(`${s.id}: nothing right at ${c.at}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('validation names each kind of problem', () => {
    const lone = scenario({ id: 'lone', events: session('dana', 's1', '2026-03-02T09:00:00Z', ['u: hello']) });
    const problems = validateScenarios([
      scenario(),
      scenario(),
      lone,
      scenario({ id: 'Bad Id' }),
      scenario({ id: 'no-z', events: [{ ...(scenario().events[0] as TruthScenario['events'][number]), at: '2026-03-02T09:00:00' }, ...scenario().events] }),
      scenario({ id: 'stranger', questions: [{ user: 'omar', query: 'Which database?', current: ['SQLite'] }] }),
      scenario({ id: 'early', questions: [{ user: 'dana', query: 'q', as_of: [{ at: '2026-01-01T00:00:00Z', expect: ['Postgres'] }] }] }),
      scenario({ id: 'late', questions: [{ user: 'dana', query: 'q', as_of: [{ at: '2027-03-20T00:00:00Z', expect: ['SQLite'] }] }] }),
      scenario({ id: 'empty', questions: [{ user: 'dana', query: 'q' }] }),
      scenario({ id: 'mixed', questions: [{ user: 'dana', query: 'q', never_said: true, current: ['x'] }] }),
    ]);
    expect(problems).toEqual([
      'db-move: the id is used twice',
      'lone: fewer than two sessions',
      'Bad Id: the id must be lowercase letters, digits and dashes',
      'no-z: event 0: "2026-03-02T09:00:00" is not an ISO 8601 time in UTC',
      'stranger: question 0: user omar has no event in the scenario',
      "early: question 0: as_of 2026-01-01T00:00:00Z is not after the user's first event",
      'late: question 0: as_of 2027-03-20T00:00:00Z is more than 90 days after the last event',
      'empty: question 0: checks nothing',
      'mixed: question 0: a never_said question expects nothing else',
    ]);
  });

  it('a never-said question about a word the user wrote is reported', () => {
    const s = scenario({ questions: [{ user: 'dana', query: "What's the desktop app's database?", never_said: true }] });
    expect(neverSaidOverlaps(s)).toEqual([{ query: "What's the desktop app's database?", words: ['desktop', 'app'] }]);
  });
});

describe('truth scoring', () => {
  const changed: TruthQuestion = { user: 'dana', query: 'Which database?', current: ['SQLite'], stale: ['Postgres'] };
  const never: TruthQuestion = { user: 'dana', query: 'Who is Priya?', never_said: true };
  const run = (question: TruthQuestion, top: string | undefined, match?: 'strong' | 'weak' | 'none', mode: QuestionRun['mode'] = 'chunks'): QuestionRun => ({
    scenario: 'db-move',
    set: 'tune',
    mode,
    question,
    ...(top === undefined ? {} : { top }),
    ...(match ? { match } : {}),
  });
  const asOf = (top: string): AsOfRun => ({
    scenario: 'db-move',
    set: 'tune',
    query: 'Which database?',
    check: { at: '2026-03-10T00:00:00Z', expect: ['Postgres'], not: ['SQLite'] },
    top,
  });

  it('counts a change statement naming both values as current, case-insensitively, and an old statement as stale', () => {
    const runs = [
      run(changed, 'We moved the desktop client from Postgres to sqlite', 'strong'),
      run(changed, 'the desktop app keeps its data in Postgres', 'strong'),
      run(changed, 'morning!', 'weak'),
      run(changed, undefined, 'none'),
    ];
    const f = scoreMode('chunks', runs, []);
    expect(f.currentFirst).toEqual({ hit: 1, of: 4 });
    expect(f.staleFirst).toBe(1);
    expect(f.falseNone).toBe(1);
    expect(f.asOfRight).toBeUndefined();
  });

  it('counts never-said questions answered "none", a missing match as not none, and keeps modes apart', () => {
    const runs = [run(never, 'hello', 'none'), run(never, 'hello'), run(never, 'hello', 'weak'), run(never, 'x', 'none', 'graph')];
    const f = scoreMode('chunks', runs, []);
    expect(f.noneOnNeverSaid).toEqual({ hit: 1, of: 3 });
    expect(f.withoutMatch).toBe(1);
    expect(f.currentFirst).toEqual({ hit: 0, of: 0 });
    expect(scoreMode('graph', runs, []).noneOnNeverSaid).toEqual({ hit: 1, of: 1 });
  });

  it('scores as_of in memories only: the expected value and none of the excluded ones', () => {
    const checks = [asOf('the desktop app keeps its data in Postgres'), asOf('moved from Postgres to SQLite'), asOf('morning!')];
    expect(scoreMode('memories', [], checks).asOfRight).toEqual({ hit: 1, of: 3 });
    expect(scoreMode('auto', [], checks).asOfRight).toBeUndefined();
  });

  it('prints a row per set and mode, and one failure line per miss', () => {
    const runs = [run(changed, 'data in Postgres', 'strong'), { ...run(changed, 'SQLite now', 'strong'), set: 'check' as const }, run(never, 'hi')];
    const table = formatTable(runs, [asOf('SQLite')]).split('\n');
    expect(table.map((l) => l.split(/\s+/).slice(0, 2).join(' '))).toEqual(['set mode', 'tune chunks', 'check chunks', 'all chunks']);
    expect(failures(runs, [asOf('SQLite')])).toEqual([
      '[stale first] db-move chunks "Which database?" → "data in Postgres" match=strong',
      '[never said, not none] db-move chunks "Who is Priya?" → "hi" match=(missing)',
      '[as_of 2026-03-10T00:00:00Z] db-move memories "Which database?" → "SQLite" match=(missing)',
    ]);
  });
});
