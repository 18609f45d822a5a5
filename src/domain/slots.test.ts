import { describe, expect, it } from 'vitest';
import { relate } from './slot-relate.js';
import { changesState, readSlot, slotOf, type SlotRelation } from './slots.js';
import { slotKeys, slotKeyText } from './slot-keys.js';

/** Older statement, newer statement, how the newer relates to the older. */
const PAIRS: Array<[string, string, SlotRelation]> = [
  // Change language of many kinds.
  ['For the desktop app we use Postgres as the local database.', 'We moved the desktop app from Postgres to SQLite.', 'replaces'],
  ['For the desktop app we use Postgres as the local database.', 'We switched the desktop client to SQLite.', 'replaces'],
  ['We use Jenkins for CI.', 'We replaced Jenkins with GitHub Actions.', 'replaces'],
  // A subject in other words (src/domain/synonyms.ts).
  ["The kids' pediatrician is Dr. Alvarez.", "The children's pediatrician is Dr. Chen now.", 'replaces'],
  ['My broadband provider is Comcast.', 'We switched our internet to Fios.', 'replaces'],
  ['We use Jenkins for CI.', 'Jenkins is gone, we use GitHub Actions now.', 'replaces'],
  ['We run CI on CircleCI.', 'we ditched CircleCI for GitHub Actions', 'replaces'],
  ['Priya is the tech lead.', 'Marco took over from Priya as tech lead.', 'replaces'],
  ['The deadline is March 15.', 'The deadline slipped to April 2.', 'replaces'],
  ['The budget is $50k.', 'The budget was cut to $30k.', 'replaces'],
  ['Rent is $1,800 a month.', 'rent went up to $2,100', 'replaces'],
  ['We are on Node 18.', 'We upgraded to Node 22.', 'replaces'],
  ['We use Node 18 in production.', 'we bumped the Node version to 22', 'replaces'],
  ['The release is on Thursday.', "Actually it's Friday, not Thursday.", 'replaces'],
  ['We deploy to Heroku.', 'Noted — staging now deploys to Fly.io instead of Heroku.', 'replaces'],
  ['Our monitoring is Datadog.', 'Datadog got swapped out, it is Grafana now', 'replaces'],
  ['The team uses Jira for tickets.', 'We moved our tickets over to Linear.', 'replaces'],
  // Plain restatement with a new value, negation of a preference.
  ['Our standup is at 9:30.', 'Standup is now at 10.', 'replaces'],
  ['Standup is at 9:45.', 'Standup is at 10:15.', 'replaces'],
  ['My favourite food is sushi.', 'My favourite food is ramen now.', 'replaces'],
  ['My manager is Dana.', 'My new manager is Eli.', 'replaces'],
  ['I prefer dark mode.', "I don't like dark mode anymore.", 'replaces'],
  ['I drink coffee in the morning.', 'I gave up coffee.', 'replaces'],
  ['I use tabs for indentation.', 'turns out I hate tabs now — spaces all the way', 'replaces'],
  // People and places.
  ['Sam works at Acme.', 'Sam joined Globex last month.', 'replaces'],
  ['Priya works at Stripe.', 'Priya quit Stripe, she started at Figma on Monday', 'replaces'],
  ['I live in Berlin.', 'I moved to Lisbon.', 'replaces'],
  // Values of one category a person holds one of at a time.
  ['The user uses Vim.', "The user's editor is Neovim now.", 'replaces'],
  ['The user drinks oat milk lattes.', 'The user switched to black coffee.', 'replaces'],
  ['My phone is an iPhone 13.', 'I switched to a Pixel 8.', 'replaces'],
  ['Our package manager is npm.', 'We use pnpm now.', 'replaces'],
  // Paraphrased subjects, time shapes, amounts.
  ['The mobile app talks to a Firebase backend.', 'our iOS client now uses Supabase instead', 'replaces'],
  ['Sprints are two weeks long.', 'Sprints are three weeks now.', 'replaces'],
  ['I run 5k every morning.', 'I run 10k every morning now.', 'replaces'],
  ['We have 5 engineers.', 'We hired two more, so we are 7 engineers now.', 'replaces'],
  ['We release on Tuesdays.', 'Release day is now Thursday.', 'replaces'],
  ['Gym days are Monday and Thursday.', 'I go to the gym on Tuesdays and Fridays now.', 'replaces'],
  // Chains and reversals: the newest value replaces whatever came before it.
  ['We moved the desktop app from Postgres to SQLite.', 'We moved the desktop app back to Postgres.', 'replaces'],
  // Restatements confirm.
  ['I use Vim as my editor.', 'I still use Vim.', 'same'],
  ['We use pnpm.', 'We use pnpm for the monorepo.', 'same'],
  ['The database is Postgres 14.', 'The database is Postgres 14.', 'same'],
  ['I love dark mode.', 'I still love dark mode.', 'same'],
  // Different slots stay apart.
  ['For the desktop app we use Postgres as the local database.', 'The web app uses MySQL.', 'unrelated'],
  ['For the desktop app we use React for the UI.', 'We moved the desktop app from Postgres to SQLite.', 'unrelated'],
  ['Our standup is at 9:30.', 'Retro is at 4pm on Fridays.', 'unrelated'],
  ['Retro is every other Friday at 3pm.', 'Standup is at 9am.', 'unrelated'],
  ['Sam works at Acme.', 'Priya works at Globex.', 'unrelated'],
  // Who a statement is about is no value of it: a possessor, a name before "is a …", a person's passing state.
  ['John is a big video game fan too.', 'Video games give James tons of joy and excitement, so they keep James motivated.', 'unrelated'],
  ['James is so excited to jump into it again.', 'James is pumped to see where this journey leads.', 'unrelated'],
  ['Max is great, he always cheers James up.', 'Pets are the best, they make life so much better.', 'unrelated'],
  ["It's been great, filled with tutorials to help improve James's game dev skills.", 'Resources like that are great for improving our skills.', 'unrelated'],
  ['Dana is the manager.', "Rachel's the manager now.", 'replaces'],
  ['Learning new programming stuff is great.', "All John's hard work and practice paid off and it was great to conquer the challenges.", 'unrelated'],
  ['James loves bowling.', 'She left James her phone number, James thinks James will call tomorrow.', 'unrelated'],
  // A numbered heading is no value, and a number after a subject word says which one.
  ['Note 41: we decided to keep service 41 on Redis and BullMQ', 'Note 42: we decided to keep service 42 on Redis and BullMQ', 'unrelated'],
  ['Note 41: we decided to keep service 41 on Redis', 'Note 42: we moved service 41 from Redis to Postgres', 'replaces'],
  ['第41条：我们决定把服务41的数据库迁移到PostgreSQL', '第42条：我们决定把服务42的数据库迁移到PostgreSQL', 'unrelated'],
  ['Table 4 is booked for Friday.', 'Table 5 is booked for Saturday.', 'unrelated'],
  ['I like sushi.', 'I like pizza.', 'unrelated'],
  ['My dog is called Biscuit.', 'We got a cat named Miso.', 'unrelated'],
  ['My partner is called Alex.', 'My sister Jo lives in Leeds.', 'unrelated'],
  ['Sam manages the platform team.', 'they promoted Sam to staff engineer', 'unrelated'],
  ['The staging Heroku app was decommissioned last week.', 'We use Heroku for staging.', 'unrelated'],
  // A change still to come replaces nothing yet.
  ['We use Postgres.', 'We will move to SQLite next month.', 'unrelated'],
  ['I live in Seattle.', "we're moving to Portland next month", 'unrelated'],
  // How someone feels, or what they are about to do, is no value of an attribute.
  ['Jon is gonna keep pushing and working hard.', 'Jon is gonna keep on going and never quit.', 'unrelated'],
  ["It's challenging, but John is determined to improve.", 'John is determined to make a positive impact.', 'unrelated'],
  ['Maria is so excited to share her recipes.', 'Maria is really excited to start the new class.', 'unrelated'],
];

