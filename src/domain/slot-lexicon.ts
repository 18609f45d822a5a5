/**
 * World knowledge the offline slot reader needs (src/domain/slots.ts): which values belong to the
 * same category, so "we switched to SQLite" can replace "we use Postgres" without naming it, and
 * which words name one attribute in several ways. Entries are lower case; a multi-word value is
 * written with single spaces. Hand-written from general knowledge of software and everyday life,
 * not fitted to any benchmark: a value missing here is still compared by the sentence's other
 * words, only less surely.
 */

const list = (s: string): string[] => s.split(/\s*,\s*/).filter(Boolean);

/** Value → category. A value in two categories (redis: database and cache) takes the first. */
export const VALUE_CATEGORIES: ReadonlyMap<string, string> = (() => {
  const groups: Record<string, string> = {
    database: `postgres, postgresql, mysql, mariadb, sqlite, mongodb, mongo, dynamodb, cassandra, cockroachdb, supabase, firebase,
      firestore, duckdb, clickhouse, oracle, sql server, mssql, couchdb, neo4j, planetscale, neon, aurora, bigquery, snowflake,
      redshift, realm, indexeddb, leveldb, rocksdb, timescaledb, influxdb, pglite, turso, libsql, fauna, surrealdb`,
    cache: 'redis, valkey, memcached, varnish, keydb, dragonfly',
    editor: `vim, neovim, nvim, emacs, vscode, vs code, visual studio code, sublime, sublime text, intellij, pycharm, webstorm,
      goland, rider, clion, zed, cursor, helix, nano, atom, xcode, android studio, eclipse, notepad++, visual studio, kate, windsurf`,
    language: `python, typescript, javascript, go, golang, rust, java, kotlin, swift, ruby, php, c#, c++, scala, elixir, haskell,
      clojure, dart, lua, perl, r, julia, zig, ocaml, f#, objective-c, erlang, crystal, nim, c`,
    cloud: `aws, amazon web services, gcp, google cloud, azure, heroku, fly.io, fly, vercel, netlify, render, digitalocean,
      railway, cloudflare, cloudflare workers, linode, hetzner, ovh, oracle cloud, ibm cloud, firebase hosting, github pages,
      aws lambda, lambda, ec2, ecs, eks, gke, aks, cloud run, app engine, kubernetes, k8s, on-prem, bare metal`,
    ci: `jenkins, github actions, gitlab ci, circleci, travis, travis ci, buildkite, drone, teamcity, bamboo, azure pipelines,
      bitbucket pipelines, argo, argo cd, tekton, woodpecker, semaphore`,
    os: `macos, mac, osx, windows, linux, ubuntu, debian, fedora, arch, arch linux, nixos, centos, rhel, alpine, freebsd,
      chromeos, pop!_os, mint, manjaro, wsl`,
    shell: 'bash, zsh, fish, powershell, nushell, sh, ksh, tcsh',
    'package manager': 'npm, pnpm, yarn, bun, pip, poetry, uv, conda, pipenv, cargo, maven, gradle, composer, bundler, homebrew',
    framework: `react, vue, angular, svelte, sveltekit, solid, next.js, nextjs, nuxt, remix, astro, django, flask, fastapi, rails,
      ruby on rails, spring, spring boot, laravel, express, fastify, nestjs, koa, hono, electron, tauri, flutter, react native,
      swiftui, jetpack compose, qt, gtk, phoenix, gin, echo, actix, axum, rocket, blazor, .net, asp.net`,
    queue: 'kafka, rabbitmq, sqs, nats, pulsar, kinesis, pubsub, google pubsub, bullmq, celery, sidekiq, activemq, zeromq',
    monitoring: 'datadog, grafana, prometheus, sentry, new relic, honeycomb, splunk, elastic, kibana, opsgenie, pagerduty, bugsnag, rollbar',
    'test runner': 'jest, vitest, mocha, pytest, unittest, rspec, junit, cypress, playwright, selenium, jasmine, ava, tap',
    bundler: 'webpack, vite, esbuild, rollup, parcel, turbopack, rspack, snowpack, browserify',
    browser: 'chrome, firefox, safari, edge, brave, arc, opera, vivaldi, chromium',
    chat: 'slack, microsoft teams, teams, discord, mattermost, zulip, telegram, whatsapp, signal, google chat',
    tracker: 'jira, linear, trello, asana, github issues, gitlab issues, clickup, monday, notion, shortcut, youtrack, basecamp',
    vcs: 'github, gitlab, bitbucket, gitea, codeberg, sourcehut, azure devops',
    phone: 'iphone, pixel, galaxy, samsung galaxy, oneplus, android phone, xiaomi, fairphone, nokia',
    'llm provider': 'openai, anthropic, claude, gpt-4, gpt-4o, gpt-5, gemini, mistral, llama, deepseek, qwen, ollama',
    diet: 'vegan, vegetarian, pescatarian, keto, paleo, gluten-free, omnivore, carnivore, halal, kosher',
    search: 'elasticsearch, opensearch, meilisearch, typesense, algolia, solr, vespa, lucene, pinecone, weaviate, qdrant, milvus, pgvector',
    drink: `coffee, tea, espresso, latte, cappuccino, flat white, americano, cold brew, matcha, oat latte, decaf, green tea, cortado, mocha,
      macchiato, chai, chai latte, matcha latte, hot chocolate, black tea, herbal tea, oat flat white`,
    car: `corolla, camry, prius, rav4, civic, accord, cr-v, outback, forester, crosstrek, golf, polo, jetta, passat, mustang, f-150, wrangler,
      miata, model 3, model y, model s, model x, cybertruck, leaf, ioniq, bolt, id.4, mini cooper, 3 series, a4, xc60, cx-5, tacoma, tundra, sienna, odyssey`,
    'natural language': `english, spanish, french, german, italian, portuguese, dutch, mandarin, chinese, cantonese, japanese, korean, hindi,
      arabic, russian, polish, swedish, norwegian, danish, finnish, turkish, greek, hebrew, ukrainian, czech, vietnamese, thai, indonesian`,
  };
  const out = new Map<string, string>();
  for (const [category, values] of Object.entries(groups)) for (const v of list(values)) if (!out.has(v)) out.set(v, category);
  return out;
})();

