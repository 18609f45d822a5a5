import type { TruthScenario } from './truth-scenarios.js';

/**
 * The held-out "check" set of the truth benchmark: conversations written apart from the "tune"
 * set, in other words, so that a mechanism tuned there is measured here on wording nobody tuned on.
 *
 * Each scenario is a few sessions on different days between a user and an assistant, with the facts
 * said once among greetings, small talk and unrelated tasks. Events go to memloom in array order;
 * a session placed after a newer one (its `at` older) is a late arrival, whose value must not become
 * current. Strings in `current` / `stale` occur only in the statements of that value (a statement
 * naming both the old and the new value counts as current, on purpose).
 */

type TruthEvent = TruthScenario['events'][number];
type Extra = Pick<TruthEvent, 'type' | 'speaker'>;
type Turn = { role: 'user' | 'assistant'; content: string; extra?: Extra };

const u = (content: string, extra?: Extra): Turn => ({ role: 'user', content, extra });
const a = (content: string, extra?: Extra): Turn => ({ role: 'assistant', content, extra });

/** One session of `user`: its turns two minutes apart from `start`. */
function session(user: string, id: string, start: string, turns: Turn[]): TruthEvent[] {
  const t0 = Date.parse(start);
  return turns.map((t, i) => ({
    user,
    session: id,
    at: new Date(t0 + i * 120_000).toISOString().replace('.000Z', 'Z'),
    role: t.role,
    ...t.extra,
    content: t.content,
  }));
}