describe('readSlot and relate: which newer statement replaces which older one', () => {
  it.each(PAIRS)('%s → %s: %s', (older, newer, want) => {
    const a = readSlot(older);
    const b = readSlot(newer);
    expect(a).not.toBeNull();
    expect(b).not.toBeNull();
    expect(relate(a!, b!)).toBe(want);
  });

  it('reads the value, what it replaces and the change from one statement', () => {
    expect(readSlot('We moved the desktop client from Postgres to SQLite, the installer was too big.')).toMatchObject({
      about: ['app', 'desktop'],
      value: ['sqlite'],
      kind: 'database',
      replaces: ['postgres'],
      change: true,
      negated: false,
    });
    expect(readSlot('The user no longer uses Jenkins.')).toMatchObject({ value: [], replaces: ['jenkins'], negated: true });
    expect(readSlot('Standup moved to 10:00 because half the team is in Lisbon now')).toMatchObject({ about: ['standup'], value: ['10:00'], kind: 'time' });
    expect(readSlot('We will switch to pnpm next sprint.')?.planned).toBe(true);
    expect(readSlot('Which database do we use?')).toBeNull();
  });

  it('reads a version only in digits right after a name, not a count or a place', () => {
    expect(readSlot('billing runs on Node 22 now')).toMatchObject({ about: ['bill', 'node'], value: ['22'], kind: 'version' });
    expect(readSlot('Every PR needs one approval before merge')?.kind).not.toBe('version');
    expect(readSlot('Kafka is not used any more (session 3, turn 2)')?.kind).not.toBe('version');
    expect(readSlot('Quick one before I crash')?.kind).not.toBe('version');
    // A dotted number is a time only where a time is expected ("at 9.30"), else a version.
    expect(readSlot('we moved the ML repo to Python 3.12')?.value).toContain('3.12');
    expect(readSlot('standup is at 9.30 now')).toMatchObject({ value: ['09:30'], kind: 'time' });
  });

  it('reads who spoke a statement as no value of it and nothing it replaces', () => {
    const joy = 'Being in the nature can be so refreshing and it always brings Andrew joy.';
    const sunset = "Here's a photo of the beautiful sunset Andrew witnessed during Andrew's hike.";
    // Read without the speaker, the name is the value of one and the replaced value of the other.
    expect(relate(readSlot(joy)!, readSlot(sunset)!)).toBe('replaces');
    const [a, b] = [slotOf('fact', joy, null, ['Andrew']), slotOf('fact', sunset, null, ['Andrew'])];
    expect(a?.value ?? []).not.toContain('andrew');
    expect(b?.replaces ?? []).not.toContain('andrew');
    expect(a && b ? relate(a, b) : 'unrelated').toBe('unrelated');
    // The speaker's own changes still read: the subject is the user, the value the new employer.
    const before = slotOf('fact', 'Andrew works at Acme.', null, ['Andrew']);
    const after = slotOf('fact', 'Andrew quit Acme and started at Globex.', null, ['Andrew']);
    expect(before && after ? relate(before, after) : null).toBe('replaces');
    // Someone else named in the statement stays a name.
    expect(slotOf('fact', 'Audrey is the manager.', null, ['Andrew'])?.value).toEqual(['audrey']);
  });

  it('gives episodes a slot only when they change a value', () => {
    expect(changesState(readSlot('The user started at Canva on Monday.')!)).toBe(true);
    expect(changesState(readSlot('We moved inventory from MySQL to Postgres over the weekend.')!)).toBe(true);
    expect(changesState(readSlot('The user went hiking with friends.')!)).toBe(false);
  });

  it('indexes a slot by its subject, values, replaced values and known category, and names the category words for its key', () => {
    const slot = readSlot('We switched the desktop client to SQLite.')!;
    expect(slotKeys(slot)).toEqual(['a:app', 'a:desktop', 'k:database', 'v:sqlite']);
    expect(slotKeyText(slot)).toContain('database');
    expect(slotKeyText(readSlot('The user no longer uses bash.'))).toContain('shell');
    expect(slotKeyText(readSlot('Rachel is my manager now.'))).toContain('boss');
  });

  it('reads changes said as "off X onto Y", amounts before another phrase, and the clause that changes a known value', () => {
    expect(readSlot('we moved the job queue off Redis Streams onto RabbitMQ this weekend')).toMatchObject({ value: ['rabbitmq'], replaces: ['redis'] });
    // "$2,050 starting march": the amount is the value, not its digits as words.
    expect(readSlot('the landlord bumped rent to $2,050 starting march')).toMatchObject({ about: ['rent'], value: ['2050'], kind: 'money' });
    // The changing clause with a known kind of value, not the first changing clause.
    expect(readSlot('cutting back on dairy, so from now on my order is an oat latte')).toMatchObject({ value: ['oat latte'], kind: 'drink' });
    // A past-tense change verb after a comma opens a statement of its own.
    expect(readSlot('we switched the monorepo to pnpm, installs dropped from 4 minutes to under one')).toMatchObject({
      about: ['monorepo'],
      value: ['pnpm'],
      replaces: [],
    });
  });

  it('reads "X is a <role>" as X\'s role, so a move into another role replaces it; "X is the <role>" names the holder', () => {
    const before = readSlot('Lena is a backend engineer on my team, she wrote most of the queue code')!;
    const after = readSlot('Lena moved into the engineering manager role this month')!;
    expect(before).toMatchObject({ about: ['lena', 'role'], value: ['backend', 'engineer'] });
    expect(after).toMatchObject({ about: ['lena', 'role'], value: ['engineering', 'manager', 'role'] });
    expect(relate(before, after)).toBe('replaces');
    expect(readSlot('Rachel is the manager now')).toMatchObject({ value: ['rachel'], kind: 'name' });
  });

  it('reads who took over what from whom, and a possessive clause that ends the former holder', () => {
    expect(readSlot('Priya took over the billing service from Sam last week')).toMatchObject({
      about: ['bill', 'servic'],
      value: ['priya'],
      replaces: ['sam'],
    });
    expect(readSlot('Rotation switched: Marco took over on-call from Aisha today')).toMatchObject({ value: ['marco'], replaces: ['aisha'] });
    // "…, Marco's week is over" drops Marco; the first clause still gives the value.
    expect(readSlot("Lena is on call for payments now, Marco's week is over")).toMatchObject({
      about: ['payment'],
      value: ['lena'],
      replaces: ['marco'],
      negated: false,
    });
  });
});
