import type { TruthQuestion, TruthScenario } from './truth-scenarios.js';

export const TRUTH_MODES = ['chunks', 'memories', 'auto', 'graph'] as const;
export type TruthMode = (typeof TRUTH_MODES)[number];
/** as_of checks are asked in this mode only. */
export const AS_OF_MODE: TruthMode = 'memories';
export type MatchValue = 'strong' | 'weak' | 'none';

/** What one recall answered: the top result's content (none when nothing came back) and `match`, when present. */
export interface Answer {
  top?: string;
  match?: MatchValue;
  /** With `--top K`: the first K results, one line each (content, current, score), shown under a failure. */
  more?: string[];
}

/** One question asked in one mode. */
export interface QuestionRun extends Answer {
  scenario: string;
  set: TruthScenario['set'];
  mode: TruthMode;
  question: TruthQuestion;
}

/** One as_of check (mode memories). */
export interface AsOfRun extends Answer {
  scenario: string;
  set: TruthScenario['set'];
  query: string;
  check: NonNullable<TruthQuestion['as_of']>[number];
}

export interface Ratio {
  hit: number;
  of: number;
}

export interface TruthFigures {
  /** Answerable questions with `current` whose top result holds a current string. */
  currentFirst: Ratio;
  /** Answerable questions whose top result holds a stale string and no current one. */
  staleFirst: number;
  /** as_of checks answered right (only in AS_OF_MODE; undefined in the others). */
  asOfRight?: Ratio;
  /** never_said questions answered match "none". */
  noneOnNeverSaid: Ratio;
  /** Answerable questions answered match "none". */
  falseNone: number;
  /** Answers without a `match` field (counted as "not none"). */
  withoutMatch: number;
}

/** Case-insensitive substring: "from Postgres to SQLite" holds "sqlite". */
export function holdsAny(text: string | undefined, needles: string[] | undefined): boolean {
  if (text === undefined || !needles) return false;
  const t = text.toLowerCase();
  return needles.some((n) => t.includes(n.toLowerCase()));
}

export const isCurrentFirst = (r: QuestionRun) => holdsAny(r.top, r.question.current);
export const isStaleFirst = (r: QuestionRun) => holdsAny(r.top, r.question.stale) && !holdsAny(r.top, r.question.current);
export const isAsOfRight = (r: AsOfRun) => holdsAny(r.top, r.check.expect) && !holdsAny(r.top, r.check.not);

/** The figures of one mode over the runs given (already restricted to a set). */
export function scoreMode(mode: TruthMode, runs: QuestionRun[], asOf: AsOfRun[]): TruthFigures {
  const mine = runs.filter((r) => r.mode === mode);
  const answerable = mine.filter((r) => !r.question.never_said);
  const withCurrent = answerable.filter((r) => r.question.current?.length);
  const neverSaid = mine.filter((r) => r.question.never_said);
  const count = <T>(xs: T[], f: (x: T) => boolean) => xs.filter(f).length;
  return {
    currentFirst: { hit: count(withCurrent, isCurrentFirst), of: withCurrent.length },
    staleFirst: count(answerable, isStaleFirst),
    ...(mode === AS_OF_MODE ? { asOfRight: { hit: count(asOf, isAsOfRight), of: asOf.length } } : {}),
    noneOnNeverSaid: { hit: count(neverSaid, (r) => r.match === 'none'), of: neverSaid.length },
    falseNone: count(answerable, (r) => r.match === 'none'),
    withoutMatch: count(mine, (r) => r.match === undefined) + (mode === AS_OF_MODE ? count(asOf, (r) => r.match === undefined) : 0),
  };
}

/** The table: per set (tune, check, all: the sets that have runs), per mode. */
export function formatTable(runs: QuestionRun[], asOf: AsOfRun[]): string {
  const sets = (['tune', 'check', 'holdout'] as const).filter((s) => runs.some((r) => r.set === s));
  const groups: Array<[string, QuestionRun[], AsOfRun[]]> = sets.map((s) => [s, runs.filter((r) => r.set === s), asOf.filter((a) => a.set === s)]);
  if (sets.length > 1) groups.push(['all', runs, asOf]);
  const ratio = (r: Ratio | undefined) => (r === undefined ? '–' : r.of === 0 ? 'n/a' : `${r.hit}/${r.of} ${((100 * r.hit) / r.of).toFixed(1)}%`);
  const cols = ['set', 'mode', 'current first', 'stale first', 'as_of right', 'none on never-said', 'false none', 'no match field'];
  const widths = [6, 9, 17, 12, 17, 19, 11, 14];
  const row = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join(' ')
      .trimEnd();
  const out = [row(cols)];
  for (const [name, qs, as] of groups) {
    for (const mode of TRUTH_MODES) {
      if (!qs.some((r) => r.mode === mode)) continue;
      const f = scoreMode(mode, qs, as);
      out.push(
        row([
          name,
          mode,
          ratio(f.currentFirst),
          String(f.staleFirst),
          ratio(f.asOfRight),
          ratio(f.noneOnNeverSaid),
          String(f.falseNone),
          String(f.withoutMatch),
        ]),
      );
    }
  }
  return out.join('\n');
}

/** Every failure, one line each, in run order: what was wrong, scenario, mode, query, top result, match. */
export function failures(runs: QuestionRun[], asOf: AsOfRun[]): string[] {
  const line = (what: string, scenario: string, mode: string, query: string, a: Answer) =>
    `[${what}] ${scenario} ${mode} "${query}" → ${a.top === undefined ? '(no result)' : JSON.stringify(clip(a.top))} match=${a.match ?? '(missing)'}` +
    (a.more ?? []).map((m, i) => `\n    ${i + 1}. ${clip(m)}`).join('');
  const out: string[] = [];
  for (const r of runs) {
    const q = r.question;
    if (q.never_said) {
      if (r.match !== 'none') out.push(line('never said, not none', r.scenario, r.mode, q.query, r));
      continue;
    }
    if (r.match === 'none') out.push(line('false none', r.scenario, r.mode, q.query, r));
    if (q.current?.length && !isCurrentFirst(r)) out.push(line(isStaleFirst(r) ? 'stale first' : 'not current', r.scenario, r.mode, q.query, r));
  }
  for (const a of asOf) {
    if (!isAsOfRight(a)) out.push(line(`as_of ${a.check.at}`, a.scenario, AS_OF_MODE, a.query, a));
  }
  return out;
}

function clip(s: string): string {
  const flat = s.replace(/\s+/g, ' ');
  return flat.length > 160 ? `${flat.slice(0, 157)}…` : flat;
}