export const CHECK_SCENARIOS: TruthScenario[] = [
  {
    id: 'chk-orders-db-ditched',
    set: 'check',
    about: 'infrastructure: a database replaced ("ditched X for Y"), asked about with other words',
    events: [
      ...session('rafa', 's1', '2025-01-13T09:05:00Z', [
        u('morning! quick one before the coffee kicks in'),
        a('Morning! What are we looking at?'),
        u('context for later: the orders service runs on MySQL 8, schema is in db/orders.sql'),
        a('Noted: orders service on MySQL 8, schema in db/orders.sql.'),
        u('cool. can you write me a regex for ISO week strings like 2025-W07'),
        a('Sure: ^\\d{4}-W(0[1-9]|[1-4]\\d|5[0-3])$ matches weeks 01 through 53.'),
        u('perfect, thanks'),
      ]),
      ...session('rafa', 's2', '2025-02-24T14:20:00Z', [
        u("it's pouring here, good day to stay in and chip away at tech debt"),
        a('Sounds like a plan. Where do you want to start?'),
        u(
          'so we ditched MySQL for Postgres on the orders service last sprint and the cutover was boring in the best way. can you help me rewrite the old ON DUPLICATE KEY UPDATE queries?',
        ),
        a("Nice! That becomes INSERT … ON CONFLICT (…) DO UPDATE. Paste them in and I'll convert them."),
        u('will do after lunch'),
      ]),
      ...session('rafa', 's3', '2025-03-05T10:00:00Z', [
        u('hey, how do I squash my last three commits again?'),
        a("git rebase -i HEAD~3, then mark the second and third as 'squash'."),
        u('ahh right. thank you!'),
        a('Anytime.'),
      ]),
    ],
    questions: [
      {
        user: 'rafa',
        query: 'where does order data get stored these days?',
        current: ['Postgres'],
        stale: ['MySQL'],
        as_of: [
          { at: '2025-02-01T00:00:00Z', expect: ['MySQL'], not: ['Postgres'] },
          { at: '2025-03-10T00:00:00Z', expect: ['Postgres'] },
        ],
      },
      { user: 'rafa', query: 'Who is on call this weekend?', never_said: true },
    ],
  },
  {
    id: 'chk-job-queue-chain',
    set: 'check',
    about: 'infrastructure: a chain of three job queues ("moved off X onto Y", "Y got swapped out, it\'s Z now")',
    events: [
      ...session('kai', 's1', '2024-09-02T08:30:00Z', [
        u('hi! new week, new bugs'),
        a("Ha, hello! What's up?"),
        u('background jobs (emails, thumbnails) are queued on Redis Streams right now, one consumer group per worker type'),
        a('Understood: background jobs go through Redis Streams with a consumer group per worker type.'),
        u('also remind me friday to renew the TLS cert for the status page'),
        a("Sure, I'll remind you Friday about the status page certificate."),
      ]),
      ...session('kai', 's2', '2024-10-07T10:15:00Z', [
        u('we moved the job queue off Redis Streams onto RabbitMQ this weekend, the ack semantics were killing us'),
        a('Noted, jobs now go through RabbitMQ.'),
        u('how was your weekend btw? mine was just this migration lol'),
        a("I don't really get weekends, but I'm glad it's done! Anything to update in the runbook?"),
        u('yeah add a line about the management UI port, 15672'),
        a('Added.'),
      ]),
      ...session('kai', 's3', '2024-11-18T13:40:00Z', [
        u("ok, RabbitMQ got swapped out too — it's SQS now, ops didn't want to babysit another cluster"),
        a('Got it: the job queue is on SQS now.'),
        u("thanks. unrelated, what's a good name for a cron that cleans up orphaned uploads?"),
        a('Maybe `sweep-orphan-uploads`? Descriptive and easy to grep for.'),
        u('love it'),
      ]),
    ],
    questions: [
      {
        user: 'kai',
        query: 'what are our async tasks queued on at the moment?',
        current: ['SQS'],
        stale: ['Redis Streams', 'RabbitMQ'],
        as_of: [
          { at: '2024-09-20T00:00:00Z', expect: ['Redis Streams'], not: ['RabbitMQ', 'SQS'] },
          { at: '2024-10-20T00:00:00Z', expect: ['RabbitMQ'], not: ['SQS'] },
          { at: '2024-12-01T00:00:00Z', expect: ['SQS'] },
        ],
      },
    ],
  },
  {
    id: 'chk-cloud-region-going-forward',
    set: 'check',
    about: 'infrastructure: cloud region changed with "going forward", the subject named differently ("AWS stuff" / "new services")',
    events: [
      ...session('lena', 's1', '2025-05-06T09:20:00Z', [
        u('hello hello'),
        a('Hi Lena! How can I help?'),
        u('for the infra doc: all our AWS stuff sits in us-east-1, RDS instances included'),
        a('Noted: the AWS footprint is in us-east-1, RDS included.'),
        u("and can you draft a two-line summary of tuesday's incident? the one where the CDN cached the 500 page"),
        a("Draft: 'On Tuesday our CDN served a cached error page for ~20 minutes. 5xx responses now carry no-store so it can't happen again.'"),
        u('good enough, ty'),
      ]),
      ...session('lena', 's2', '2025-06-17T15:05:00Z', [
        u('legal finished the GDPR review. going forward everything gets deployed to eu-west-1 (Ireland), the old region gets drained by Q4'),
        a('Understood: new deployments go to eu-west-1.'),
        u("it's so hot today, the office AC gave up"),
        a('Oof. Stay hydrated! Anything else for the infra doc?'),
        u("nope that's it"),
      ]),
    ],
    questions: [
      {
        user: 'lena',
        query: 'if I spin up a new microservice, where should it run?',
        current: ['eu-west-1'],
        stale: ['us-east-1'],
        as_of: [
          { at: '2025-06-01T00:00:00Z', expect: ['us-east-1'], not: ['eu-west-1'] },
          { at: '2025-07-01T00:00:00Z', expect: ['eu-west-1'], not: ['us-east-1'] },
        ],
      },
    ],
  },
  {
    id: 'chk-ci-reversal',
    set: 'check',
    about: 'infrastructure: CI moved away and back again (Jenkins → GitHub Actions → back to Jenkins)',
    events: [
      ...session('tom', 's1', '2024-03-04T08:40:00Z', [
        u('hey! monday again'),
        a("Hey Tom! What's on the list today?"),
        u('for context, CI runs on our Jenkins box in the server closet, a full build is about 12 minutes'),
        a('Got it: CI is Jenkins on the server-closet machine, ~12 minute builds.'),
        u('can you write a shell one-liner that finds files over 100MB in the repo?'),
        a("find . -type f -size +100M -not -path './.git/*'"),
      ]),
      ...session('tom', 's2', '2024-05-13T13:15:00Z', [
        u('update: we moved CI to GitHub Actions over the weekend, the Jenkinsfile is gone'),
        a('Noted, CI runs on GitHub Actions now.'),
        u('the weather was way too nice to be migrating pipelines tbh'),
        a('Ha, next time pick a rainy weekend. Want me to draft a workflow for the nightly e2e job?'),
        u('yes please, later this week'),
      ]),
      ...session('tom', 's3', '2024-08-26T09:30:00Z', [
        u('the July bill for hosted runners was brutal, so we went back to Jenkins this week. the closet box got new SSDs'),
        a("Understood, back to Jenkins. I'll stop suggesting workflow YAML."),
        u('lol thanks. also what is the flag that makes curl follow redirects'),
        a('-L (or --location).'),
      ]),
    ],
    questions: [
      {
        user: 'tom',
        query: 'where do our builds run right now?',
        current: ['back to Jenkins'],
        stale: ['GitHub Actions'],
        as_of: [
          { at: '2024-06-15T00:00:00Z', expect: ['GitHub Actions'], not: ['back to Jenkins'] },
          { at: '2024-09-01T00:00:00Z', expect: ['back to Jenkins'], not: ['GitHub Actions'] },
        ],
      },
      { user: 'tom', query: 'Which bank holds the company account?', never_said: true },
    ],
  },
  {
    id: 'chk-error-tracking-late',
    set: 'check',
    about: 'infrastructure: error tracking replaced; a message from before the change arrives after it (late arrival)',
    events: [
      ...session('ola', 's1', '2025-02-03T10:10:00Z', [
        u('hi, frontend on-call week for me'),
        a('Good luck! How can I help?'),
        u('fyi frontend errors are tracked in Sentry, alerts land in #web-alerts'),
        a('Noted: frontend errors go to Sentry, alerts in #web-alerts.'),
        u("thanks. what's the difference between a soft and a hard navigation in next.js again?"),
        a('A soft navigation swaps only the changed segments on the client; a hard one reloads the whole page from the server.'),
      ]),
      ...session('ola', 's3', '2025-04-14T15:45:00Z', [
        u('small infra news: the Sentry contract lapsed and frontend error tracking moved to Rollbar last week'),
        a('Got it, error tracking is on Rollbar now.'),
        u('great. heading out early, my kid has a recital'),
        a('Enjoy the recital!'),
      ]),
      // Sent late: this session happened in March, before the move.
      ...session('ola', 's2', '2025-03-10T11:00:00Z', [
        u('the Sentry issue list is flooded with ResizeObserver loop warnings, can you help me write an ignore rule?'),
        a('Sure: add ignoreErrors: [/ResizeObserver loop/] to the Sentry.init options.'),
        u('nice, that cut the noise in half'),
      ]),
    ],
    questions: [
      {
        user: 'ola',
        query: 'which service captures our frontend exceptions?',
        current: ['Rollbar'],
        stale: ['Sentry'],
        as_of: [
          { at: '2025-03-20T00:00:00Z', expect: ['Sentry'], not: ['Rollbar'] },
          { at: '2025-04-20T00:00:00Z', expect: ['Rollbar'] },
        ],
      },
    ],
  },
  {
    id: 'chk-package-manager-reversal',
    set: 'check',
    about: 'infrastructure: package manager changed and changed back (yarn → pnpm → back to yarn)',
    events: [
      ...session('dev', 's1', '2024-06-03T09:00:00Z', [
        u('hi! setting up a new laptop today'),
        a('Fun. What do you need?'),
        u('the monorepo uses yarn classic (v1) workspaces, so I need that installed globally'),
        a('npm i -g yarn gets you yarn 1.x; then run yarn install at the repo root.'),
        u('done, thanks'),
      ]),
      ...session('dev', 's2', '2024-07-15T14:00:00Z', [
        u('we switched the monorepo to pnpm, installs dropped from 4 minutes to under one'),
        a("That's a big win. Noted: the monorepo uses pnpm now."),
        u('can you turn this into a single recursive command? for d in packages/*; do (cd $d && npm test); done'),
        a('pnpm -r test, as long as each package has a test script.'),
      ]),
      ...session('dev', 's3', '2024-10-21T10:20:00Z', [
        u('ok so the strict symlinked node_modules layout broke half our jest mocks. we are back to yarn, yarn 4 this time with nodeLinker: node-modules'),
        a('Okay, back to yarn (yarn 4, node-modules linker). Want a corepack line for the README?'),
        u('yes: corepack enable && yarn set version stable'),
        a('Added to the README.'),
        u("thx. rainy monday vibes, I'm getting a second coffee"),
      ]),
    ],
    questions: [
      {
        user: 'dev',
        query: 'which package manager do I need to hack on the monorepo?',
        current: ['back to yarn', 'yarn 4'],
        stale: ['pnpm'],
        as_of: [{ at: '2024-08-01T00:00:00Z', expect: ['pnpm'], not: ['back to yarn', 'yarn 4'] }],
      },
    ],
  },
  {
    id: 'chk-node-version-bump',
    set: 'check',
    about: 'infrastructure: runtime version bumped ("bumped everything to Node 22"), said after a new-year greeting',
    events: [
      ...session('jun', 's1', '2024-11-05T09:30:00Z', [
        u("we're on Node 18 everywhere: .nvmrc, CI and the node:18-alpine images"),
        a('Noted: Node 18 across the board.'),
        u("can you explain what structuredClone does that JSON.parse(JSON.stringify(x)) doesn't?"),
        a('It keeps Dates, Maps, Sets, typed arrays and cycles; the JSON round trip drops or mangles all of those.'),
        u('huh, nice'),
      ]),
      ...session('jun', 's2', '2025-01-20T16:10:00Z', [
        u('happy new year btw! been away for a while'),
        a('Happy new year! Welcome back.'),
        u('first thing this year: we bumped everything to Node 22, the nvmrc, the CI matrix and the base images'),
        a('Got it, Node 22 now. Worth grepping for flags that were removed, like --experimental-fetch.'),
        u('good call, will grep'),
      ]),
    ],
    questions: [
      {
        user: 'jun',
        query: 'which runtime version should my local nvm be set to?',
        current: ['Node 22'],
        stale: ['Node 18', 'node:18'],
        as_of: [
          { at: '2024-12-15T00:00:00Z', expect: ['Node 18'], not: ['Node 22'] },
          { at: '2025-02-01T00:00:00Z', expect: ['Node 22'], not: ['Node 18'] },
        ],
      },
    ],
  },
  {
    id: 'chk-code-hosting-decommissioned',
    set: 'check',
    about: 'infrastructure: a server "decommissioned last week", the new value in the same sentence',
    events: [
      ...session('bea', 's1', '2024-02-12T10:00:00Z', [
        u('hey there'),
        a('Hi Bea! What can I do for you?'),
        u('onboarding notes: our repos live on a self-hosted GitLab at git.internal, merge requests need a green pipeline'),
        a('Noted: self-hosted GitLab at git.internal, green pipeline required for MRs.'),
        u('and we use conventional commits, feat/fix/chore etc'),
        a('Got it.'),
      ]),
      ...session('bea', 's2', '2024-04-08T09:20:00Z', [
        u('the GitLab server was decommissioned last week, every repo is on GitHub now under the acme-eng org'),
        a('Understood: code hosting is GitHub (acme-eng org) now.'),
        u('my cat walked across the keyboard and opened 40 tabs, send help'),
        a('A classic. Closing the whole window might be faster than closing the tabs.'),
        u('haha'),
      ]),
    ],
    questions: [
      {
        user: 'bea',
        query: "where's our source code hosted?",
        current: ['GitHub'],
        stale: ['GitLab', 'git.internal'],
        as_of: [{ at: '2024-03-01T00:00:00Z', expect: ['GitLab'], not: ['GitHub'] }],
      },
      { user: 'bea', query: "What's the wifi password at the office?", never_said: true },
    ],
  },
  {
    id: 'chk-cache-correction',
    set: 'check',
    about: 'infrastructure: a value corrected a week later ("actually it\'s Memcached, not Redis")',
    events: [
      ...session('noor', 's1', '2025-03-11T13:00:00Z', [
        u('writing the architecture page today. the session cache in front of the API is Redis, a 2 GB instance'),
        a('Noted: session cache is Redis, 2 GB.'),
        u('can you give me a mermaid snippet for client -> api -> cache -> db?'),
        a('flowchart LR; client --> api --> cache --> db'),
        u('thanks!'),
      ]),
      ...session('noor', 's2', '2025-03-18T09:45:00Z', [
        u('good morning! sunny for once'),
        a('Morning! Enjoy it while it lasts.'),
        u("correction on last week's notes: actually it's Memcached, not Redis. I was thinking of my old job"),
        a('Thanks for catching that: the session cache is Memcached.'),
        u('np. can you fix the diagram label too'),
        a('Done, the cache node is labelled Memcached.'),
      ]),
    ],
    questions: [
      {
        user: 'noor',
        query: 'what do we keep logged-in sessions in, cache-wise?',
        current: ['Memcached'],
        stale: ['Redis'],
        as_of: [
          { at: '2025-03-14T00:00:00Z', expect: ['Redis'], not: ['Memcached'] },
          { at: '2025-03-20T00:00:00Z', expect: ['Memcached'] },
        ],
      },
    ],
  },
  {
    id: 'chk-control-offline-drafts',
    set: 'check',
    about: 'control: a storage fact said once and never changed, among chit-chat and a similar fact about another client',
    events: [
      ...session('wen', 's1', '2024-12-02T08:50:00Z', [
        u("hiii, it's freezing this morning"),
        a('Brr! Hot drink weather. What are we working on?'),
        u("offline mode for the phone app. drafts that haven't been sent are kept in SQLite on the device and synced when the connection comes back"),
        a('Got it: unsent drafts live in on-device SQLite and sync on reconnect.'),
        u('also can you suggest a name for the sync worker? something boring'),
        a('DraftSyncWorker?'),
        u('boring indeed, perfect'),
      ]),
      ...session('wen', 's2', '2024-12-09T15:30:00Z', [
        u('how was your weekend? I went to a christmas market and ate too much'),
        a("Sounds lovely! What's up today?"),
        u('the web dashboard caches charts in IndexedDB, can you help me write a helper that clears it on logout?'),
        a("Sure: call indexedDB.deleteDatabase('charts') in your logout handler and wait for onsuccess."),
        u('great'),
      ]),
      ...session('wen', 's3', '2024-12-16T11:05:00Z', [
        u('last week before the holidays, team lunch today'),
        a('Enjoy! Anything you need before you go?'),
        u("just remind me to review Lucia's PR on push notifications tomorrow"),
        a("Reminder set for tomorrow: review Lucia's push notifications PR."),
      ]),
    ],
    questions: [
      { user: 'wen', query: "where do mobile users' unsent messages get stored while offline?", current: ['SQLite'] },
      { user: 'wen', query: 'Which payment provider do we integrate with?', never_said: true },
    ],
  },
  {
    id: 'chk-standup-plain-restatement',
    set: 'check',
    about: 'team process: a meeting time restated with a new value and no change word ("Standup is at 10:15.")',
    events: [
      ...session('mia', 's1', '2024-10-01T08:55:00Z', [
        u('hi! first day running the team calendar'),
        a('Welcome aboard! How can I help?'),
        u('standup is at 9:30 every day in the big meeting room'),
        a('Noted: daily standup at 9:30 in the big meeting room.'),
        u('and planning is every other monday at 11'),
        a('Got it.'),
      ]),
      ...session('mia', 's2', '2024-10-09T12:10:00Z', [
        u("can you draft a slack message inviting people to friday's pizza lunch?"),
        a("'🍕 Pizza lunch this Friday at 12:30 in the kitchen, add your toppings to the thread!'"),
        u('lol the emoji is perfect'),
      ]),
      ...session('mia', 's3', '2024-10-22T17:00:00Z', [
        u('Standup is at 10:15.', { type: 'note' }),
        a('Okay, updated.'),
        u('also pls remind me to book a room for the quarterly review'),
        a('Will do.'),
      ]),
    ],
    questions: [
      {
        user: 'mia',
        query: 'what time is the daily sync?',
        current: ['10:15'],
        stale: ['9:30'],
        as_of: [
          { at: '2024-10-15T00:00:00Z', expect: ['9:30'], not: ['10:15'] },
          { at: '2024-10-25T00:00:00Z', expect: ['10:15'], not: ['9:30'] },
        ],
      },
    ],
  },
  {
    id: 'chk-sprint-length-confirmed',
    set: 'check',
    about: 'team process: the same value said three times (confirmation, no stale value), once beside a rejected alternative',
    events: [
      ...session('ray', 's1', '2024-04-02T10:00:00Z', [
        u('we run two-week sprints, planning is monday morning and the demo is on the second friday'),
        a('Noted: two-week sprints, Monday planning, demo on the second Friday.'),
        u('sweet. any tips for keeping planning under an hour?'),
        a('Groom the backlog beforehand, time-box estimation, and park design debates for a follow-up.'),
      ]),
      ...session('ray', 's2', '2024-05-14T14:30:00Z', [
        u('retro was spicy today. someone pitched one-week sprints but we voted to keep two weeks'),
        a('Sounds lively. Noted: sprints stay at two weeks.'),
        u('yeah. I need a nap'),
        a('Earned it.'),
      ]),
      ...session('ray', 's3', '2024-06-20T09:10:00Z', [
        u('new hire Amara asked about our cadence, I told her two-week sprints, same as ever'),
        a('Consistent as always. Want me to put together an onboarding note for Amara?'),
        u('yes please, a short one'),
      ]),
    ],
    questions: [{ user: 'ray', query: 'how many weeks does an iteration last for us?', current: ['two-week', 'two weeks'] }],
  },
  {
    id: 'chk-release-day-paraphrase',
    set: 'check',
    about: 'team process: release day moved, said of "the deploy train" where the first statement said "releases"',
    events: [
      ...session('fay', 's1', '2025-01-07T11:00:00Z', [
        u('morning!'),
        a("Morning, Fay! What's up?"),
        u('we cut releases every Thursday afternoon, QA signs off in the morning'),
        a('Noted: releases on Thursday afternoons after QA sign-off.'),
        u('can you write a release notes template with sections for features, fixes and known issues?'),
        a('Sure: ## Features, ## Fixes, ## Known issues, each a bullet list with ticket links.'),
      ]),
      ...session('fay', 's2', '2025-02-11T10:30:00Z', [
        u("decided in the leads meeting: the deploy train leaves on Tuesdays from next week, Thursday kept colliding with finance's month-end close", {
          type: 'decision',
        }),
        a('Got it: releases move to Tuesdays.'),
        u('my plants are dying, any tips for a fiddle leaf fig?'),
        a("Bright indirect light, water only when the top few centimetres are dry, and don't move it around."),
      ]),
    ],
    questions: [
      {
        user: 'fay',
        query: 'what day of the week does new code reach customers?',
        current: ['Tuesday'],
        stale: ['Thursday afternoon'],
        as_of: [{ at: '2025-01-25T00:00:00Z', expect: ['Thursday'], not: ['Tuesday'] }],
      },
    ],
  },
  {
    id: 'chk-review-rule-tightened',
    set: 'check',
    about: 'team process: a code review rule changed after an outage',
    events: [
      ...session('gus', 's1', '2024-07-08T09:00:00Z', [
        u('contributing guide stuff: PRs need one approval to merge, anybody on the team can approve'),
        a('Noted: one approval to merge, from any teammate.'),
        u("thanks, also what's the gh command to check out a PR locally?"),
        a('gh pr checkout <number>'),
      ]),
      ...session('gus', 's2', '2024-08-19T15:00:00Z', [
        u('rough week, we had a bad outage on thursday'),
        a('Sorry to hear that. Anything I can help with?'),
        u('yes, the postmortem changed the rules: two approvals on every PR from now on, and one of them has to be a code owner', { type: 'decision' }),
        a('Understood: two approvals required, at least one from a code owner.'),
        u("I'll update CONTRIBUTING.md tomorrow"),
      ]),
    ],
    questions: [
      {
        user: 'gus',
        query: 'how many people have to sign off before I can merge?',
        current: ['two approvals'],
        stale: ['one approval'],
        as_of: [{ at: '2024-08-01T00:00:00Z', expect: ['one approval'], not: ['two approvals'] }],
      },
    ],
  },
  {
    id: 'chk-control-retro-time',
    set: 'check',
    about: 'control: a meeting time said once in a list of meetings and restated by the assistant, with other times around it',
    events: [
      ...session('ivy', 's1', '2025-05-05T09:15:00Z', [
        u('good morning! making a list of our team rituals for the wiki'),
        a('Morning! Fire away.'),
        u('planning is mondays at 11am, retro is fridays at 3pm, and we do a demo the last thursday of the month'),
        a('Got it: planning Mondays 11am, retro Fridays 3pm, demo on the last Thursday of each month.'),
        u('thank you!'),
      ]),
      ...session('ivy', 's2', '2025-05-13T13:40:00Z', [
        u('ugh, my bike got a flat on the way in'),
        a('That is annoying. Did you manage to fix it?'),
        u('borrowed a pump from Kev. anyway can you draft a reminder for my 1:1 with him at 2pm tomorrow?'),
        a("Sure: 'Reminder: 1:1 with Kev tomorrow at 2pm.'"),
      ]),
      ...session('ivy', 's3', '2025-05-20T16:20:00Z', [
        u('can you sum up the rituals list in one sentence for the wiki intro?'),
        a('Planning on Mondays at 11am, the retro on Fridays at 3pm, and a monthly demo on the last Thursday.'),
        u('nice and tight, ty'),
      ]),
    ],
    questions: [
      { user: 'ivy', query: "when's our retrospective?", current: ['3pm'] },
      { user: 'ivy', query: "What's the dress code?", never_said: true },
    ],
  },
  {
    id: 'chk-two-users-standup',
    set: 'check',
    about: "two users, two teams: each asks about their own standup time; the other's is stale for them (one of them changes theirs)",
    events: [
      ...session('ana', 's1', '2025-02-03T09:00:00Z', [
        u('hi! I lead the mobile team, just getting set up'),
        a('Hi Ana! Nice to meet you.'),
        u('our standup is at 9:45, fifteen minutes, cameras optional'),
        a('Noted: your standup is at 9:45, 15 minutes.'),
      ]),
      ...session('ben', 's1', '2025-02-04T10:00:00Z', [
        u('hey, ben from data eng'),
        a('Hi Ben!'),
        u('we do standup at 10:30, right after the nightly loads finish'),
        a('Got it, standup at 10:30.'),
      ]),
      ...session('ben', 's2', '2025-03-03T11:20:00Z', [
        u('heads up, our standup moved to 11:00 because of the new folks in another timezone'),
        a('Updated: standup at 11:00.'),
        u('also probably a snow day tomorrow, schools are closed'),
        a('Stay warm!'),
      ]),
      ...session('ana', 's2', '2025-03-04T08:30:00Z', [
        u('busy day, remind me to send the app store screenshots to design?'),
        a('Sure, reminder set.'),
        u('thanks. gorgeous sunrise today'),
      ]),
    ],
    questions: [
      { user: 'ana', query: 'what time do we meet for the daily check-in?', current: ['9:45'], stale: ['10:30', '11:00'] },
      {
        user: 'ben',
        query: "when's my team's daily check-in these days?",
        current: ['11:00'],
        stale: ['10:30', '9:45'],
        as_of: [
          { at: '2025-02-20T00:00:00Z', expect: ['10:30'], not: ['11:00'] },
          { at: '2025-03-10T00:00:00Z', expect: ['11:00'], not: ['10:30'] },
        ],
      },
    ],
  },
  {
    id: 'chk-promotion',
    set: 'check',
    about: 'people: a colleague promoted ("Sam made staff"), with a session of noise between',
    events: [
      ...session('eve', 's1', '2024-05-20T10:00:00Z', [
        u('making an org cheat sheet. Sam Okafor is a senior engineer on payments, he owns the refunds flow', { speaker: 'Eve' }),
        a('Added: Sam Okafor, senior engineer, payments, owns refunds.'),
        u('and Mei is the EM for payments', { speaker: 'Eve' }),
        a('Got it.'),
      ]),
      ...session('eve', 's2', '2024-07-15T14:00:00Z', [
        u('can you write a haiku about flaky tests? need it for the eng newsletter', { speaker: 'Eve' }),
        a('Green, red, green again / the same commit, different fate / rerun and hope'),
        u('hahaha perfect', { speaker: 'Eve' }),
      ]),
      ...session('eve', 's3', '2024-09-02T09:40:00Z', [
        u('big news, Sam made staff! the announcement went out this morning', { speaker: 'Eve' }),
        a("Wonderful! I'll update the cheat sheet: Sam Okafor, staff engineer."),
        u('yes pls. long weekend was great btw, went hiking', { speaker: 'Eve' }),
        a('Glad you had a good break!'),
      ]),
    ],
    questions: [
      {
        user: 'eve',
        query: 'what level is Sam at now?',
        current: ['staff'],
        stale: ['senior'],
        as_of: [
          { at: '2024-08-01T00:00:00Z', expect: ['senior'], not: ['staff'] },
          { at: '2024-09-10T00:00:00Z', expect: ['staff'], not: ['senior'] },
        ],
      },
    ],
  },
  {
    id: 'chk-friend-employer',
    set: 'check',
    about: 'people: a friend\'s employer changed ("she left X, she\'s been at Y for two weeks")',
    events: [
      ...session('leo', 's1', '2024-01-15T19:00:00Z', [
        u('evening! job hunting stuff'),
        a('Evening! How can I help?'),
        u('my friend Priya is a product designer at Initech, she said she could refer me'),
        a('That is a great lead. Want help drafting a note to Priya?'),
        u('yes, short and not desperate lol'),
        a("'Hey Priya! Still happy to refer me for the design systems role? No pressure either way.'"),
      ]),
      ...session('leo', 's2', '2024-03-25T18:30:00Z', [
        u("update on the Priya thing: she left Initech, she's been at Hooli for two weeks now"),
        a('Good for her! Noted: Priya is at Hooli now.'),
        u('weirdly Hooli has an opening too'),
        a('Want me to tailor your resume for it?'),
        u("tomorrow, I'm tired"),
      ]),
    ],
    questions: [
      {
        user: 'leo',
        query: 'which company is Priya with at the moment?',
        current: ['Hooli'],
        stale: ['Initech'],
        as_of: [{ at: '2024-02-20T00:00:00Z', expect: ['Initech'], not: ['Hooli'] }],
      },
    ],
  },
  {
    id: 'chk-own-employer-late',
    set: 'check',
    about: 'people: the user changed jobs ("I quit X! started at Y on Monday"); a session from the old job arrives late',
    events: [
      ...session('zoe', 's1', '2024-01-08T09:00:00Z', [
        u("hi! I'm a data analyst at Bluefin Analytics, mostly SQL and Looker dashboards"),
        a('Nice to meet you, Zoe! Noted.'),
        u('can you explain window functions like I am five'),
        a('They let each row peek at its neighbours, for a running total or a rank, without squashing rows together like GROUP BY does.'),
      ]),
      ...session('zoe', 's3', '2024-06-03T18:00:00Z', [
        u('I quit Bluefin! started at Kestrel Labs on Monday. same kind of work, way nicer people'),
        a("Congratulations! Noted: you're at Kestrel Labs now."),
        u('thanks!! celebrating with dumplings tonight'),
      ]),
      // Sent late: this session happened in March.
      ...session('zoe', 's2', '2024-03-12T12:30:00Z', [
        u("Bluefin's quarterly business review is next week, help me outline my slides?"),
        a('Sure: headline metrics, what moved and why, risks, and next quarter asks.'),
        u('good skeleton, thanks'),
      ]),
    ],
    questions: [
      {
        user: 'zoe',
        query: "who's my employer at the moment?",
        current: ['Kestrel'],
        stale: ['Bluefin'],
        as_of: [
          { at: '2024-04-01T00:00:00Z', expect: ['Bluefin'], not: ['Kestrel'] },
          { at: '2024-06-10T00:00:00Z', expect: ['Kestrel'] },
        ],
      },
    ],
  },
  {
    id: 'chk-city-move',
    set: 'check',
    about: 'people: the user moved city ("we finally did it, moved to Berlin"), asked as "where am I based"',
    events: [
      ...session('hana', 's1', '2024-08-05T20:00:00Z', [
        u('hi! planning my week'),
        a("Hi Hana! What's on it?"),
        u("I live in Lisbon, near Alfama, and I want a climbing gym that's walkable"),
        a("Noted. I'll look for gyms within walking distance of Alfama."),
        u("thanks, it's 34 degrees so walking might be ambitious"),
      ]),
      ...session('hana', 's2', '2024-11-11T09:30:00Z', [
        u('we finally did it, moved to Berlin last weekend! Kreuzberg flat, boxes everywhere'),
        a("Congrats on the move! Noted: you're in Berlin now."),
        u('need to find an electrician who speaks english'),
        a('I can look for English-speaking electricians around Kreuzberg.'),
      ]),
    ],
    questions: [
      {
        user: 'hana',
        query: 'which city am I based in?',
        current: ['Berlin', 'Kreuzberg'],
        stale: ['Lisbon', 'Alfama'],
        as_of: [
          { at: '2024-09-15T00:00:00Z', expect: ['Lisbon', 'Alfama'], not: ['Berlin'] },
          { at: '2024-12-01T00:00:00Z', expect: ['Berlin', 'Kreuzberg'], not: ['Lisbon'] },
        ],
      },
      { user: 'hana', query: "What's my sister's name?", never_said: true },
    ],
  },
  {
    id: 'chk-manager-correction',
    set: 'check',
    about: 'people: a wrong name corrected in a later session ("my manager is Dana, not Diane")',
    events: [
      ...session('ken', 's1', '2025-04-02T08:45:00Z', [
        u('new org chart came out. my manager is Diane now, first 1:1 on thursday'),
        a('Noted: your manager is Diane; first 1:1 on Thursday.'),
        u('help me prep three questions for it?'),
        a('1) What does success look like in 90 days? 2) How do you like to get updates? 3) What should I stop doing?'),
      ]),
      ...session('ken', 's2', '2025-04-09T10:15:00Z', [
        u('ugh I got it wrong last week, my manager is Dana, not Diane. Diane leads the other squad'),
        a('Thanks for the correction: you report to Dana.'),
        u("the 1:1 went well anyway, she's great"),
        a('Glad to hear it!'),
      ]),
    ],
    questions: [
      {
        user: 'ken',
        query: 'who is my boss?',
        current: ['Dana'],
        stale: ['Diane'],
        as_of: [
          { at: '2025-04-05T00:00:00Z', expect: ['Diane'], not: ['Dana'] },
          { at: '2025-04-12T00:00:00Z', expect: ['Dana'] },
        ],
      },
    ],
  },
  {
    id: 'chk-two-users-partners',
    set: 'check',
    about: "two users, one topic: each user's partner has a different name; the other's is stale for them",
    events: [
      ...session('jo', 's1', '2024-12-01T18:00:00Z', [
        u('hey, our anniversary is coming up'),
        a('Congrats! Want help planning?'),
        u('yes! my partner Marco loves Italian food, find me a nice trattoria'),
        a("I'll look for well-reviewed trattorias for you and Marco."),
      ]),
      ...session('kim', 's1', '2024-12-03T19:30:00Z', [
        u('hi, need gift ideas'),
        a('Sure! Who for?'),
        u("my partner Yusuf, he's into film photography"),
        a('A few rolls of Portra 400 and a nice camera strap would be a safe bet for Yusuf.'),
      ]),
      ...session('jo', 's2', '2024-12-10T12:00:00Z', [
        u('booked the trattoria for friday, Marco has no idea'),
        a('Love it. Want a reminder to pick up flowers?'),
        u('yes, thursday evening'),
      ]),
      ...session('kim', 's2', '2024-12-12T08:00:00Z', [u('the camera strap arrived, so pretty'), a('Yusuf will love it!')]),
    ],
    questions: [
      { user: 'jo', query: "what's my significant other called?", current: ['Marco'], stale: ['Yusuf'] },
      { user: 'kim', query: 'who is my other half?', current: ['Yusuf'], stale: ['Marco'] },
      { user: 'jo', query: "What's my dog's name?", never_said: true },
    ],
  },
  {
    id: 'chk-tech-lead-paraphrase',
    set: 'check',
    about: 'people: a lead replaced, the team called "platform team" first and "platform group" later',
    events: [
      ...session('pat', 's1', '2024-02-06T10:00:00Z', [
        u('Julia is the tech lead on the platform team, she signs off on infra RFCs'),
        a('Noted: Julia leads platform and approves infra RFCs.'),
        u('can you explain what an RFC is, for the new grads?'),
        a('A short written proposal shared for feedback before building something significant.'),
      ]),
      ...session('pat', 's2', '2024-04-23T14:45:00Z', [
        u('reorg news: Omar took over the platform group, Julia moved to data engineering'),
        a('Got it: Omar heads platform now.'),
        u('spring finally showed up here, 20 degrees'),
        a('Enjoy it!'),
      ]),
    ],
    questions: [
      {
        user: 'pat',
        query: "who's in charge of platform these days?",
        current: ['Omar'],
        stale: ['Julia'],
        as_of: [{ at: '2024-03-15T00:00:00Z', expect: ['Julia'], not: ['Omar'] }],
      },
    ],
  },
  {
    id: 'chk-favourite-food-reversed',
    set: 'check',
    about: 'personal: a preference reversed ("I\'m so over tacos, ramen is my comfort food now")',
    events: [
      ...session('ada', 's1', '2024-06-10T19:30:00Z', [
        u('what should I cook tonight? tacos are hands down my favourite food but I had them yesterday'),
        a('How about a grain bowl tonight and tacos again on the weekend?'),
        u('fine, you win'),
      ]),
      ...session('ada', 's2', '2024-09-16T20:10:00Z', [
        u("I'm so over tacos honestly. ramen is my comfort food now, there's a place near work that does a killer tonkotsu"),
        a('Noted: ramen is the new favourite.'),
        u("also my neighbour's dog barked all night, I'm exhausted"),
        a('Ugh, sorry. Maybe an early night?'),
      ]),
    ],
    questions: [
      {
        user: 'ada',
        query: "what's my go-to dish lately?",
        current: ['ramen', 'tonkotsu'],
        stale: ['tacos'],
        as_of: [{ at: '2024-08-01T00:00:00Z', expect: ['tacos'], not: ['ramen'] }],
      },
    ],
  },
  {
    id: 'chk-long-run-chain',
    set: 'check',
    about: 'personal: running distance rising in three steps (8 km → 12 km → 16 km)',
    events: [
      ...session('max', 's1', '2025-03-02T07:30:00Z', [
        u('morning! just back from my sunday long run, 8 km at easy pace'),
        a('Nice work! How did it feel?'),
        u('fine, legs a bit heavy. can you make me a grocery list for the week? high protein'),
        a('Eggs, Greek yogurt, chicken thighs, lentils, tofu, cottage cheese, oats, bananas.'),
      ]),
      ...session('max', 's2', '2025-04-06T08:00:00Z', [
        u('bumped the long run up to 12 km this week, knees held up'),
        a('Great progress!'),
        u('it was windy as hell though'),
      ]),
      ...session('max', 's3', '2025-05-11T09:15:00Z', [
        u('long runs are 16 km now, the half marathon is in june'),
        a("You're on track. Want a taper plan for the last two weeks?"),
        u('yes please'),
        a('Week one: cut volume by a third and keep one short tempo run; week two: half the volume, easy runs only.'),
      ]),
    ],
    questions: [
      {
        user: 'max',
        query: 'how far do I go on my weekend runs now?',
        current: ['16 km'],
        stale: ['8 km', '12 km'],
        as_of: [
          { at: '2025-03-20T00:00:00Z', expect: ['8 km'], not: ['12 km', '16 km'] },
          { at: '2025-04-20T00:00:00Z', expect: ['12 km'], not: ['16 km', '8 km'] },
          { at: '2025-05-20T00:00:00Z', expect: ['16 km'], not: ['12 km', '8 km'] },
        ],
      },
    ],
  },
  {
    id: 'chk-control-gym-days',
    set: 'check',
    about: 'control: gym days said once, confirmed weeks later, with errands and a movie between',
    events: [
      ...session('rio', 's1', '2024-09-09T07:00:00Z', [
        u('morning! setting up my routine for the fall'),
        a('Morning! What does it look like?'),
        u('gym is Mondays and Wednesdays before work, swimming when I can on weekends'),
        a('Got it: gym Mondays and Wednesdays, a swim on weekends when possible.'),
        u('and remind me to renew my library card'),
        a('Will do.'),
      ]),
      ...session('rio', 's2', '2024-09-18T21:00:00Z', [
        u('watched that new heist movie, it was so dumb, loved it'),
        a('Sometimes dumb is exactly right. Anything for tomorrow?'),
        u('pick up the dry cleaning'),
        a("Added to tomorrow's list."),
      ]),
      ...session('rio', 's3', '2024-10-14T07:10:00Z', [
        u('still Mondays and Wednesdays for the gym, the routine is sticking'),
        a('Love the consistency!'),
        u('can you find a protein bar without sucralose?'),
        a('RXBAR and Larabar both skip sucralose.'),
      ]),
    ],
    questions: [{ user: 'rio', query: 'which days do I lift weights?', current: ['Mondays and Wednesdays'] }],
  },
  {
    id: 'chk-phone-upgrade',
    set: 'check',
    about: 'personal: a new phone ("finally caved and got an iPhone"), asked as "handset"',
    events: [
      ...session('lou', 's1', '2024-02-19T12:00:00Z', [
        u("my phone's a Pixel 7, can you find me a case with a kickstand?"),
        a("Sure, I'll look for kickstand cases that fit."),
        u('thanks, and remind me to ring mom on sunday'),
        a('Reminder set for Sunday.'),
      ]),
      ...session('lou', 's2', '2024-10-01T17:30:00Z', [
        u('finally caved and got an iPhone 16, the old one is going to my nephew'),
        a('Congrats on the new phone! Want help moving your chats over?'),
        u('yes, whatsapp especially'),
        a("Use WhatsApp's 'Move chats to iOS' under Settings > Chats before you wipe the old phone."),
      ]),
    ],
    questions: [
      {
        user: 'lou',
        query: 'what handset do I carry?',
        current: ['iPhone'],
        stale: ['Pixel'],
        as_of: [
          { at: '2024-06-01T00:00:00Z', expect: ['Pixel'], not: ['iPhone'] },
          { at: '2024-10-15T00:00:00Z', expect: ['iPhone'], not: ['Pixel'] },
        ],
      },
    ],
  },
  {
    id: 'chk-car-late',
    set: 'check',
    about: 'personal: a new car; a message about the old car arrives after the change (late arrival)',
    events: [
      ...session('dan', 's1', '2024-01-22T08:00:00Z', [
        u('I drive a 2012 Corolla with 190k miles, is it worth fixing the AC?'),
        a('At that mileage it depends on the quote; a few hundred dollars is usually worth it for a reliable car.'),
        u("ok I'll get a quote"),
      ]),
      ...session('dan', 's3', '2024-07-08T19:00:00Z', [
        u('traded in the Corolla and picked up a used Subaru Outback on saturday!'),
        a('Congrats! Noted: you drive an Outback now.'),
        u('the kids love the trunk space'),
      ]),
      // Sent late: this session happened in April.
      ...session('dan', 's2', '2024-04-15T12:00:00Z', [
        u('the Corolla needs new brake pads, can you find shops near me that are open weekends?'),
        a("Sure, I'll look for brake shops with weekend hours."),
        u('thanks, ideally under 200 bucks'),
      ]),
    ],
    questions: [
      {
        user: 'dan',
        query: 'what am I driving these days?',
        current: ['Outback'],
        stale: ['Corolla'],
        as_of: [
          { at: '2024-05-01T00:00:00Z', expect: ['Corolla'], not: ['Outback'] },
          { at: '2024-07-15T00:00:00Z', expect: ['Outback'] },
        ],
      },
    ],
  },
  {
    id: 'chk-control-diet',
    set: 'check',
    about: 'control: a diet said once in a meal-planning request, then only small talk and a related question',
    events: [
      ...session('sol', 's1', '2025-06-02T18:00:00Z', [
        u("help me plan dinners for the week. I'm vegetarian, no fish either"),
        a('Got it. How about a chickpea curry, halloumi wraps, mushroom risotto, bean chili and a frittata?'),
        u('love that'),
      ]),
      ...session('sol', 's2', '2025-06-09T12:40:00Z', [
        u('my team is going to a bbq place friday, what could I even order there?'),
        a('Most BBQ spots have mac and cheese, slaw, cornbread and grilled corn; ask ahead about a meatless main.'),
        u('ok good idea'),
      ]),
      ...session('sol', 's3', '2025-06-16T09:00:00Z', [u("it's my birthday!"), a('Happy birthday, Sol! Any plans?'), u('cake and a movie, nothing fancy')]),
    ],
    questions: [
      { user: 'sol', query: "is there anything I don't eat?", current: ['vegetarian'] },
      { user: 'sol', query: 'Which airline do I usually fly with?', never_said: true },
    ],
  },
  {
    id: 'chk-events-budget-late',
    set: 'check',
    about: 'numbers: a budget through three values (40k → 35k → 55k) where the middle one arrives last',
    events: [
      ...session('cruz', 's1', '2025-01-09T10:00:00Z', [
        u('planning Q2 events. our events budget for the quarter is 40k'),
        a('Noted: Q2 events budget of 40k.'),
        u('shortlist three conferences worth sponsoring for a devtools startup'),
        a('KubeCon EU, JSNation and DevConf are strong fits.'),
      ]),
      ...session('cruz', 's3', '2025-04-02T11:30:00Z', [
        u('finance approved the top-up, the Q2 events budget is 55k now, so the booth is back on'),
        a('Great news: 55k for Q2 events.'),
        u('doing a little dance at my desk'),
      ]),
      // Sent late: this session happened in February, between the two above.
      ...session('cruz', 's2', '2025-02-14T15:00:00Z', [
        u('bad news, finance trimmed the events budget to 35k, so no booth at DevConf'),
        a("Understood, 35k. I'll drop the booth from the plan."),
        u("happy valentine's day I guess"),
      ]),
    ],
    questions: [
      {
        user: 'cruz',
        query: 'how much money do we have for events this quarter?',
        current: ['55k'],
        stale: ['40k', '35k'],
        as_of: [
          { at: '2025-01-20T00:00:00Z', expect: ['40k'], not: ['35k', '55k'] },
          { at: '2025-03-01T00:00:00Z', expect: ['35k'], not: ['55k', '40k'] },
          { at: '2025-04-10T00:00:00Z', expect: ['55k'], not: ['35k', '40k'] },
        ],
      },
    ],
  },
  {
    id: 'chk-deadline-extended-late',
    set: 'check',
    about: 'dates: a deadline extended; a message worrying about the old date arrives after the extension',
    events: [
      ...session('vik', 's1', '2024-08-12T09:00:00Z', [
        u('the grant application deadline is September 30, I need to start the narrative section'),
        a('Noted: deadline September 30. Want an outline for the narrative?'),
        u('yes'),
        a('Problem, approach, team, timeline, budget justification, impact.'),
      ]),
      ...session('vik', 's3', '2024-09-20T16:00:00Z', [
        u('phew, the funder extended the deadline to October 14'),
        a('Good news! The deadline is now October 14.'),
        u('taking the weekend off then'),
      ]),
      // Sent late: this session happened on September 2.
      ...session('vik', 's2', '2024-09-02T10:00:00Z', [
        u("September 30 is going to be tight, can you make me a checklist of what's left?"),
        a('Letters of support, the final budget table, a narrative edit, CVs, and a dry run of the submission portal.'),
        u('ugh ok'),
      ]),
    ],
    questions: [
      {
        user: 'vik',
        query: 'when is the grant due?',
        current: ['October 14'],
        stale: ['September 30'],
        as_of: [
          { at: '2024-09-10T00:00:00Z', expect: ['September 30'], not: ['October 14'] },
          { at: '2024-09-25T00:00:00Z', expect: ['October 14'], not: ['September 30'] },
        ],
      },
    ],
  },
  {
    id: 'chk-launch-pushed-back',
    set: 'check',
    about: 'dates: a launch date slipped ("the launch got pushed back to …"), said inside a longer message',
    events: [
      ...session('sana', 's1', '2025-07-01T09:30:00Z', [
        u('hi! kicking off the comms plan today'),
        a('Hi Sana! Where do you want to start?'),
        u('the public launch of the billing dashboard is set for August 19, so the blog post and the changelog need to be ready the week before'),
        a('Noted: billing dashboard launch on August 19, comms ready a week earlier.'),
        u('can you suggest three blog post titles?'),
        a("'Billing, finally legible', 'See every invoice at a glance', 'Your bill, explained'."),
      ]),
      ...session('sana', 's2', '2025-07-22T14:10:00Z', [
        u('ugh, long day. legal wants another pass on the pricing page, so the launch got pushed back to September 9 and I have to tell marketing'),
        a('Sorry, that is annoying. Want me to draft the note to marketing?'),
        u('yes, keep it short and not grumpy'),
        a("'Heads up: the billing dashboard now launches on September 9 to give legal time for a final pricing review. Comms timelines shift accordingly.'"),
        u('perfect'),
      ]),
      ...session('sana', 's3', '2025-07-29T10:00:00Z', [
        u('heatwave here, working from the basement lol'),
        a('Smart move. Anything on the list today?'),
        u('just proofread the changelog draft when I send it'),
        a('Happy to.'),
      ]),
    ],
    questions: [
      {
        user: 'sana',
        query: 'when does the billing dashboard go live?',
        current: ['September 9'],
        stale: ['August 19'],
        as_of: [
          { at: '2025-07-10T00:00:00Z', expect: ['August 19'], not: ['September 9'] },
          { at: '2025-08-01T00:00:00Z', expect: ['September 9'], not: ['August 19'] },
        ],
      },
    ],
  },
  {
    id: 'chk-rent-went-up',
    set: 'check',
    about: 'numbers: rent raised at renewal, asked as "housing cost"',
    events: [
      ...session('mo', 's1', '2024-11-03T17:00:00Z', [
        u('help me set up a monthly budget? rent is $1,850, utilities maybe 120'),
        a('Sure. With rent at $1,850 and ~$120 utilities, what is your take-home pay?'),
        u('I will check my payslip and get back to you'),
      ]),
      ...session('mo', 's2', '2025-01-27T19:45:00Z', [
        u('lease renewal came in and the landlord bumped rent to $2,050 starting march, so that budget needs redoing'),
        a('Got it, $2,050 from March. I will rework the budget around it.'),
        u('thanks. on the bright side I finally finished that 1000-piece puzzle'),
        a('Impressive patience!'),
      ]),
    ],
    questions: [
      {
        user: 'mo',
        query: 'what does my apartment cost me per month?',
        current: ['2,050'],
        stale: ['1,850'],
        as_of: [{ at: '2024-12-15T00:00:00Z', expect: ['1,850'], not: ['2,050'] }],
      },
    ],
  },
  {
    id: 'chk-indentation-reversed',
    set: 'check',
    about: 'personal: a coding-style preference reversed ("tabs are dead to me, two-space indents now")',
    events: [
      ...session('gil', 's1', '2024-02-26T21:00:00Z', [
        u('formatting prefs for my side projects: hard tabs, width 4, always. fight me'),
        a('No fight here. Noted: hard tabs, width 4.'),
        u('can you generate an .editorconfig for that?'),
        a('root = true / [*] / indent_style = tab / indent_size = 4 / insert_final_newline = true'),
      ]),
      ...session('gil', 's2', '2024-05-30T22:15:00Z', [
        u('ok I have come around. two-space indents everywhere now, tabs are dead to me'),
        a('A conversion! Want me to update the .editorconfig?'),
        u('yes and add trim_trailing_whitespace while you are at it'),
        a('Done: indent_style = space, indent_size = 2, trim_trailing_whitespace = true.'),
      ]),
    ],
    questions: [
      {
        user: 'gil',
        query: 'how do I like my code indented?',
        current: ['two-space'],
        stale: ['hard tabs'],
        as_of: [
          { at: '2024-04-01T00:00:00Z', expect: ['hard tabs'], not: ['two-space'] },
          { at: '2024-06-01T00:00:00Z', expect: ['two-space'], not: ['hard tabs'] },
        ],
      },
    ],
  },
  {
    id: 'chk-headcount-grew',
    set: 'check',
    about: 'numbers: team headcount grew, the second statement a "headcount update" note',
    events: [
      ...session('amy', 's1', '2024-03-04T09:00:00Z', [
        u('for the planning doc: the platform team is 8 engineers, two of them part-time'),
        a('Noted: 8 engineers on platform, two part-time.'),
        u('can you format a list as a markdown table? name, role, timezone'),
        a("Sure, paste the list and I'll turn it into a table."),
      ]),
      ...session('amy', 's2', '2024-06-17T10:30:00Z', [
        u("headcount update: 11 engineers on platform now, after the two new hires and Chen's transfer", { type: 'note' }),
        a('Updated: 11 engineers.'),
        u("and it's finally summer, the office is a sauna"),
      ]),
    ],
    questions: [
      {
        user: 'amy',
        query: 'how big is the platform group at this point?',
        current: ['11 engineers'],
        stale: ['8 engineers'],
        as_of: [{ at: '2024-05-01T00:00:00Z', expect: ['8 engineers'], not: ['11 engineers'] }],
      },
    ],
  },
  {
    id: 'chk-gym-price-rise',
    set: 'check',
    about: 'numbers: a monthly price raised ("the gym raised the membership to €52")',
    events: [
      ...session('eli', 's1', '2024-01-05T18:00:00Z', [
        u('new year budget time. rent, phone, and the gym membership which is €45 a month'),
        a('Noted: gym membership €45/month.'),
        u("what's a reasonable monthly amount for eating out?"),
        a('A common rule of thumb is 5–10% of take-home pay.'),
      ]),
      ...session('eli', 's2', '2024-09-02T19:00:00Z', [
        u('the gym raised the membership to €52 a month, annoying'),
        a('Noted, €52/month now. Want me to compare it with the place near your office?'),
        u('nah, I like the sauna there'),
      ]),
    ],
    questions: [
      { user: 'eli', query: 'what am I paying monthly to work out?', current: ['€52'], stale: ['€45'] },
      { user: 'eli', query: 'How much is my car insurance?', never_said: true },
    ],
  },
  {
    id: 'chk-python-version',
    set: 'check',
    about: 'versions: a repository moved from one Python version to another',
    events: [
      ...session('tariq', 's1', '2024-05-06T11:00:00Z', [
        u('the ML repo is pinned to Python 3.10 because of an old torch build'),
        a('Noted: ML repo on Python 3.10.'),
        u('can you explain what a venv actually does?'),
        a("It's an isolated directory with its own interpreter link and site-packages, so projects' dependencies don't collide."),
      ]),
      ...session('tariq', 's2', '2024-10-14T09:30:00Z', [
        u('good news, torch caught up: we moved the ML repo to Python 3.12 and dropped the old pin'),
        a('Nice, the ML repo is on 3.12 now.'),
        u('raining again here'),
      ]),
    ],
    questions: [
      {
        user: 'tariq',
        query: 'which interpreter should I create the virtualenv with for the ML code?',
        current: ['3.12'],
        stale: ['3.10'],
        as_of: [
          { at: '2024-08-01T00:00:00Z', expect: ['3.10'], not: ['3.12'] },
          { at: '2024-11-01T00:00:00Z', expect: ['3.12'], not: ['3.10'] },
        ],
      },
    ],
  },
  {
    id: 'chk-ios-client-paraphrase',
    set: 'check',
    about: 'subject paraphrase: "the mobile app" first, "our iOS client" in the change, "the iPhone app" in the question',
    events: [
      ...session('nia', 's1', '2024-04-08T10:00:00Z', [
        u('the mobile app is React Native, we share the API client with the web app'),
        a('Noted: the mobile app is React Native and shares the API client with web.'),
        u('any good talks on RN performance?'),
        a('Look for talks on the new architecture and on profiling with Hermes.'),
      ]),
      ...session('nia', 's2', '2024-09-23T13:00:00Z', [
        u('we rewrote our iOS client in SwiftUI over the summer, the RN code is gone'),
        a('Got it: the iOS app is SwiftUI now.'),
        u('the rewrite took forever but scrolling is buttery'),
        a('Worth it then!'),
      ]),
    ],
    questions: [
      {
        user: 'nia',
        query: 'what framework is the iPhone app built with?',
        current: ['SwiftUI'],
        stale: ['React Native'],
        as_of: [{ at: '2024-06-01T00:00:00Z', expect: ['React Native'], not: ['SwiftUI'] }],
      },
    ],
  },
  {
    id: 'chk-newsletter-paraphrase',
    set: 'check',
    about: 'subject paraphrase: "the company newsletter" first, "our monthly email digest" in the change',
    events: [
      ...session('oli', 's1', '2024-03-01T09:00:00Z', [
        u('the company newsletter goes out via Mailchimp on the first monday of the month'),
        a('Noted: newsletter via Mailchimp, first Monday of each month.'),
        u('write me a subject line for march? we shipped dark mode'),
        a("'Lights out: dark mode is here 🌙'"),
      ]),
      ...session('oli', 's2', '2024-06-03T09:30:00Z', [
        u("our monthly email digest is on Buttondown now, Mailchimp's pricing got silly"),
        a('Got it, the digest goes out through Buttondown.'),
        u("also it's my last week before vacation!!"),
        a('Enjoy the break!'),
      ]),
    ],
    questions: [
      { user: 'oli', query: 'what tool sends our monthly update to subscribers?', current: ['Buttondown'], stale: ['Mailchimp'] },
      { user: 'oli', query: 'Who designed our logo?', never_said: true },
    ],
  },
  {
    id: 'chk-two-users-editor',
    set: 'check',
    about: "two users, one topic: one moves from VS Code to Neovim, the other stays on IntelliJ; the other's editor is stale for each",
    events: [
      ...session('ana', 's1', '2025-01-06T09:00:00Z', [
        u('hi! setting up a new machine, I use VS Code for everything'),
        a('Noted. Want me to walk you through syncing your settings and extensions?'),
        u('yes please'),
      ]),
      ...session('ben', 's1', '2025-01-07T10:00:00Z', [
        u('morning, IntelliJ Ultimate all day for me. how do I open the database tool window again?'),
        a('View > Tool Windows > Database.'),
      ]),
      ...session('ana', 's2', '2025-02-17T14:00:00Z', [
        u('confession: I live in Neovim now, took two weeks of pain to get used to it'),
        a('Welcome to the modal side! Want help with a minimal config?'),
        u('yes, lazy.nvim plus telescope'),
      ]),
      ...session('ben', 's2', '2025-02-18T16:30:00Z', [
        u("it's snowing again, I'm staying in"),
        a('Cozy day then.'),
        u('can you write a quick regex for uk postcodes?'),
        a('A simple one: ^[A-Z]{1,2}\\d[A-Z\\d]? ?\\d[A-Z]{2}$'),
      ]),
    ],
    questions: [
      {
        user: 'ana',
        query: 'which editor should my dotfiles configure?',
        current: ['Neovim', 'nvim'],
        stale: ['VS Code', 'IntelliJ'],
        as_of: [
          { at: '2025-02-01T00:00:00Z', expect: ['VS Code'], not: ['Neovim', 'nvim'] },
          { at: '2025-03-01T00:00:00Z', expect: ['Neovim', 'nvim'], not: ['VS Code'] },
        ],
      },
      { user: 'ben', query: 'what IDE do I code in?', current: ['IntelliJ'], stale: ['Neovim', 'nvim', 'VS Code'] },
    ],
  },
  {
    id: 'chk-two-users-coffee',
    set: 'check',
    about: "two users, one topic: coffee orders; one user changes theirs; the other's order is stale for each",
    events: [
      ...session('pam', 's1', '2024-10-07T08:00:00Z', [
        u('can you order my usual from the cafe downstairs? flat white, extra hot'),
        a('Ordering a flat white, extra hot.'),
      ]),
      ...session('ted', 's1', '2024-10-08T08:30:00Z', [u('hey, coffee run: a cortado for me please'), a('One cortado, coming up.')]),
      ...session('pam', 's2', '2024-11-04T08:10:00Z', [u('brr, first frosty morning. the usual please'), a('A flat white, extra hot, on its way.')]),
      ...session('ted', 's2', '2024-11-12T08:20:00Z', [
        u('cutting back on dairy, so from now on my order is an oat latte'),
        a('Noted: an oat latte from now on.'),
        u("and a croissant today, it's been a week"),
      ]),
    ],
    questions: [
      { user: 'pam', query: 'what do I normally drink in the mornings?', current: ['flat white'], stale: ['oat latte', 'cortado'] },
      {
        user: 'ted',
        query: "what's my usual coffee?",
        current: ['oat latte'],
        stale: ['cortado', 'flat white'],
        as_of: [{ at: '2024-10-20T00:00:00Z', expect: ['cortado'], not: ['oat latte'] }],
      },
    ],
  },
  {
    id: 'chk-control-allergy',
    set: 'check',
    about: 'control: an allergy said once on a form, later touched by a prescription story',
    events: [
      ...session('bo', 's1', '2025-02-10T11:00:00Z', [
        u('filling out the new patient form for the clinic. allergies: penicillin, it gives me hives'),
        a('Noted: penicillin allergy (hives).'),
        u('what else do these forms usually ask?'),
        a('Current medications, past surgeries, family history and an emergency contact.'),
      ]),
      ...session('bo', 's2', '2025-02-20T20:30:00Z', [
        u("I've got a sore throat, what's good besides tea?"),
        a('Honey, warm salt-water gargles and rest. If it lasts more than a week, see a doctor.'),
        u('ok thanks'),
      ]),
      ...session('bo', 's3', '2025-03-03T09:00:00Z', [
        u('doctor gave me azithromycin for the throat thing, she double-checked the penicillin note'),
        a('Good that she checked. Hope you feel better soon!'),
      ]),
    ],
    questions: [
      { user: 'bo', query: 'which medicine must I stay away from?', current: ['penicillin'] },
      { user: 'bo', query: "What's my blood group?", never_said: true },
    ],
  },
  {
    id: 'chk-control-design-files',
    set: 'check',
    about: 'control: where design files live, said once and confirmed much later, with onboarding small talk',
    events: [
      ...session('una', 's1', '2024-11-18T10:00:00Z', [
        u('hello! onboarding a contractor today'),
        a('Hi Una! What do they need?'),
        u("all design files live in Figma, the team space is 'Product 2024'"),
        a("Noted: design files in Figma, team space 'Product 2024'."),
        u('and tickets are in Linear'),
        a('Got it.'),
      ]),
      ...session('una', 's2', '2024-11-25T15:00:00Z', [
        u("it's dark at 4pm, I hate november"),
        a('The long nights are rough. Anything I can do?'),
        u("draft a welcome message for the contractor? he's called Felix"),
        a("'Welcome, Felix! Shout if anything is unclear, happy to pair on your first ticket.'"),
      ]),
      ...session('una', 's3', '2025-01-08T09:30:00Z', [
        u('Felix asked again where the mockups are. still Figma, same team space'),
        a('Sent him the link again.'),
      ]),
    ],
    questions: [
      { user: 'una', query: 'where can I find the UI designs?', current: ['Figma'] },
      { user: 'una', query: 'Which cloud provider hosts our staging environment?', never_said: true },
    ],
  },
];
