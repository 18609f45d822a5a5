/**
 * Word lists shared by the heuristic extractor. Kept in one place so the rules in classify.ts,
 * entities.ts and triage.ts agree on what counts as "content".
 */

export const STOPWORDS: ReadonlySet<string> = new Set(
  `a about above after again against all also am an and any are aren't as at be because been before being
  below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during
  each few for from further had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers
  herself him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most
  mustn't my myself no nor not of off on once only or other ought our ours ourselves out over own same shan't she
  she'd she'll she's should shouldn't so some such than that that's the their theirs them themselves then there
  there's these they they'd they'll they're they've this those through to too under until up very was wasn't we
  we'd we'll we're we've were weren't what what's when when's where where's which while who who's whom why why's
  with won't would wouldn't you you'd you'll you're you've your yours yourself yourselves
  just really so very too also even still yet already now then there here well oh ah yeah yes yep yup ok okay
  gonna wanna gotta got get gets getting go goes going went gone been being make makes made lot lots bit
  thing things stuff something anything everything nothing someone anyone everyone way ways kind sort
  much many more most some any every all one ones 's 're 've 'll 'd n't im ive id ill dont cant wont didnt isnt`
    .split(/\s+/)
    .filter(Boolean),
);

/** Chat reactions that carry no fact about anyone; they never count as content words. */
export const CHATTER_WORDS: ReadonlySet<string> = new Set(
  `hey hi hello thanks thank thx ty wow cool great awesome amazing nice lovely sweet haha hahaha lol lmao omg
  aww awww congrats congratulations glad happy sorry sure totally definitely absolutely exactly indeed right
  super pretty quite soo sooo so cute fun good bad sad tough hard hear see hope luck bye soon later
  mean means meant true agree appreciate appreciated wanted say said tell told know knew never always ever forget
  excited thankful grateful proud stoked thrilled blessed lucky inspiring inspired incredible wonderful fantastic
  beautiful gorgeous stunning lovely cool`
    .split(/\s+/)
    .filter(Boolean),
);

/** Words too vague to name a memory's topic ("a lot of things"). */
export const GENERIC_NOUNS: ReadonlySet<string> = new Set(
  `thing things stuff lot lots bit way ways time times day days kind sort part place places people person one ones
  today tomorrow yesterday week month year years moment moments something anything everything nothing idea ideas
  fun pic pics picture photo photos question questions answer words word sense point reason case fact
  side end start while life world others other guy guys folks man woman dude buddy friend hi hey`
    .split(/\s+/)
    .filter(Boolean),
);

export const PRONOUNS: ReadonlySet<string> = new Set(
  `i me my mine myself we us our ours ourselves you your yours yourself yourselves he him his himself she her hers
  herself it its itself they them their theirs themselves this that these those who whom whose which what
  there here someone somebody something anyone anybody anything everyone everybody everything nobody nothing
  one another each either neither both all some none`
    .split(/\s+/)
    .filter(Boolean),
);

/** Subjects that point back into the conversation and cannot stand alone as a memory's topic. */
export const VAGUE_SUBJECTS: ReadonlySet<string> = new Set(
  `it this that these those you he she they there which what who everyone everything something anything nothing
  someone one`
    .split(/\s+/)
    .filter(Boolean),
);

/** Verbs that open imperative instructions in technical text. */
export const IMPERATIVE_VERBS: ReadonlySet<string> = new Set(
  `add apply build call change check clone commit configure copy create delete deploy disable download edit enable
  ensure execute export fetch generate git import install launch log make merge migrate mount move open pass paste
  pull push put read rebase reboot register reload remove rename replace restart restore revert run save select
  set setup source ssh start stop switch tag test type uninstall unzip update upgrade upload use verify wait write`
    .split(/\s+/)
    .filter(Boolean),
);

/** Adverbs allowed between "I" and its verb ("I really love", "I never eat"). */
export const SUBJECT_ADVERBS =
  'really|also|just|still|always|never|usually|often|sometimes|actually|totally|absolutely|definitely|truly|even|' +
  'kinda|only|mostly|generally|personally|now|too|finally|recently|already|currently|rarely|seriously|mainly|' +
  'honestly|literally|basically|simply|certainly|probably|no longer|typically|normally|regularly|primarily|occasionally|hardly|barely';

