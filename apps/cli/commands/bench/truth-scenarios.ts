/**
 * The "current truth" benchmark's scenarios (`memloom bench truth`, truth.ts): conversations in
 * which a fact is stated, sometimes changed, and later asked about. This file holds the type and
 * the tune set, the scenarios the recall changes may be fitted on; truth-scenarios-check.ts holds
 * the check set, written apart and never tuned on.
 */

export interface TruthEvent {
  user: string;
  session: string;
  at: string /* ISO 8601 with Z */;
  role?: 'user' | 'assistant';
  type?: 'message' | 'decision' | 'note';
  speaker?: string;
  content: string;
}
export interface TruthQuestion {
  user: string;
  query: string;
  /** Any of these (case-insensitive substring) in the top result means the current value came first. */
  current?: string[];
  /** Substrings that only the replaced values' statements contain. */
  stale?: string[];
  /** Checks with as_of, mode memories: the top result contains one of `expect` and none of `not`. */
  as_of?: Array<{ at: string; expect: string[]; not?: string[] }>;
  /** Nothing about this was ever said: the answer must be match "none". */
  never_said?: boolean;
}
export interface TruthScenario {
  id: string;
  set: 'tune' | 'check' | 'holdout';
  about: string;
  events: TruthEvent[];
  questions: TruthQuestion[];
}

/**
 * One session's turns, a minute apart from `start`. Each turn starts with `u: ` (the user) or
 * `a: ` (the assistant), so a conversation reads as a transcript.
 */
export function session(user: string, id: string, start: string, turns: string[]): TruthEvent[] {
  return turns.map((turn, i) => {
    const role = turn.startsWith('u: ') ? 'user' : turn.startsWith('a: ') ? 'assistant' : undefined;
    if (!role) throw new Error(`a turn of session ${id} must start with "u: " or "a: ": ${turn.slice(0, 40)}`);
    return { user, session: id, at: new Date(Date.parse(start) + i * 60_000).toISOString(), role, content: turn.slice(3) };
  });
}