/**
 * Categories a person holds one value of at a time (one editor, one usual coffee, one diet): a new
 * value of one replaces the old whatever else the two sentences say. Project categories (a
 * database, a framework) are compared by what they are about too, since a project has several.
 */
export const PERSONAL_CATEGORIES: ReadonlySet<string> = new Set([
  'editor',
  'shell',
  'os',
  'browser',
  'phone',
  'drink',
  'diet',
  'natural language',
  'package manager',
  'car',
]);

/**
 * Words a category's values answer to, added to a memory's full-text key (slotKeyText), so "which
 * shell do I use?" finds "the user uses zsh now" and "where is it hosted?" finds "we run on Hetzner".
 */
export const CATEGORY_WORDS: Readonly<Record<string, string>> = {
  database: 'database db data storage store',
  cache: 'cache caching',
  editor: 'editor ide',
  language: 'language programming',
  cloud: 'cloud host hosted hosting deploy deployed server',
  ci: 'ci builds build pipeline',
  os: 'os operating system',
  shell: 'shell terminal',
  'package manager': 'package manager',
  framework: 'framework',
  queue: 'queue queues messaging',
  monitoring: 'monitoring observability errors alerts',
  'test runner': 'tests testing test runner',
  bundler: 'bundler build',
  browser: 'browser',
  chat: 'chat messaging',
  tracker: 'tracker tickets issues',
  vcs: 'code hosting repository repo',
  phone: 'phone',
  'llm provider': 'model llm',
  diet: 'diet dietary eat food',
  drink: 'drink coffee order',
  'natural language': 'language speak',
  search: 'search engine',
  car: 'car drive drives driving vehicle',
  money: 'money cost costs price amount pay',
  quantity: 'amount',
};

/** Words of the attributes the slot reader infers from verb phrases (works at, lives in, reports to). */
export const ATTRIBUTE_WORDS: Readonly<Record<string, string>> = {
  employ: 'work works job employer company',
  resid: 'live lives home city based',
  manag: 'manager boss reports',
  role: 'job title role position level',
};

/** Longest value names first, so "github actions" wins over "github". */
export const VALUE_NAMES: readonly string[] = [...VALUE_CATEGORIES.keys()].sort((a, b) => b.length - a.length);