/** Known technology names (lower-case) so a lower-cased mention still gets the right type. */
export const TECHNOLOGIES: ReadonlySet<string> = new Set(
  `postgresql postgres pgvector mysql mariadb sqlite mongodb redis valkey kafka rabbitmq nats elasticsearch opensearch
  clickhouse cassandra dynamodb supabase firebase node node.js nodejs deno bun typescript javascript python rust golang
  java kotlin scala swift ruby php perl haskell elixir erlang c# c++ react vue angular svelte solid next.js nextjs nuxt
  remix express fastify nestjs koa django flask fastapi rails spring laravel prisma drizzle sequelize typeorm graphql
  grpc rest websocket websockets http https oauth jwt json yaml toml protobuf bullmq celery sidekiq kubernetes k8s
  helm docker podman terraform ansible nginx caddy apache aws gcp azure lambda s3 ec2 cloudflare vercel netlify heroku
  linux ubuntu debian alpine macos windows ios android webassembly wasm llvm cuda pytorch tensorflow jax onnx openai
  gpt-4 gpt-4o gpt-3.5 llama mistral claude gemini deepseek qwen ollama vllm langchain llamaindex pglite zod vitest
  jest mocha playwright cypress webpack vite esbuild rollup babel tailwind bootstrap pino tsx`
    .split(/\s+/)
    .filter(Boolean),
);

/** Known tools (applications and command-line programs) as opposed to languages or platforms. */
export const TOOLS: ReadonlySet<string> = new Set(
  `git github gitlab bitbucket npm npx pnpm yarn pip poetry cargo make cmake curl wget vim neovim emacs vscode
  intellij jira confluence slack discord notion figma trello asana linear sentry datadog grafana prometheus
  postman excel photoshop bull-board psql`
    .split(/\s+/)
    .filter(Boolean),
);

/** Head nouns that make a noun phrase an event ("the pride parade", "a charity race"). */
export const EVENT_HEADS: ReadonlySet<string> = new Set(
  `conference parade festival workshop race competition comp meeting meetup party wedding concert show event
  trip ceremony talk hackathon launch release seminar webinar match game tournament marathon retreat vacation
  holiday birthday anniversary funeral graduation fair exhibition recital performance gig camp interview sprint
  standup demo outage incident`
    .split(/\s+/)
    .filter(Boolean),
);

/** Head nouns that make a capitalised phrase an organization ("Acme Corp", "Stanford University"). */
export const ORG_HEADS: ReadonlySet<string> = new Set(
  `inc inc. corp corp. corporation llc ltd ltd. company co co. university college school foundation bank agency
  institute group labs studio studios team club association society council ministry department hospital`
    .split(/\s+/)
    .filter(Boolean),
);

/** Single words that look like names at the start of a sentence but are not. */
export const NOT_NAMES: ReadonlySet<string> = new Set(
  `hey hi hello thanks thank wow yeah yes yep oh ah ok okay sure cool great awesome nice well so and but also
  lol haha omg btw anyway plus definitely totally absolutely congrats congratulations sorry glad good bye
  monday tuesday wednesday thursday friday saturday sunday january february march april may june july august
  september october november december today tomorrow yesterday mom dad lesson lessons decision note todo update
  fyi ps tip warning step steps`
    .split(/\s+/)
    .filter(Boolean),
);

export const HEDGE_RE =
  /\b(maybe|perhaps|probably|possibly|i think|i guess|i suppose|i believe|might|not sure|kind of|kinda|sort of|thinking (?:of|about)|considering|hopefully|seems?|likely|unsure)\b|可能|也许|大概|或许|好像|不确定/i;

export const EMPHASIS_RE = /\b(important|must|always|never|critical|crucial|essential|vital|remember|key)\b|重要|必须|一定|务必|关键/i;

/** Lower-case, split into words and drop stopwords; also used by the evaluation script. */
export function contentTokens(text: string): string[] {
  return (
    text
      .toLowerCase()
      .replace(/[’‘]/g, "'")
      .match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? []
  )
    .map((t) => t.replace(/'s$/, ''))
    .filter((t) => t.length > 1 && !STOPWORDS.has(t));
}