export const TUNE_SCENARIOS: TruthScenario[] = [
  {
    id: 'desktop-db-move',
    set: 'tune',
    about: '"moved X from A to B", said of "the desktop client" where the first statement said "the desktop app"',
    events: [
      ...session('dana', 's1', '2026-03-02T09:00:00Z', [
        'u: morning! quick one before standup',
        'a: Morning, Dana. What is on your mind?',
        'u: For context: the desktop app keeps its local data in Postgres, bundled with the installer. Can you sketch a migration runner for it?',
        "a: Sure. Since the desktop app ships with an embedded Postgres, I'll write the runner against node-postgres and run it on startup.",
        'u: thanks, that helped',
      ]),
      ...session('dana', 's2', '2026-03-09T14:00:00Z', [
        'u: hey, different topic, my laptop fan is going crazy during builds',
        "a: That's usually the TypeScript watcher plus the bundler. Want me to look at your tsconfig?",
        'u: later, I have a call in five minutes',
        'a: No problem, ping me when you are back.',
      ]),
      ...session('dana', 's3', '2026-03-16T10:30:00Z', [
        'u: So we moved the desktop client from Postgres to SQLite, the installer was 200 MB bigger than it needed to be.',
        "a: Got it: the desktop client stores its data in SQLite now. I'll switch the migration runner to better-sqlite3.",
        'u: perfect. can you also make the migrations idempotent?',
        'a: Yes, each one will check the user_version pragma before it runs.',
      ]),
    ],
    questions: [
      {
        user: 'dana',
        query: 'Which database does the desktop app use now?',
        current: ['SQLite'],
        stale: ['Postgres'],
        as_of: [
          { at: '2026-03-12T12:00:00Z', expect: ['Postgres'], not: ['SQLite'] },
          { at: '2026-03-20T12:00:00Z', expect: ['SQLite'] },
        ],
      },
      { user: 'dana', query: 'Who is Priya?', never_said: true },
    ],
  },
  {
    id: 'api-framework-switch',
    set: 'tune',
    about: '"switched to B": the orders API goes from Express to Fastify',
    events: [
      ...session('omar', 's1', '2026-01-12T16:00:00Z', [
        "u: hi! I'm setting up the orders API, it's an Express app on Node",
        'a: Nice. Do you want the usual Express layout: routes, controllers, an error handler at the end?',
        'u: yes please, and keep it in TypeScript',
        "a: Will do. I'll type the request handlers with Express's generics.",
      ]),
      ...session('omar', 's2', '2026-01-20T11:00:00Z', [
        'u: ugh, the coffee machine is broken again',
        "a: That's rough. Anything I can help with while you wait for caffeine?",
        "u: haha. yeah: I benchmarked the orders API yesterday and we're switching it to Fastify, the schema validation alone is worth it",
        "a: Makes sense. I'll port the routes to Fastify plugins and use JSON schemas for the request bodies.",
      ]),
      ...session('omar', 's3', '2026-01-27T09:15:00Z', [
        'u: the port went fine by the way, thanks',
        'a: Glad to hear it. Anything left on the orders API?',
        'u: can you add a health check route?',
        'a: Sure: GET /health returning the version and the uptime.',
      ]),
    ],
    questions: [
      {
        user: 'omar',
        query: 'What web framework is the orders service built on?',
        current: ['Fastify'],
        stale: ['Express'],
        as_of: [
          { at: '2026-01-15T12:00:00Z', expect: ['Express'], not: ['Fastify'] },
          { at: '2026-01-25T12:00:00Z', expect: ['Fastify'] },
        ],
      },
    ],
  },
  {
    id: 'ci-replaced',
    set: 'tune',
    about: '"replaced A with B" for the CI system, with a decision event beside the conversation',
    events: [
      ...session('mei', 's1', '2026-02-03T10:00:00Z', [
        'u: hey, our Jenkins job for the monorepo takes 40 minutes, any ideas?',
        'a: A few: cache node_modules between runs, split the test stage into parallel shards, and only build the packages that changed.',
        "u: I'll try the sharding first",
      ]),
      ...session('mei', 's2', '2026-02-10T15:30:00Z', [
        'u: good news, we replaced Jenkins with GitHub Actions last week',
        "a: Nice. I'll write GitHub Actions workflows from now on instead of Jenkinsfiles.",
        'u: yes. matrix builds for node 20 and 22 please',
        'a: Done: a matrix over Node 20 and 22 with the npm cache turned on.',
      ]),
      {
        user: 'mei',
        session: 's2',
        at: '2026-02-10T15:40:00Z',
        type: 'decision',
        content: 'The monorepo builds on GitHub Actions; the old build server is switched off.',
      },
      ...session('mei', 's3', '2026-02-17T09:00:00Z', [
        'u: morning',
        'a: Morning, Mei!',
        'u: the release workflow failed on the tag push, can you check the trigger?',
        "a: The trigger only matched branches; I added tags: ['v*'] so tag pushes run it too.",
      ]),
    ],
    questions: [
      {
        user: 'mei',
        query: 'Which CI system builds the monorepo?',
        current: ['GitHub Actions'],
        stale: ['Jenkins'],
        as_of: [
          { at: '2026-02-06T12:00:00Z', expect: ['Jenkins'], not: ['GitHub Actions'] },
          { at: '2026-02-14T12:00:00Z', expect: ['GitHub Actions'] },
        ],
      },
    ],
  },
  {
    id: 'host-gone',
    set: 'tune',
    about: '"A is gone, we use B now" for where a side project is hosted',
    events: [
      ...session('lucas', 's1', '2026-04-06T13:00:00Z', [
        'u: hi, I need a systemd unit for my side project, it runs on a DigitalOcean droplet',
        "a: Sure. Here's a unit with Restart=always and the environment loaded from /etc/sideproject.env.",
        'u: cool, thanks',
      ]),
      ...session('lucas', 's2', '2026-04-14T18:00:00Z', [
        'u: long day. quick question about backups',
        'a: Go ahead.',
        'u: how often should I snapshot the database for a hobby app?',
        'a: Daily is plenty for a hobby app; keep the last seven.',
      ]),
      ...session('lucas', 's3', '2026-04-22T19:30:00Z', [
        'u: the droplet is gone, we use a Hetzner box now, half the price',
        "a: Good call. I'll assume Hetzner Cloud for the side project from here on, same systemd setup.",
        'u: exactly. firewall rules next time',
        'a: Sounds good, I will have a ufw config ready.',
      ]),
    ],
    questions: [
      {
        user: 'lucas',
        query: 'Where is my side project hosted?',
        current: ['Hetzner'],
        stale: ['DigitalOcean'],
        as_of: [
          { at: '2026-04-18T12:00:00Z', expect: ['DigitalOcean'], not: ['Hetzner'] },
          { at: '2026-04-25T12:00:00Z', expect: ['Hetzner'] },
        ],
      },
    ],
  },
  {
    id: 'shell-no-longer',
    set: 'tune',
    about: '"I no longer use A" for the login shell',
    events: [
      ...session('ken', 's1', '2026-05-04T08:30:00Z', [
        "u: can you give me an alias for git log with a graph? I'm on bash",
        "a: Add this to your ~/.bashrc: alias glg='git log --graph --oneline --decorate'",
        'u: nice',
      ]),
      ...session('ken', 's2', '2026-05-19T20:00:00Z', [
        'u: evening. I finally cleaned up my dotfiles this weekend',
        "a: Satisfying, isn't it? What changed?",
        'u: I no longer use bash. zsh with a small .zshrc, no oh-my-zsh',
        "a: Noted. I'll give you zsh syntax from now on and keep it framework-free.",
      ]),
      ...session('ken', 's3', '2026-05-26T12:00:00Z', [
        'u: how do I make the prompt show the current git branch?',
        'a: Turn on vcs_info in your .zshrc and add vcs_info_msg_0_ to PROMPT with prompt_subst set.',
        'u: works, thanks!',
      ]),
    ],
    questions: [
      {
        user: 'ken',
        query: 'Which shell am I using?',
        current: ['zsh'],
        stale: ['bash'],
        as_of: [
          { at: '2026-05-10T12:00:00Z', expect: ['bash'], not: ['zsh'] },
          { at: '2026-05-22T12:00:00Z', expect: ['zsh'] },
        ],
      },
      { user: 'ken', query: 'Which airline do I usually fly with?', never_said: true },
    ],
  },
  {
    id: 'os-not-anymore',
    set: 'tune',
    about: '"not on A anymore" for the laptop operating system',
    events: [
      ...session('ana', 's1', '2026-06-01T10:00:00Z', [
        "u: hello! I'm on Windows 11 and WSL keeps eating my RAM",
        'a: You can cap it in %UserProfile%\\.wslconfig with memory=8GB.',
        "u: oh nice, didn't know that",
      ]),
      ...session('ana', 's2', '2026-06-09T09:45:00Z', [
        'u: so I gave up on the WSL dance',
        'a: What did you go with?',
        "u: I'm not on Windows anymore, I wiped the laptop and installed Fedora 40",
        'a: Got it, Fedora from now on: dnf instead of winget, and no more WSL paths in my examples.',
      ]),
      ...session('ana', 's3', '2026-06-16T14:20:00Z', [
        'u: how do I install the Docker engine?',
        "a: Add Docker's repository with dnf config-manager, then dnf install docker-ce and start the service.",
        'u: thanks, that helped',
      ]),
    ],
    questions: [
      {
        user: 'ana',
        query: 'What operating system runs on my laptop?',
        current: ['Fedora'],
        stale: ['Windows'],
        as_of: [
          { at: '2026-06-05T12:00:00Z', expect: ['Windows'], not: ['Fedora'] },
          { at: '2026-06-12T12:00:00Z', expect: ['Fedora'] },
        ],
      },
    ],
  },
  {
    id: 'search-took-over',
    set: 'tune',
    about: '"B took over from A" for the product search engine',
    events: [
      ...session('raj', 's1', '2026-02-09T11:00:00Z', [
        'u: hi, our product search runs on Elasticsearch and the relevance for typos is bad',
        'a: You could add a fuzzy match with fuzziness AUTO on the title field.',
        "u: I'll try that",
      ]),
      ...session('raj', 's2', '2026-02-23T16:40:00Z', [
        'u: update: Meilisearch took over from Elasticsearch for product search, typo tolerance out of the box',
        "a: Good fit for that. I'll write Meilisearch settings for you instead of index mappings.",
        'u: yes please, ranking rules with price last',
        'a: Done: words, typo, proximity, attribute, sort, exactness, then price.',
      ]),
      ...session('raj', 's3', '2026-03-02T10:10:00Z', [
        'u: monday again',
        "a: Happy Monday! What's first?",
        'u: the search index is missing the new SKUs',
        'a: The sync job filters by updated_at and the new SKUs were imported with an old timestamp; reindex them explicitly.',
      ]),
    ],
    questions: [{ user: 'raj', query: 'What engine powers our product search?', current: ['Meilisearch'], stale: ['Elasticsearch'] }],
  },
  {
    id: 'launch-deadline-slip',
    set: 'tune',
    about: '"the deadline slipped to …" for a launch date',
    events: [
      ...session('sofia', 's1', '2026-01-05T09:00:00Z', [
        'u: happy new year! back at it',
        'a: Happy new year, Sofia! What are we working on?',
        'u: the mobile launch. the deadline is February 27, so we have about eight weeks',
        "a: Understood: launch on February 27. I'll plan the remaining work in weekly milestones.",
      ]),
      ...session('sofia', 's2', '2026-01-21T15:00:00Z', [
        'u: can you turn the milestones into a checklist?',
        "a: Here's the checklist: store listing, crash reporting, first-run flow, push notifications, release candidate.",
        'u: thanks',
      ]),
      ...session('sofia', 's3', '2026-02-04T10:30:00Z', [
        'u: bad news. the launch deadline slipped to March 20, the app store review for payments takes longer than we thought',
        "a: Noted: the launch is now March 20. I'll shift the milestones by three weeks.",
        'u: yeah. and move the release candidate to March 6',
        'a: Done: release candidate March 6, launch March 20.',
      ]),
    ],
    questions: [
      {
        user: 'sofia',
        query: 'When are we launching the mobile app?',
        current: ['March 20'],
        stale: ['February 27'],
        as_of: [
          { at: '2026-01-25T12:00:00Z', expect: ['February 27'], not: ['March 20'] },
          { at: '2026-02-10T12:00:00Z', expect: ['March 20'] },
        ],
      },
      { user: 'sofia', query: 'Who is our accountant?', never_said: true },
    ],
  },
  {
    id: 'node-upgrade',
    set: 'tune',
    about: '"upgraded to v…" for the Node.js version of a service',
    events: [
      ...session('priya', 's1', '2026-04-01T09:00:00Z', [
        'u: the billing service is still on Node 18 and npm warns about engines everywhere',
        'a: Node 18 is out of support, so upgrading is worth it. Want a plan?',
        'u: later, first help me with this flaky test',
        'a: The test depends on the wall clock; inject a clock and it stops flaking.',
      ]),
      ...session('priya', 's2', '2026-04-15T13:00:00Z', [
        'u: we upgraded the billing service to Node 22 yesterday',
        "a: Great. I'll use what Node 22 offers in the billing service, like the built-in test runner's mocks.",
        'u: does fetch need a polyfill there?',
        'a: No, fetch is global there; you can drop node-fetch.',
      ]),
      ...session('priya', 's3', '2026-04-23T10:00:00Z', [
        'u: hi again',
        'a: Hi Priya! What are we looking at?',
        'u: the invoice PDF job times out on large accounts',
        'a: It renders every page in memory; stream the pages to the file instead.',
      ]),
    ],
    questions: [
      {
        user: 'priya',
        query: 'Which Node version does billing run on?',
        current: ['Node 22'],
        stale: ['Node 18'],
        as_of: [
          { at: '2026-04-08T12:00:00Z', expect: ['Node 18'], not: ['Node 22'] },
          { at: '2026-04-20T12:00:00Z', expect: ['Node 22'] },
        ],
      },
    ],
  },
  {
    id: 'editor-restatement',
    set: 'tune',
    about: 'a plain restatement with a new value in a later session ("My editor is Neovim now" after "plain Vim")',
    events: [
      ...session('leo', 's1', '2026-02-02T09:30:00Z', [
        "u: hi! I've been using plain Vim for years, so keep keybinding tips Vim-style",
        'a: Will do. Modal editing all the way.',
        'u: how do I search and replace across a project?',
        'a: :vimgrep to collect the matches, then :cfdo %s/old/new/g | update.',
      ]),
      ...session('leo', 's2', '2026-02-11T17:00:00Z', [
        'u: random question, is it worth learning Rust this year?',
        'a: If you write systems code or CLIs, yes; the tooling is very good.',
        'u: maybe in summer',
      ]),
      ...session('leo', 's3', '2026-02-24T10:00:00Z', [
        'u: my editor is Neovim now, with lazy.nvim and a handful of plugins',
        "a: Got it, I'll use Neovim-friendly examples, Lua config instead of Vimscript.",
        "u: thanks. what's a good LSP setup for TypeScript?",
        'a: nvim-lspconfig with ts_ls, plus conform.nvim for formatting.',
      ]),
    ],
    questions: [
      {
        user: 'leo',
        query: 'Which text editor do I work in?',
        current: ['Neovim'],
        stale: ['plain Vim', 'Vim-style'],
        as_of: [
          { at: '2026-02-15T12:00:00Z', expect: ['Vim'], not: ['Neovim'] },
          { at: '2026-02-27T12:00:00Z', expect: ['Neovim'] },
        ],
      },
      { user: 'leo', query: "What is my dog's name?", never_said: true },
    ],
  },
  {
    id: 'dark-mode-negation',
    set: 'tune',
    about: 'the negation of a preference ("I don\'t like dark mode anymore")',
    events: [
      ...session('nina', 's1', '2026-05-05T21:00:00Z', [
        'u: I love dark mode, please make the dashboard mockups dark',
        'a: Sure, dark backgrounds with high-contrast text for your mockups.',
        'u: perfect',
      ]),
      ...session('nina', 's2', '2026-05-20T08:00:00Z', [
        'u: good morning',
        'a: Good morning, Nina!',
        "u: I don't like dark mode anymore; the light theme is easier on my eyes during the day",
        'a: Understood, light theme for your mockups from now on.',
      ]),
      ...session('nina', 's3', '2026-05-28T11:00:00Z', [
        'u: can you mock up the settings page?',
        "a: Here's the settings page: account, notifications, billing.",
        'u: thanks, that helped',
      ]),
    ],
    questions: [
      {
        user: 'nina',
        query: 'What colour scheme do I want for mockups?',
        current: ['light theme'],
        stale: ['love dark mode', 'dark backgrounds'],
        as_of: [
          { at: '2026-05-12T12:00:00Z', expect: ['dark'], not: ['light theme'] },
          { at: '2026-05-25T12:00:00Z', expect: ['light theme'] },
        ],
      },
    ],
  },
  {
    id: 'staging-assistant-confirm',
    set: 'tune',
    about: 'the change said by the assistant confirming the user ("Noted — staging now deploys to Fly.io instead of Heroku")',
    events: [
      ...session('ines', 's1', '2026-03-09T10:00:00Z', [
        'u: our staging environment deploys to Heroku on every merge to main',
        'a: Okay. Then a review app per pull request would be the next step there.',
        'u: maybe later',
      ]),
      ...session('ines', 's2', '2026-03-17T15:00:00Z', [
        "u: the pricing change kills us. let's do the thing we talked about for staging",
        "a: Noted — staging now deploys to Fly.io instead of Heroku. I'll write the fly.toml and the deploy workflow.",
        'u: yes, go',
      ]),
      ...session('ines', 's3', '2026-03-24T09:00:00Z', [
        'u: morning. staging was down for ten minutes last night',
        'a: The machine restarted after an out-of-memory kill; raising its memory to 512 MB should fix it.',
        'u: ok do it',
      ]),
    ],
    questions: [
      {
        user: 'ines',
        query: 'Where does our staging environment get deployed?',
        current: ['Fly.io', 'fly.toml'],
        stale: ['Heroku'],
        as_of: [
          { at: '2026-03-13T12:00:00Z', expect: ['Heroku'], not: ['Fly.io'] },
          { at: '2026-03-20T12:00:00Z', expect: ['Fly.io'] },
        ],
      },
      { user: 'ines', query: "What's our Kubernetes cluster called?", never_said: true },
    ],
  },
  {
    id: 'ingest-language-chain',
    set: 'tune',
    about: 'a chain A → B → C: the ingest worker goes from Python to Elixir to Rust',
    events: [
      ...session('owen', 's1', '2026-01-08T10:00:00Z', [
        'u: the ingest worker is written in Python, it pulls from Kafka and writes Parquet',
        'a: Got it. For Python, confluent-kafka and pyarrow are the usual pair.',
        "u: yep that's what we use",
      ]),
      ...session('owen', 's2', '2026-02-12T14:00:00Z', [
        'u: we rewrote the ingest worker in Elixir, Broadway handles the back-pressure for us',
        "a: Nice, Broadway is a good fit. I'll answer with Elixir for the ingest worker from now on.",
        'u: how do I batch by partition in Broadway?',
        'a: Use a batcher with batch_key set to the partition in handle_message.',
      ]),
      ...session('owen', 's3', '2026-03-19T11:30:00Z', [
        "u: you won't believe it",
        'a: Try me.',
        'u: Elixir did not stick, nobody else on the team could maintain it. the ingest worker is Rust now, with rdkafka and arrow-rs',
        'a: Understood, Rust for the ingest worker: rdkafka for consuming, arrow-rs for the Parquet files.',
      ]),
    ],
    questions: [
      {
        user: 'owen',
        query: 'What language is the ingest worker written in?',
        current: ['Rust'],
        stale: ['Python', 'Elixir'],
        as_of: [
          { at: '2026-01-20T12:00:00Z', expect: ['Python'], not: ['Elixir', 'Rust'] },
          { at: '2026-03-01T12:00:00Z', expect: ['Elixir'], not: ['Rust'] },
          { at: '2026-03-25T12:00:00Z', expect: ['Rust'] },
        ],
      },
    ],
  },
  {
    id: 'standup-time-chain',
    set: 'tune',
    about: 'a chain of standup times 9:30 → 10:00 → 10:15',
    events: [
      ...session('hana', 's1', '2026-02-02T08:00:00Z', [
        'u: morning! our team standup is at 9:30 every day, remind me to prep notes before it',
        'a: Will do, a nudge fifteen minutes before.',
        'u: thanks',
      ]),
      ...session('hana', 's2', '2026-02-16T08:30:00Z', [
        'u: standup moved to 10:00 because half the team is in Lisbon now',
        'a: Got it, standup at 10:00. The nudge moves with it.',
        'u: great',
      ]),
      ...session('hana', 's3', '2026-03-02T09:00:00Z', [
        'u: they moved it again, standup is at 10:15 from this week',
        'a: Okay, 10:15 it is.',
        "u: thanks. also what's a good format for async updates?",
        'a: Yesterday, today, blockers: three lines each, posted in the channel before the call.',
      ]),
    ],
    questions: [
      {
        user: 'hana',
        query: 'When is standup?',
        current: ['10:15'],
        stale: ['9:30', '10:00'],
        as_of: [
          { at: '2026-02-10T12:00:00Z', expect: ['9:30'], not: ['10:00', '10:15'] },
          { at: '2026-02-25T12:00:00Z', expect: ['10:00'], not: ['10:15'] },
          { at: '2026-03-05T12:00:00Z', expect: ['10:15'] },
        ],
      },
    ],
  },
  {
    id: 'oncall-chain',
    set: 'tune',
    about: 'a chain of on-call people, Aisha → Marco ("took over") → Lena',
    events: [
      ...session('grace', 's1', '2026-04-06T09:00:00Z', [
        'u: Aisha is on call for the payments service this week',
        "a: Noted, I'll point payments alert questions to Aisha.",
        'u: thanks',
      ]),
      ...session('grace', 's2', '2026-04-13T09:05:00Z', [
        'u: rotation switched: Marco took over on-call from Aisha today',
        'a: Got it, Marco carries the payments pager now.',
        "u: can you summarize last week's incidents for the handover?",
        'a: Two incidents: a webhook backlog and an expired certificate.',
      ]),
      ...session('grace', 's3', '2026-04-20T09:10:00Z', [
        'u: happy monday',
        'a: Happy Monday, Grace!',
        "u: Lena is on call for payments now, Marco's week is over",
        'a: Understood: Lena has the payments pager this week.',
      ]),
    ],
    questions: [
      {
        user: 'grace',
        query: "Who's on call for payments right now?",
        current: ['Lena'],
        stale: ['Aisha', 'Marco'],
        as_of: [
          { at: '2026-04-10T12:00:00Z', expect: ['Aisha'], not: ['Marco', 'Lena'] },
          { at: '2026-04-16T12:00:00Z', expect: ['Marco'], not: ['Lena'] },
          { at: '2026-04-22T12:00:00Z', expect: ['Lena'] },
        ],
      },
      { user: 'grace', query: 'Who is Devon?', never_said: true },
    ],
  },
  {
    id: 'manager-chain',
    set: 'tune',
    about: 'a chain of managers through two reorgs, Tobias → Rachel → Oskar',
    events: [
      ...session('kai', 's1', '2026-01-13T10:00:00Z', [
        'u: I have my first 1:1 with my manager Tobias tomorrow, what should I bring?',
        'a: Bring your goals for the quarter, one thing that blocks you, and a question about how he likes updates.',
        'u: good list, thanks',
      ]),
      ...session('kai', 's2', '2026-03-03T16:00:00Z', [
        'u: reorg happened. Rachel is my manager now, Tobias moved to the platform group',
        'a: Got it, you report to Rachel now. Want a note to introduce yourself?',
        'u: yes, short',
        "a: Here's a short note: who you are, what you work on, and how you like feedback.",
      ]),
      ...session('kai', 's3', '2026-05-12T11:00:00Z', [
        'u: another reorg, can you believe it',
        "a: That's a lot of change in one year. What happened?",
        'u: I report to Oskar now, Rachel went on parental leave',
        "a: Noted, Oskar is your manager. I'll keep that in mind for the 1:1 prep.",
      ]),
    ],
    questions: [
      {
        user: 'kai',
        query: 'Who is my boss?',
        current: ['Oskar'],
        stale: ['Tobias', 'Rachel'],
        as_of: [
          { at: '2026-02-01T12:00:00Z', expect: ['Tobias'], not: ['Rachel', 'Oskar'] },
          { at: '2026-04-01T12:00:00Z', expect: ['Rachel'], not: ['Oskar'] },
          { at: '2026-05-20T12:00:00Z', expect: ['Oskar'] },
        ],
      },
      { user: 'kai', query: "What's my sister's name?", never_said: true },
    ],
  },
  {
    id: 'analytics-db-reversal',
    set: 'tune',
    about: 'a reversal A → B → A: analytics goes from Postgres to ClickHouse and back to Postgres',
    events: [
      ...session('felix', 's1', '2026-02-04T10:00:00Z', [
        'u: our analytics tables live in Postgres, and the dashboard queries are getting slow',
        'a: Partitioning the events table by month and adding BRIN indexes on the timestamp should help.',
        "u: I'll try that",
      ]),
      ...session('felix', 's2', '2026-03-11T14:00:00Z', [
        'u: we moved the analytics tables to ClickHouse, the dashboards load in under a second now',
        "a: Nice. I'll write ClickHouse SQL for the analytics queries from now on.",
        'u: how do I do a rolling 7-day count there?',
        'a: Use a window function over a daily aggregate, or groupArrayMovingSum.',
      ]),
      ...session('felix', 's3', '2026-04-22T09:30:00Z', [
        'u: morning. so, ClickHouse is out',
        'a: Oh? What happened?',
        'u: running a second database was too much ops for three people, so the analytics tables went back to Postgres, with partitioning this time',
        "a: Understood, analytics is back to Postgres. I'll write partition-aware queries again.",
      ]),
    ],
    questions: [
      {
        user: 'felix',
        query: 'Which database holds the analytics tables?',
        current: ['back to Postgres'],
        stale: ['to ClickHouse', 'ClickHouse SQL'],
        as_of: [
          { at: '2026-03-01T12:00:00Z', expect: ['Postgres'], not: ['ClickHouse'] },
          { at: '2026-04-01T12:00:00Z', expect: ['ClickHouse'], not: ['back to Postgres'] },
          { at: '2026-04-30T12:00:00Z', expect: ['back to Postgres'] },
        ],
      },
    ],
  },
  {
    id: 'coffee-reversal',
    set: 'tune',
    about: 'a reversal of a coffee order: oat flat white → black americano → back to oat flat whites',
    events: [
      ...session('zoe', 's1', '2026-01-06T08:00:00Z', [
        "u: good morning! I'm grabbing my usual oat flat white, then let's plan the week",
        "a: Enjoy the coffee. What's on the plan?",
        'u: the grant report and two design reviews',
        "a: I'd do the grant report early in the week while you're fresh, and the reviews after.",
      ]),
      ...session('zoe', 's2', '2026-02-10T08:15:00Z', [
        "u: I've cut out milk, so it's a black americano for me now",
        "a: Noted, black americano. How's the grant report going?",
        'u: submitted!',
        'a: Congratulations!',
      ]),
      ...session('zoe', 's3', '2026-03-17T08:05:00Z', [
        "u: update nobody asked for: the americano phase is over, I'm back to oat flat whites",
        "a: Ha, noted: you're back to oat flat whites.",
        "u: ok, what's on today?",
        'a: The quarterly review prep and your 2 pm call.',
      ]),
    ],
    questions: [
      {
        user: 'zoe',
        query: 'What coffee do I usually order?',
        current: ['back to oat'],
        stale: ['americano'],
        as_of: [
          { at: '2026-02-01T12:00:00Z', expect: ['oat flat white'], not: ['americano'] },
          { at: '2026-03-01T12:00:00Z', expect: ['americano'], not: ['back to oat'] },
          { at: '2026-03-20T12:00:00Z', expect: ['back to oat'] },
        ],
      },
      { user: 'zoe', query: "What's my blood type?", never_said: true },
    ],
  },
  {
    id: 'sprint-length-reversal',
    set: 'tune',
    about: 'a reversal of the sprint length: two weeks → one week → back to two weeks',
    events: [
      ...session('mateo', 's1', '2026-01-19T10:00:00Z', [
        'u: hi! context for planning: our sprints are two weeks long',
        "a: Got it. I'll size the work for two weeks at a time.",
        'u: great, can you group the backlog by epic?',
        'a: Done: four epics, the payments one is the biggest.',
      ]),
      ...session('mateo', 's2', '2026-02-23T10:00:00Z', [
        "u: we're experimenting with one-week sprints this quarter",
        'a: Okay, one-week sprints. I will keep tickets smaller so they fit.',
        'u: good idea',
      ]),
      ...session('mateo', 's3', '2026-04-06T10:00:00Z', [
        "u: the experiment's done. the short cycle was all ceremony, we went back to two-week sprints",
        'a: Understood, back to two-week sprints.',
        'u: thank god',
        'a: Ha. Want me to re-plan the next cycle?',
      ]),
    ],
    questions: [
      {
        user: 'mateo',
        query: 'How long is a sprint for us?',
        current: ['back to two-week'],
        stale: ['one-week'],
        as_of: [
          { at: '2026-03-10T12:00:00Z', expect: ['one-week'], not: ['back to two-week'] },
          { at: '2026-04-10T12:00:00Z', expect: ['back to two-week'] },
        ],
      },
    ],
  },
  {
    id: 'frontend-confirm',
    set: 'tune',
    about: 'a restatement of the same value (a rewrite proposal is turned down): no change',
    events: [
      ...session('ivy', 's1', '2026-03-02T13:00:00Z', [
        "u: the marketing site's frontend is SvelteKit, deployed as static pages",
        'a: Got it, SvelteKit with the static adapter.',
        'u: can you write a contact form component?',
        "a: Here's a ContactForm component with client-side validation and a fallback without JavaScript.",
      ]),
      ...session('ivy', 's2', '2026-03-10T11:00:00Z', [
        'u: someone on the team suggested rewriting the site in Next.js',
        'a: What is the motivation? The current stack seems to work.',
        'u: mostly hype. we talked it through and the frontend stays on SvelteKit',
        'a: Makes sense, nothing changes then.',
      ]),
      ...session('ivy', 's3', '2026-03-18T09:00:00Z', [
        'u: hi, we need a sitemap',
        'a: You can generate one from a server route that lists your pages.',
        'u: nice, thanks',
      ]),
    ],
    questions: [
      { user: 'ivy', query: 'What is the marketing site built with?', current: ['SvelteKit'] },
      { user: 'ivy', query: 'Which gym do I go to?', never_said: true },
    ],
  },
  {
    id: 'city-confirm',
    set: 'tune',
    about: 'a restatement of the same city after a job offer elsewhere: no change',
    events: [
      ...session('elena', 's1', '2026-02-16T19:00:00Z', [
        'u: I live in Lisbon, so please show times in Lisbon time',
        'a: Will do, Lisbon time for everything.',
        'u: thanks',
      ]),
      ...session('elena', 's2', '2026-04-08T18:30:00Z', [
        'u: I got a job offer in Amsterdam!',
        'a: Congratulations! Are you considering moving?',
        'u: I turned it down. still in Lisbon, no plans to move',
        "a: Understood, you're staying put.",
      ]),
      ...session('elena', 's3', '2026-04-20T10:00:00Z', [
        'u: can you help me write a thank-you note to the recruiter?',
        "a: Sure: thank them for their time, say it wasn't the right moment, and keep the door open.",
        'u: perfect',
      ]),
    ],
    questions: [{ user: 'elena', query: 'Which city am I based in?', current: ['Lisbon'] }],
  },
  {
    id: 'mobile-store-late',
    set: 'tune',
    about: 'a late arrival: the older statement (Core Data) arrives after the newer one (Realm)',
    events: [
      ...session('noah', 's2', '2026-02-02T15:00:00Z', [
        'u: hey, how do I profile app launch time on iOS?',
        'a: Use the App Launch template in Instruments and look at the pre-main and first-frame phases.',
        'u: thanks',
      ]),
      ...session('noah', 's3', '2026-03-04T11:00:00Z', [
        'u: we replaced Core Data with Realm in the mobile app, the migrations were killing us',
        "a: Okay, Realm it is. I'll write Realm schema migrations from now on.",
        'u: can objects be shared between threads there?',
        'a: Pass frozen objects or primary keys between threads, not live objects.',
      ]),
      // The first session arrives last, synced late from another device.
      ...session('noah', 's1', '2026-01-14T10:00:00Z', [
        'u: the mobile app stores everything locally in Core Data',
        'a: Got it. For Core Data, lightweight migrations cover most schema changes.',
        'u: good to know',
      ]),
    ],
    questions: [
      {
        user: 'noah',
        query: 'What does the mobile app use for local storage?',
        current: ['Realm'],
        stale: ['Core Data'],
        as_of: [
          { at: '2026-02-10T12:00:00Z', expect: ['Core Data'], not: ['Realm'] },
          { at: '2026-03-10T12:00:00Z', expect: ['Realm'] },
        ],
      },
    ],
  },
  {
    id: 'planning-room-late',
    set: 'tune',
    about: 'a late arrival for a meeting room, with a note event',
    events: [
      ...session('chloe', 's2', '2026-05-18T09:00:00Z', [
        'u: planning moved to room Kepler, Galileo is being renovated',
        "a: Got it, I'll put Kepler on the planning invites.",
        'u: thanks',
      ]),
      ...session('chloe', 's3', '2026-05-25T09:00:00Z', [
        'u: can you draft the agenda for planning?',
        'a: Here is a draft: review of last sprint, capacity, top five tickets, risks.',
        'u: add a slot for the design review',
      ]),
      // The older note arrives last.
      {
        user: 'chloe',
        session: 's1',
        at: '2026-05-04T08:00:00Z',
        type: 'note',
        content: 'Sprint planning is in room Galileo on the third floor, every other Monday.',
      },
      ...session('chloe', 's1', '2026-05-04T08:05:00Z', ['u: did you get my note about planning?', 'a: Yes, Galileo on the third floor.']),
    ],
    questions: [
      {
        user: 'chloe',
        query: 'Which room is sprint planning in?',
        current: ['Kepler'],
        stale: ['Galileo'],
        as_of: [
          { at: '2026-05-10T12:00:00Z', expect: ['Galileo'], not: ['Kepler'] },
          { at: '2026-05-20T12:00:00Z', expect: ['Kepler'] },
        ],
      },
      { user: 'chloe', query: 'Who is our landlord?', never_said: true },
    ],
  },
  {
    id: 'sam-employer-late',
    set: 'tune',
    about: "a late arrival about a friend's employer (Shopify, then Stripe)",
    events: [
      ...session('maya', 's2', '2026-03-15T18:00:00Z', [
        'u: news: Sam left Shopify, he joined Stripe last month',
        'a: Good for him! Does that change the referral plan?',
        'u: maybe, he said he can still refer me there',
      ]),
      ...session('maya', 's1', '2026-01-20T19:00:00Z', [
        'u: my friend Sam works at Shopify as a data engineer, he might refer me',
        'a: That helps a lot. Want to tailor your resume for a data role?',
        'u: yes please',
      ]),
      ...session('maya', 's3', '2026-03-28T17:30:00Z', [
        'u: can you shorten my resume to one page?',
        'a: Sure. I cut the oldest two jobs to one line each and merged the skills sections.',
        'u: looks great, thanks',
      ]),
    ],
    questions: [
      {
        user: 'maya',
        query: 'Who does Sam work for these days?',
        current: ['Stripe'],
        stale: ['Shopify'],
        as_of: [
          { at: '2026-02-15T12:00:00Z', expect: ['Shopify'], not: ['Stripe'] },
          { at: '2026-03-20T12:00:00Z', expect: ['Stripe'] },
        ],
      },
    ],
  },
  {
    id: 'demo-day-paraphrase',
    set: 'tune',
    about: 'a subject paraphrase: "the sprint demo" is later called "the end-of-sprint showcase"',
    events: [
      ...session('theo', 's1', '2026-02-06T14:00:00Z', [
        'u: our sprint demo is on Fridays at 3 pm, can you help me prepare slides?',
        'a: Sure. Keep it to five slides: goal, what shipped, a live demo, metrics, next sprint.',
        'u: sounds good',
      ]),
      ...session('theo', 's2', '2026-02-19T10:00:00Z', [
        'u: quick one: what is a good way to record a screen demo as a backup?',
        'a: Record a short clip with the built-in recorder and keep it on the desktop in case the live demo fails.',
        'u: smart',
      ]),
      ...session('theo', 's3', '2026-02-27T11:00:00Z', [
        'u: the end-of-sprint showcase moved to Thursdays, too many people leave early at the end of the week',
        'a: Makes sense. I will plan your prep a day earlier from now on.',
        'u: thanks',
      ]),
    ],
    questions: [
      {
        user: 'theo',
        query: 'What day is the sprint demo?',
        current: ['Thursday'],
        stale: ['Friday'],
        as_of: [
          { at: '2026-02-15T12:00:00Z', expect: ['Friday'], not: ['Thursday'] },
          { at: '2026-03-05T12:00:00Z', expect: ['Thursday'] },
        ],
      },
    ],
  },
  {
    id: 'control-cat-name',
    set: 'tune',
    about: 'an unchanged control: a pet named once among chit-chat, asked later',
    events: [
      ...session('lily', 's1', '2026-03-03T20:00:00Z', [
        'u: sorry for the typos, my cat Miso keeps walking over the keyboard',
        'a: Ha, a classic. Does she do it every evening?',
        'u: every single one',
        'a: A warm spot next to the laptop might keep her off it.',
      ]),
      ...session('lily', 's2', '2026-03-10T09:00:00Z', [
        'u: morning! can you explain CSS grid areas to me?',
        'a: You name regions with grid-template-areas and place children with grid-area.',
        'u: oh, that is neat',
      ]),
      ...session('lily', 's3', '2026-03-17T10:00:00Z', [
        'u: what is the difference between flex-basis and width?',
        'a: flex-basis sets the starting size along the main axis before growing or shrinking; width is only used when flex-basis is auto.',
        'u: thanks, that helped',
      ]),
    ],
    questions: [
      { user: 'lily', query: "What's my cat called?", current: ['Miso'] },
      { user: 'lily', query: 'What car do I drive?', never_said: true },
    ],
  },
  {
    id: 'diet-vegan',
    set: 'tune',
    about: 'a diet change: vegetarian → vegan',
    events: [
      ...session('ravi', 's1', '2026-01-10T18:00:00Z', [
        "u: I'm vegetarian, so skip the meat in recipe suggestions",
        'a: Understood, meat-free recipes only.',
        'u: something quick for tonight?',
        'a: A mushroom risotto takes about thirty minutes.',
      ]),
      ...session('ravi', 's2', '2026-02-01T12:00:00Z', [
        'u: I went vegan in January, so no dairy or eggs either',
        'a: Got it, fully plant-based from now on.',
        'u: thanks',
      ]),
      ...session('ravi', 's3', '2026-02-09T18:30:00Z', [
        "u: what's a quick dinner?",
        'a: Chickpea curry with coconut milk and rice, about twenty-five minutes.',
        'u: perfect',
      ]),
    ],
    questions: [
      {
        user: 'ravi',
        query: 'Do I have any dietary restrictions?',
        current: ['vegan', 'plant-based'],
        stale: ['vegetarian', 'meat-free'],
        as_of: [
          { at: '2026-01-20T12:00:00Z', expect: ['vegetarian', 'meat-free'], not: ['vegan'] },
          { at: '2026-02-05T12:00:00Z', expect: ['vegan', 'plant-based'] },
        ],
      },
    ],
  },
  {
    id: 'control-role',
    set: 'tune',
    about: "an unchanged control: the user's role, said once",
    events: [
      ...session('ben', 's1', '2026-04-07T09:00:00Z', [
        'u: hi, some context first: I am the tech lead on the Payments team',
        'a: Thanks, that helps. What are you working on?',
        'u: a refund flow that has to handle partial refunds',
        'a: Store each refund as its own row linked to the charge, and derive the refunded total from them.',
      ]),
      ...session('ben', 's2', '2026-04-15T14:00:00Z', [
        'u: can you review this SQL for the refunds report?',
        'a: The join duplicates rows when a charge has several refunds; aggregate the refunds first.',
        'u: good catch',
      ]),
      ...session('ben', 's3', '2026-04-28T16:00:00Z', [
        'u: last thing today: how should I phrase a rejection of a design proposal kindly?',
        'a: Start with what the proposal gets right, name the one blocking concern, and offer to pair on an alternative.',
        'u: thanks',
      ]),
    ],
    questions: [
      { user: 'ben', query: 'What is my job title?', current: ['tech lead'] },
      { user: 'ben', query: "What's the Wi-Fi password at the office?", never_said: true },
    ],
  },
  {
    id: 'two-users-editor',
    set: 'tune',
    about: 'two users with the same topic and different values (VS Code and Emacs)',
    events: [
      ...session('dana', 'd1', '2026-02-02T09:00:00Z', [
        "u: I'm a VS Code person, so give me shortcuts for that",
        'a: Will do. Command palette is Ctrl+Shift+P to start with.',
        'u: ha, I know that one',
      ]),
      ...session('omar', 'o1', '2026-02-03T10:00:00Z', [
        'u: Emacs forever, I even read mail in it',
        'a: Respect. I will give you Emacs keybindings and elisp snippets.',
        'u: good',
      ]),
      ...session('dana', 'd2', '2026-02-16T11:00:00Z', [
        'u: how do I sync my editor settings between two laptops?',
        'a: Turn on Settings Sync in VS Code and sign in with the same account on both.',
        'u: done, thanks',
      ]),
      ...session('omar', 'o2', '2026-02-17T15:00:00Z', [
        'u: how do I schedule a task for next week in org-mode?',
        'a: Put the cursor on the heading and press C-c C-s, then type +1w.',
        'u: lovely',
      ]),
    ],
    questions: [
      { user: 'dana', query: 'Which editor do I use?', current: ['VS Code'], stale: ['Emacs'] },
      { user: 'omar', query: 'Which editor do I use?', current: ['Emacs'], stale: ['VS Code'] },
    ],
  },
  {
    id: 'two-users-db',
    set: 'tune',
    about: 'two users on MySQL; one moves their service to Postgres, the other stays',
    events: [
      ...session('priya', 'p1', '2026-01-12T10:00:00Z', [
        'u: our inventory service runs on MySQL 8',
        'a: Noted. Want me to look at the slow queries you mentioned?',
        'u: yes, tomorrow',
      ]),
      ...session('jon', 'j1', '2026-01-13T11:00:00Z', [
        'u: the reporting service I own is on MySQL as well',
        'a: Got it. Are the reports run against a replica?',
        'u: yes, a read replica',
      ]),
      ...session('priya', 'p2', '2026-02-20T14:00:00Z', [
        'u: we moved inventory from MySQL to Postgres over the weekend',
        'a: Nice. I will write Postgres SQL for the inventory service from now on.',
        'u: thanks',
      ]),
      ...session('jon', 'j2', '2026-02-22T09:30:00Z', [
        'u: reporting stays on MySQL for now, we have bigger fish to fry',
        'a: Understood, no change for reporting.',
        'u: yep',
      ]),
    ],
    questions: [
      {
        user: 'priya',
        query: 'Which database is the inventory service on?',
        current: ['Postgres'],
        stale: ['MySQL'],
        as_of: [
          { at: '2026-02-01T12:00:00Z', expect: ['MySQL'], not: ['Postgres'] },
          { at: '2026-03-01T12:00:00Z', expect: ['Postgres'] },
        ],
      },
      { user: 'jon', query: 'What database does reporting run on?', current: ['MySQL'], stale: ['Postgres'] },
    ],
  },
  {
    id: 'preferred-language',
    set: 'tune',
    about: 'the language the user wants answers in: English → Spanish',
    events: [
      ...session('lucia', 's1', '2026-01-05T09:00:00Z', [
        'u: please answer me in English, my team reads these notes too',
        'a: Of course, English it is.',
        'u: thanks. first task: summarize the meeting notes I pasted yesterday',
        'a: Three decisions, two open questions, and one owner missing for the pricing page.',
      ]),
      ...session('lucia', 's2', '2026-02-14T10:00:00Z', [
        "u: from now on I'd rather you answer in Spanish, the notes are just for me now",
        'a: Entendido, from now on I will answer in Spanish.',
        'u: gracias',
      ]),
      ...session('lucia', 's3', '2026-02-20T11:00:00Z', [
        'u: can you draft a reminder for the pricing page owner?',
        'a: Claro: a short reminder asking who owns the pricing page by Friday.',
        'u: perfect',
      ]),
    ],
    questions: [
      {
        user: 'lucia',
        query: 'What language should replies to me be written in?',
        current: ['Spanish'],
        stale: ['in English', 'English it is'],
        as_of: [
          { at: '2026-02-01T12:00:00Z', expect: ['English'], not: ['Spanish'] },
          { at: '2026-02-16T12:00:00Z', expect: ['Spanish'] },
        ],
      },
    ],
  },
  {
    id: 'puppy-rename',
    set: 'tune',
    about: "a pet's name changed after adoption (Biscuit → Waffles)",
    events: [
      ...session('jake', 's1', '2026-04-04T17:00:00Z', [
        'u: we adopted a puppy! the shelter called him Biscuit',
        'a: Congratulations! How old is he?',
        'u: ten weeks',
        'a: A great age to start with crate training.',
      ]),
      ...session('jake', 's2', '2026-04-12T18:00:00Z', [
        'u: we renamed the puppy Waffles, he never answered to his shelter name anyway',
        'a: Waffles is a great name. Use it with treats for a few days and he will pick it up.',
        'u: ha, he already does',
      ]),
      ...session('jake', 's3', '2026-04-20T19:00:00Z', [
        'u: he keeps biting my hands when we play',
        'a: Yelp and pause the game when he bites, then offer a chew toy instead.',
        'u: will try, thanks',
      ]),
    ],
    questions: [
      {
        user: 'jake',
        query: "What's my puppy's name?",
        current: ['Waffles'],
        stale: ['Biscuit'],
        as_of: [
          { at: '2026-04-08T12:00:00Z', expect: ['Biscuit'], not: ['Waffles'] },
          { at: '2026-04-15T12:00:00Z', expect: ['Waffles'] },
        ],
      },
    ],
  },
  {
    id: 'deploy-target',
    set: 'tune',
    about: 'the deploy target of an API: Fargate → a Nomad cluster',
    events: [
      ...session('aria', 's1', '2026-03-02T10:00:00Z', [
        'u: the API deploys to AWS Fargate through Terraform',
        'a: Got it. Task definitions in Terraform, one service per environment?',
        'u: exactly',
      ]),
      ...session('aria', 's2', '2026-03-12T13:00:00Z', [
        'u: how do I rotate a database password without downtime?',
        'a: Create the new password alongside the old one, roll the app over to it, then drop the old one.',
        'u: makes sense',
      ]),
      ...session('aria', 's3', '2026-03-23T15:00:00Z', [
        'u: we left AWS for the API; it runs on our own Nomad cluster now',
        'a: Understood. I will write Nomad job specs for the API from now on.',
        'u: start with the health checks',
        'a: Here is a service block with an HTTP check on /health every ten seconds.',
      ]),
    ],
    questions: [
      {
        user: 'aria',
        query: 'Where is the API deployed?',
        current: ['Nomad'],
        stale: ['Fargate'],
        as_of: [
          { at: '2026-03-16T12:00:00Z', expect: ['Fargate'], not: ['Nomad'] },
          { at: '2026-03-26T12:00:00Z', expect: ['Nomad'] },
        ],
      },
    ],
  },
  {
    id: 'lena-role-change',
    set: 'tune',
    about: "a colleague's role: backend engineer → engineering manager",
    events: [
      ...session('pia', 's1', '2026-01-27T10:00:00Z', [
        'u: Lena is a backend engineer on my team, she wrote most of the queue code',
        'a: Good to know. Should I suggest her as a reviewer for queue changes?',
        'u: yes',
      ]),
      ...session('pia', 's2', '2026-02-05T12:00:00Z', [
        'u: hey, lunch break, quick question',
        'a: Sure, go ahead.',
        'u: what is a good book on distributed systems for beginners?',
        'a: Designing Data-Intensive Applications is the usual first pick.',
      ]),
      ...session('pia', 's3', '2026-03-09T09:00:00Z', [
        'u: Lena moved into the engineering manager role this month',
        'a: Noted. She is probably not the right reviewer for queue code any more; want a new suggestion?',
        'u: yes, suggest Arjun',
      ]),
    ],
    questions: [
      {
        user: 'pia',
        query: "What's Lena's position?",
        current: ['engineering manager'],
        stale: ['backend engineer'],
        as_of: [
          { at: '2026-02-15T12:00:00Z', expect: ['backend engineer'], not: ['engineering manager'] },
          { at: '2026-03-15T12:00:00Z', expect: ['engineering manager'] },
        ],
      },
    ],
  },
  {
    id: 'user-city-move',
    set: 'tune',
    about: 'the user moves: Toronto → Vancouver',
    events: [
      ...session('ethan', 's1', '2026-05-02T14:00:00Z', [
        "u: I'm in Toronto, so keep meeting suggestions in Eastern time",
        'a: Will do, Eastern time.',
        'u: thanks',
      ]),
      ...session('ethan', 's2', '2026-06-10T16:00:00Z', [
        'u: packing boxes all week, I am exhausted',
        'a: Moving is a lot. Need help with a checklist?',
        'u: yes please',
        'a: Utilities, change of address, movers booked, a box of essentials for the first night.',
      ]),
      ...session('ethan', 's3', '2026-06-24T17:00:00Z', [
        'u: we relocated to Vancouver last week, so Pacific time from now on',
        'a: Welcome to the west coast! Pacific time it is.',
        'u: thanks',
      ]),
    ],
    questions: [
      {
        user: 'ethan',
        query: 'Where do I live now?',
        current: ['Vancouver'],
        stale: ['Toronto'],
        as_of: [
          { at: '2026-06-01T12:00:00Z', expect: ['Toronto'], not: ['Vancouver'] },
          { at: '2026-06-28T12:00:00Z', expect: ['Vancouver'] },
        ],
      },
      { user: 'ethan', query: 'Which dentist do I see?', never_said: true },
    ],
  },
  {
    id: 'sdk-version-upgrade',
    set: 'tune',
    about: 'a pinned SDK version upgraded: v2.8 → v3.2',
    events: [
      ...session('yuki', 's1', '2026-02-09T10:00:00Z', [
        'u: we pin the payments SDK at v2.8 because v3 changed the webhook signatures',
        'a: Understood. I will use the v2.8 webhook API in examples.',
        'u: thanks',
      ]),
      ...session('yuki', 's2', '2026-03-02T11:00:00Z', [
        'u: the integration tests are flaky again',
        'a: They share one sandbox account; give each test run its own customer and they stop interfering.',
        'u: ugh, fine',
      ]),
      ...session('yuki', 's3', '2026-03-16T10:00:00Z', [
        'u: finally upgraded to v3.2 of the payments SDK, the new webhook signatures are in',
        'a: Great. I will use the v3.2 webhook verification from now on.',
        'u: can you update the README snippet?',
        'a: Done: the snippet verifies the signature header with the new helper.',
      ]),
    ],
    questions: [
      {
        user: 'yuki',
        query: 'Which version of the payments SDK are we on?',
        current: ['3.2'],
        stale: ['2.8'],
        as_of: [
          { at: '2026-02-20T12:00:00Z', expect: ['2.8'], not: ['3.2'] },
          { at: '2026-03-20T12:00:00Z', expect: ['3.2'] },
        ],
      },
    ],
  },
  {
    id: 'weekly-sync-day',
    set: 'tune',
    about: 'a weekly meeting moves to another day',
    events: [
      ...session('amir', 's1', '2026-01-26T09:00:00Z', [
        'u: our weekly sync with the design team is on Tuesdays',
        'a: Got it. Want me to collect open design questions before each one?',
        'u: yes please',
      ]),
      ...session('amir', 's2', '2026-02-04T13:00:00Z', [
        'u: can you turn these design comments into tickets?',
        'a: Done: six tickets, two of them need a decision from product.',
        'u: great',
      ]),
      ...session('amir', 's3', '2026-02-12T10:00:00Z', [
        'u: we moved the design sync to Wednesdays, the designers have their crit the day before',
        'a: Noted. I will collect the open questions a day later then.',
        'u: perfect',
      ]),
    ],
    questions: [
      {
        user: 'amir',
        query: 'Which day do we meet with design?',
        current: ['Wednesday'],
        stale: ['Tuesday'],
        as_of: [
          { at: '2026-02-08T12:00:00Z', expect: ['Tuesday'], not: ['Wednesday'] },
          { at: '2026-02-15T12:00:00Z', expect: ['Wednesday'] },
        ],
      },
    ],
  },
  {
    id: 'beta-deadline-chain',
    set: 'tune',
    about: 'a chain of beta dates: May 4 → May 18 → June 8',
    events: [
      ...session('olga', 's1', '2026-04-06T09:00:00Z', [
        'u: the public beta is due May 4',
        'a: Noted. Four weeks from now; want a countdown checklist?',
        'u: later',
      ]),
      ...session('olga', 's2', '2026-04-20T10:00:00Z', [
        'u: the beta slipped to May 18, the SSO integration is not ready',
        'a: Understood, May 18. I will move the checklist dates by two weeks.',
        'u: thanks',
      ]),
      ...session('olga', 's3', '2026-05-11T09:30:00Z', [
        'u: morning',
        'a: Morning, Olga!',
        'u: new beta date is June 8, legal wants another review of the terms',
        'a: Okay, June 8. I will update the checklist and the announcement draft.',
      ]),
    ],
    questions: [
      {
        user: 'olga',
        query: 'When does the beta go out?',
        current: ['June 8'],
        stale: ['May 4', 'May 18'],
        as_of: [
          { at: '2026-04-15T12:00:00Z', expect: ['May 4'], not: ['May 18', 'June 8'] },
          { at: '2026-05-01T12:00:00Z', expect: ['May 18'], not: ['June 8'] },
          { at: '2026-05-15T12:00:00Z', expect: ['June 8'] },
        ],
      },
    ],
  },
  {
    id: 'infra-budget-raise',
    set: 'tune',
    about: 'a monthly budget figure goes up ($8k → $12k)',
    events: [
      ...session('karim', 's1', '2026-01-14T10:00:00Z', [
        'u: our cloud budget is $8k a month, so keep suggestions cheap',
        'a: Understood. Spot instances for the batch jobs would be the first saving.',
        'u: good idea',
      ]),
      ...session('karim', 's2', '2026-02-03T11:00:00Z', [
        'u: the funding round closed!',
        'a: Congratulations to the whole team!',
        'u: and the cloud budget went up to $12k a month',
        'a: Nice. That leaves room for a managed database instead of the self-hosted one.',
      ]),
      ...session('karim', 's3', '2026-02-10T09:00:00Z', [
        'u: which managed Postgres would you pick?',
        'a: For your size, the provider you already use; cross-cloud traffic would cost more than it saves.',
        'u: fair',
      ]),
    ],
    questions: [
      {
        user: 'karim',
        query: 'How much can we spend on cloud each month?',
        current: ['$12k'],
        stale: ['$8k'],
        as_of: [
          { at: '2026-01-25T12:00:00Z', expect: ['$8k'], not: ['$12k'] },
          { at: '2026-02-06T12:00:00Z', expect: ['$12k'] },
        ],
      },
    ],
  },
  {
    id: 'control-standup',
    set: 'tune',
    about: 'an unchanged control: the standup time said once among chit-chat',
    events: [
      ...session('rosa', 's1', '2026-03-09T08:00:00Z', [
        'u: morning! standup is at 9:45 every day, so I have a bit of time',
        'a: Morning, Rosa! What do you want to get done before it?',
        'u: review the two open pull requests',
        'a: The smaller one only renames a config key; start with that.',
      ]),
      ...session('rosa', 's2', '2026-03-16T13:00:00Z', [
        'u: how do I squash the last three commits?',
        'a: git rebase -i HEAD~3 and mark the last two as squash.',
        'u: thanks',
      ]),
      ...session('rosa', 's3', '2026-03-23T15:00:00Z', [
        'u: what is a polite way to decline a meeting?',
        'a: Thank them, say you cannot make it, and offer to read the notes or send input beforehand.',
        'u: thanks, that helped',
      ]),
    ],
    questions: [{ user: 'rosa', query: 'What time is our daily standup?', current: ['9:45'] }],
  },
  {
    id: 'two-users-coffee',
    set: 'tune',
    about: 'two users talk about coffee; one changes order (cortado → matcha), the other keeps a chai latte',
    events: [
      ...session('priya', 'p1', '2026-02-02T08:00:00Z', ['u: coffee run! my order is a cortado, as always', 'a: Enjoy the cortado.', 'u: thanks']),
      ...session('jon', 'j1', '2026-02-02T08:10:00Z', ['u: I will have a chai latte, no coffee for me', 'a: Chai latte, noted.', 'u: cheers']),
      ...session('priya', 'p2', '2026-03-02T08:05:00Z', [
        'u: I switched to matcha lattes, the afternoon crashes are gone',
        'a: Noted, a matcha latte for you from now on.',
        'u: yes',
      ]),
      ...session('jon', 'j2', '2026-03-03T08:00:00Z', [
        'u: morning. can you remind me what is on my calendar?',
        'a: A design review at ten and a one-on-one after lunch.',
        'u: thanks',
      ]),
    ],
    questions: [
      {
        user: 'priya',
        query: 'What do I order on a coffee run?',
        current: ['matcha'],
        stale: ['cortado', 'chai'],
        as_of: [
          { at: '2026-02-15T12:00:00Z', expect: ['cortado'], not: ['matcha'] },
          { at: '2026-03-05T12:00:00Z', expect: ['matcha'] },
        ],
      },
      { user: 'jon', query: 'What do I order on a coffee run?', current: ['chai'], stale: ['matcha', 'cortado'] },
    ],
  },
  {
    id: 'test-runner-switch',
    set: 'tune',
    about: '"we dropped A, everything runs on B now" for the test runner',
    events: [
      ...session('hugo', 's1', '2026-01-20T10:00:00Z', [
        'u: our tests run on Jest and the watch mode is slow',
        'a: Try --onlyChanged and check that the transform cache is not disabled.',
        'u: will do',
      ]),
      ...session('hugo', 's2', '2026-02-03T14:00:00Z', [
        'u: we dropped Jest, everything runs on Vitest now',
        'a: Got it. I will write Vitest tests and use vi.fn() for mocks.',
        'u: how do I mock a module?',
        'a: vi.mock with the module path at the top of the file; the factory returns the fake exports.',
      ]),
      ...session('hugo', 's3', '2026-02-12T09:30:00Z', [
        'u: morning!',
        'a: Morning, Hugo. What is up?',
        'u: coverage numbers dropped after the switch',
        'a: The new coverage provider counts branches differently; compare the same metric before judging.',
      ]),
    ],
    questions: [
      {
        user: 'hugo',
        query: 'What runs our tests?',
        current: ['Vitest'],
        stale: ['Jest'],
        as_of: [
          { at: '2026-01-28T12:00:00Z', expect: ['Jest'], not: ['Vitest'] },
          { at: '2026-02-08T12:00:00Z', expect: ['Vitest'] },
        ],
      },
    ],
  },
  {
    id: 'package-manager',
    set: 'tune',
    about: '"switched the monorepo from A to B" for the package manager',
    events: [
      ...session('nora', 's1', '2026-04-13T10:00:00Z', [
        'u: installs take forever in our monorepo, we use yarn classic',
        'a: Caching the yarn cache directory in CI would be the quickest win.',
        'u: ok',
      ]),
      ...session('nora', 's2', '2026-04-21T11:00:00Z', [
        'u: how do I make a workspace package depend on another one?',
        'a: Add it to dependencies with the workspace protocol, then reinstall.',
        'u: nice',
      ]),
      ...session('nora', 's3', '2026-04-29T15:00:00Z', [
        'u: we switched the monorepo to pnpm, installs are three times faster',
        'a: Great. I will write pnpm commands from now on, pnpm -r for workspace scripts.',
        'u: thanks',
      ]),
    ],
    questions: [
      {
        user: 'nora',
        query: 'Which package manager does the monorepo use?',
        current: ['pnpm'],
        stale: ['yarn'],
        as_of: [
          { at: '2026-04-25T12:00:00Z', expect: ['yarn'], not: ['pnpm'] },
          { at: '2026-05-02T12:00:00Z', expect: ['pnpm'] },
        ],
      },
    ],
  },
  {
    id: 'employer-change',
    set: 'tune',
    about: "the user's own employer changes (Atlassian → Canva)",
    events: [
      ...session('sara', 's1', '2026-05-04T18:00:00Z', [
        'u: I work at Atlassian, on the Jira mobile team',
        'a: Nice. What are you working on these days?',
        'u: offline mode for issues',
        'a: Queue the edits locally and resolve conflicts field by field when you reconnect.',
      ]),
      ...session('sara', 's2', '2026-06-15T19:00:00Z', [
        'u: big news: I started at Canva on Monday',
        'a: Congratulations on the new job! What team?',
        'u: the editor performance team',
        'a: A great place for someone who just built offline mode.',
      ]),
      ...session('sara', 's3', '2026-06-22T18:30:00Z', [
        'u: how do I find long tasks in a Chrome performance trace?',
        'a: Look for the red triangles on the main thread track, or filter the bottom-up view by duration.',
        'u: thanks',
      ]),
    ],
    questions: [
      {
        user: 'sara',
        query: 'Where do I work?',
        current: ['Canva'],
        stale: ['Atlassian'],
        as_of: [
          { at: '2026-06-01T12:00:00Z', expect: ['Atlassian'], not: ['Canva'] },
          { at: '2026-06-18T12:00:00Z', expect: ['Canva'] },
        ],
      },
    ],
  },
];