/** Spellings of one value: the key is what is written, the value what is compared. */
export const VALUE_SYNONYMS: ReadonlyMap<string, string> = new Map(
  Object.entries({
    postgresql: 'postgres',
    'postgres db': 'postgres',
    pg: 'postgres',
    mongo: 'mongodb',
    nvim: 'neovim',
    'vs code': 'vscode',
    'visual studio code': 'vscode',
    golang: 'go',
    nextjs: 'next.js',
    k8s: 'kubernetes',
    osx: 'macos',
    mac: 'macos',
    'amazon web services': 'aws',
    'google cloud': 'gcp',
    fly: 'fly.io',
    'ruby on rails': 'rails',
    'travis ci': 'travis',
    'samsung galaxy': 'galaxy',
    'microsoft teams': 'teams',
  }),
);

/**
 * Word stems (Porter's, as src/domain/text.ts ftsStem makes them) that name one attribute or one
 * thing: the left side folds into the right, so "the desktop client" and "the desktop app" meet.
 */
export const ABOUT_SYNONYMS: ReadonlyMap<string, string> = new Map(
  Object.entries({
    client: 'app',
    applic: 'app',
    db: 'databas',
    datastor: 'databas',
    storag: 'databas',
    retrospect: 'retro',
    deadlin: 'due',
    launch: 'releas',
    fund: 'budget',
    salari: 'salari',
    pai: 'salari',
    wage: 'salari',
    boss: 'manag',
    supervisor: 'manag',
    citi: 'resid',
    town: 'resid',
    host: 'deploi',
    deploy: 'deploi',
    repo: 'repositori',
    favourit: 'favorit',
    fav: 'favorit',
    fave: 'favorit',
    pup: 'dog',
    puppi: 'dog',
    kitten: 'cat',
    kitti: 'cat',
    io: 'mobil',
    android: 'mobil',
    cellphon: 'phone',
    cell: 'phone',
    iter: 'sprint',
    emploi: 'employ',
    showcas: 'demo',
    present: 'demo',
    cadenc: 'sprint',
  }),
);

/** Words of change, time-of-statement and decision: they say that something changed, not what. */
export const CHANGE_WORDS = new Set(
  `switch switched switching switches moved move moving moves migrate migrated migrating migrates changed change changing changes replaced
  replace replacing replaces swapped swap swapping ditched ditch upgraded upgrade upgrading downgraded downgrade bumped bump updated update
  shifted shift pushed push slipped slip postponed postpone delayed delay rescheduled reschedule cut reduced reduce raised raise increased
  increase lowered lower dropped drop renamed rename promoted promote converted convert transitioned transition now anymore longer instead
  new newly old current currently today recently finally actually officially also still back forward going gone decided decide decision chose
  choose chosen agreed agree picked pick opted settled went go goes starting started start stopped stop quit gave give rid took take taking
  over from onwards nowadays days these effective immediately week month year last next ago since yet already just really tomorrow
  tonight yesterday morning first news update heads context fyi left leaving leave relocate relocated relocating relocation quarter weekend quits quitting decommissioned decommission deprecated retired removed
  cancelled canceled shut sunset sunsetted discontinued abandoned killed extended extend phew ugh yay woohoo yikes oof became become experimenting experiment trying`
    .split(/\s+/)
    .filter(Boolean),
);
/** Verbs that carry no attribute of their own ("we use X", "X has Y"). */
export const GENERIC_WORDS = new Set(
  `use used uses using have has had having get got gets do does did done make makes made run runs running ran set put keep keeps kept
  be is are was were been being am say says said think thinks know knows want wants need needs like likes liked love loves loved prefer
  prefers preferred enjoy enjoys hate hates dislike dislikes fan into thing things stuff one way lot bit kind sort pretty quite very talk talks
  talked write writes wrote written call calls called named version turns turned out date dates time times day days due live lives lived living based located reside resides long usual usually always normally`
    .split(/\s+/)
    .filter(Boolean),
);

/**
 * Words that judge or feel rather than name a value: "Max is great", "John is so excited", "it
 * was fun". After a copula they give no value ("my favourite food is sushi" does).
 */
export const EVALUATIVE_WORDS = new Set(
  `great good nice cool awesome amazing fun exciting interesting important key hard tough easy fantastic wonderful terrible awful bad
  beautiful lovely super sure glad happy sad proud thrilled excited pumped determined rewarding refreshing impressive best worst
  incredible stoked grateful thankful lucky inspiring inspired motivated passionate`
    .split(/\s+/)
    .filter(Boolean),
);
