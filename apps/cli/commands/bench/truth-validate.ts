import type { TruthScenario } from './truth-scenarios.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?Z$/;
// Scenario and user ids become parts of memloom user and session ids (`<scenario>-<user>`).
const ID = /^[a-z0-9][a-z0-9-]{0,79}$/;
// An as_of this long after the scenario's last event is a typo in a date, not a check.
const AS_OF_SLACK_MS = 90 * 86_400_000;

/**
 * The problems of a scenario list, one sentence each (empty when the list is sound): ids unique
 * and usable in memloom ids, at least two sessions, dates ISO 8601 in UTC, every question's user
 * present in its scenario, every `as_of` after that user's first event and at most 90 days after
 * the scenario's last, and every question checking something. The bench runs it at start and stops on any problem.
 */
export function validateScenarios(scenarios: TruthScenario[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const s of scenarios) {
    const at = (what: string) => problems.push(`${s.id}: ${what}`);
    if (!ID.test(s.id)) at('the id must be lowercase letters, digits and dashes');
    if (seen.has(s.id)) at('the id is used twice');
    seen.add(s.id);
    if (s.set !== 'tune' && s.set !== 'check' && s.set !== 'holdout') at(`unknown set ${String(s.set)}`);
    if (new Set(s.events.map((e) => e.session)).size < 2) at('fewer than two sessions');
    const firstOf = new Map<string, number>();
    let last = -Infinity;
    s.events.forEach((e, i) => {
      if (!ID.test(e.user)) at(`event ${i}: the user must be lowercase letters, digits and dashes`);
      if (!ID.test(e.session)) at(`event ${i}: the session must be lowercase letters, digits and dashes`);
      if (e.content.trim() === '') at(`event ${i}: empty content`);
      const t = parseUtc(e.at);
      if (t === undefined) at(`event ${i}: "${e.at}" is not an ISO 8601 time in UTC`);
      else {
        firstOf.set(e.user, Math.min(firstOf.get(e.user) ?? Infinity, t));
        last = Math.max(last, t);
      }
    });
    s.questions.forEach((q, i) => {
      const first = firstOf.get(q.user);
      if (first === undefined) at(`question ${i}: user ${q.user} has no event in the scenario`);
      if (q.query.trim() === '') at(`question ${i}: empty query`);
      const lists = [q.current, q.stale, ...(q.as_of ?? []).flatMap((c) => [c.expect, c.not])];
      if (lists.some((l) => l?.some((x) => x.trim() === ''))) at(`question ${i}: an empty expected string`);
      if (q.never_said && (q.current || q.stale || q.as_of)) at(`question ${i}: a never_said question expects nothing else`);
      if (!q.never_said && !q.current?.length && !q.as_of?.length) at(`question ${i}: checks nothing`);
      for (const c of q.as_of ?? []) {
        const t = parseUtc(c.at);
        if (t === undefined) at(`question ${i}: as_of "${c.at}" is not an ISO 8601 time in UTC`);
        else if (first !== undefined && t <= first) at(`question ${i}: as_of ${c.at} is not after the user's first event`);
        else if (t > last + AS_OF_SLACK_MS) at(`question ${i}: as_of ${c.at} is more than 90 days after the last event`);
        if (c.expect.length === 0) at(`question ${i}: as_of ${c.at} expects nothing`);
      }
    });
  }
  return problems;
}

function parseUtc(s: string): number | undefined {
  const t = Date.parse(s);
  return ISO_UTC.test(s) && Number.isFinite(t) ? t : undefined;
}

// Question words that say nothing about the subject ("What is my dog's name?" is about "dog").
const QUESTION_WORDS = new Set(
  'a an the is are was were do does did what whats which who whos when where how my our we i me you your of at in on to for with usually go see use called name names'.split(
    ' ',
  ),
);

/**
 * The subject words of each never_said question that do appear in its user's events: a
 * never-said question must be about words the user never wrote, or it is not never-said.
 */
export function neverSaidOverlaps(s: TruthScenario): Array<{ query: string; words: string[] }> {
  const out: Array<{ query: string; words: string[] }> = [];
  for (const q of s.questions.filter((x) => x.never_said)) {
    const said = new Set(s.events.filter((e) => e.user === q.user).flatMap((e) => words(e.content)));
    const overlap = words(q.query).filter((w) => !QUESTION_WORDS.has(w) && said.has(w));
    if (overlap.length > 0) out.push({ query: q.query, words: overlap });
  }
  return out;
}

/** Lowercase words without a possessive 's and apostrophes ("What's" → "whats", "dog's" → "dog"). */
export function words(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9][a-z0-9'’-]*/g) ?? []).map((w) => w.replace(/['’]s$/, '').replace(/['’]/g, ''));
}
