/**
 * Words that name the same thing in everyday and working talk, for the keyword retriever's query
 * (src/db/sql/recall-bm25.ts keywordSearch): a question says "garbage" or "broadband" where the
 * turn said "trash" or "internet". The offline embedder is lexical, so without these a question in
 * other words finds nothing and answers `none`. Each line is one group; a word of the query brings
 * in the other words of its groups at SYNONYM_WEIGHT (src/domain/scoring.ts). The slot reader's
 * subject agreement (src/domain/slot-relate.ts) counts two words of one group as one (synonymous).
 *
 * Hand-written from general knowledge of household, family, health, travel, money, study and
 * software-team vocabulary, after reading the truth scenarios' failures, and pruned where a run
 * showed an ambiguous word (docs/performance-history.md, 2026-12-07 "synonyms"). Two-way groups
 * hold only words that can stand for each other in a question about a fact: not broader or
 * narrower terms (a dog is no cat; "race > marathon" is one-way) and not words whose everyday
 * sense differs in most sentences. Pure, no I/O.
 */
import { ftsQuery } from './text.js';

const GROUPS = `
kid, kids, child, children, little ones
husband, spouse
wife, spouse
mom, mum, mother
dad, father
grandma, grandmother, nana, granny
grandpa, grandfather, granddad
sitter, babysitter, nanny
daycare, nursery, preschool
pediatrician, paediatrician, kids doctor
school run, school pickup, pickup
collect > pickup
birthday, bday
garbage, trash, rubbish, bins
recycling, recyclables
internet, broadband, isp, wifi, wi-fi, fiber, fibre
phone, cellphone, smartphone
electricity, electric
gas, natural gas
water bill, water utility
rent, housing payment, lease payment
landlord, property manager
mortgage, home loan
apartment, flat
couch, sofa
fridge, refrigerator
car, vehicle
rental car, car rental, car hire, rental
mechanic, auto shop
doctor, physician, gp, md
dentist, dental
teeth > dentist, dental
pharmacy, drugstore
prescription, meds, medication, medicine
allergy, allergic, allergies
vaccine, vaccination, shot, jab
appointment, appt
nurse, rn
therapist, counselor, counsellor
plane, planes, flight, flights
airline, carrier
seat, seating
sit > seat
hotel, lodging, accommodation
trip, journey
passport, travel document
luggage, baggage, bags
vacation, holiday, pto
job, employer, workplace
work > job, employer, workplace
boss, supervisor > manager
coworker, colleague, teammate
salary, wage, wages, income
raise, pay rise
promotion, promoted
quit, resign, resigned
meeting, sync
standup, stand-up, daily, daily sync, daily standup
retro, retrospective
sprint, iteration
planning, sprint planning
release, ship, deploy, launch, rollout
staging, pre-prod, preprod, stage environment, uat
prod, prod environment, production environment
repo, repository, codebase
default branch, trunk, main branch, master branch
pull request, pr, merge request, mr
approval, approvals, sign-off
bug, defect
outage, incident, downtime
on call, on-call, pager, oncall
ticket, task
deadline, due date
budget, spending limit, allowance
groceries, grocery, food shopping, supermarket
restaurant, eating out, dining out, takeout
savings, emergency fund, rainy-day fund, nest egg
loan, debt
price, cost, fee
contract, agreement, msa
renewal, renew, renews, renewing
customer, client
opportunity, opp, deal
territory, region, patch
sales rep, rep, account executive, ae
email, e-mail, mail
sms, text message
workout, exercise
gym > workout, exercise
routine, program, programme, regimen
running, jog, jogging
race > marathon
coach, trainer
diet, eating plan
exam, final exam > midterm
class, course
teacher, professor, prof, instructor
thesis, dissertation, senior paper, capstone
advisor, adviser, mentor
homework, assignment
roommate, flatmate
vet, veterinarian
lesson, lessons
movie, film
book, novel
hobby, pastime
favorite, favourite, fave
laptop, notebook
database, db, datastore
cache, caching
host, hosting, hosted
language, programming language
editor, ide
backend, back end
frontend, front end
login, sign in, authentication, auth
password, credentials
logs, logging
monitoring, observability
alert, alerts, alerting
weekday, workday
weekly, every week, each week
monthly, every month, each month
`;

interface Group {
  /** The one-word entries, as full-text terms: what a query of the group gains. */
  terms: string[];
  /** Terms the group brings in that bring in nothing of it (after ">"). */
  targets: string[];
  /** The phrases ("food shopping"), each as its terms: a query holding all of them is of the group. */
  phrases: string[][];
}

const GROUP_LIST: readonly Group[] = GROUPS.split('\n')
  .map((line) => {
    // "boss, supervisor > manager": the words before ">" bring in those after it, not the other
    // way round ("package manager" asks about no boss).
    const [from = '', to = ''] = line.split('>');
    const split = (part: string) =>
      part
        .split(',')
        .map((w) => w.trim().toLowerCase())
        .filter((w) => w !== '');
    const entries = split(from);
    const single = entries.filter((w) => !/\s/.test(w));
    const targets = split(to).flatMap((w) => ftsQuery(w).slice(0, 1));
    return {
      targets,
      // A hyphenated word's own term ("pre-prod"), not its parts.
      terms: [...new Set(single.map((w) => ftsQuery(w)[0]).filter((t): t is string => t !== undefined))],
      // A phrase of one word after its stopwords ("on call" → call) would stand for a common word.
      phrases: entries
        .filter((w) => /\s/.test(w))
        .map((w) => ftsQuery(w))
        .filter((p) => p.length > 1),
    };
  })
  .filter((g) => g.terms.length > 0 && g.terms.length + g.phrases.length + g.targets.length > 1);

/**
 * A query's terms with the synonyms of each added: `terms` the original terms then the added ones,
 * `origin` each added term's query term: the word of the group the query holds, or the last word
 * of its phrase ("housing payment" → payment). A term the query holds is not added again; a phrase
 * brings in the group's words, never its own words one by one.
 */
export function withSynonyms(queryTerms: readonly string[]): { terms: string[]; origin: Map<string, string> } {
  const own = new Set(queryTerms);
  const origin = new Map<string, string>();
  for (const g of GROUP_LIST) {
    const from = g.terms.find((t) => own.has(t)) ?? g.phrases.find((p) => p.length > 0 && p.every((t) => own.has(t)))?.at(-1);
    if (from === undefined) continue;
    for (const t of [...g.terms, ...g.targets]) if (!own.has(t) && !origin.has(t)) origin.set(t, from);
  }
  return { terms: [...queryTerms, ...origin.keys()], origin };
}

/** Each two-way term's groups, by index: two terms that share one stand for each other. */
const GROUPS_OF: ReadonlyMap<string, ReadonlySet<number>> = (() => {
  const out = new Map<string, Set<number>>();
  GROUP_LIST.forEach((g, i) => {
    for (const t of g.terms) out.set(t, (out.get(t) ?? new Set<number>()).add(i));
  });
  return out;
})();

/** The two terms are one, or stand for each other (the words of one group, not one-way words). */
export function synonymous(a: string, b: string): boolean {
  if (a === b) return true;
  const x = GROUPS_OF.get(a);
  const y = GROUPS_OF.get(b);
  if (x === undefined || y === undefined) return false;
  for (const i of x) if (y.has(i)) return true;
  return false;
}
