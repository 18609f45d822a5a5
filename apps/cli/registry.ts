import type { Config } from '../../src/config.js';
import type { Logger } from '../../src/logger.js';
import { QUEUE_NAMES } from '../../src/queue/names.js';
import type { ParsedArgs } from './args.js';
import { REMOTE_FLAGS } from './remote.js';

export type Command = (config: Config, log: Logger, args: ParsedArgs) => Promise<void>;

export interface FlagSpec {
  type: 'string' | 'boolean';
  /** Placeholder in the usage line (string flags). */
  value?: string;
  description: string;
}

export interface CommandSpec {
  name: string;
  /** One line for `memloom --help`. */
  summary: string;
  /** What follows the command name in its usage line, e.g. `"<query>"`. */
  args?: string;
  flags: Record<string, FlagSpec>;
  /** More lines for `memloom <command> --help`. */
  details?: string;
  /** Loaded on use, so `memloom recall` does not load the workers. */
  load: () => Promise<Command>;
}

const str = (value: string, description: string): FlagSpec => ({ type: 'string', value, description });
const bool = (description: string): FlagSpec => ({ type: 'boolean', description });
const serve = (roles: 'start' | 'api' | 'watcher' | 'scheduler') => async (): Promise<Command> => {
  const { serve: run } = await import('./commands/serve.js');
  const r = {
    start: { api: true, watcher: true, workers: QUEUE_NAMES, scheduler: true },
    api: { api: true, watcher: false, workers: [], scheduler: false },
    watcher: { api: false, watcher: true, workers: [], scheduler: false },
    scheduler: { api: false, watcher: false, workers: [], scheduler: true },
  }[roles];
  return (c, l) => run(c, l, r);
};

/** Every command with its flags: the one source of `--help` texts and of unknown-flag errors. */
export const COMMANDS: CommandSpec[] = [
  { name: 'start', summary: 'API + Bull Board + watcher + all workers + scheduler in one process', flags: {}, load: serve('start') },
  { name: 'api', summary: 'HTTP API (with /mcp, /docs) and Bull Board only', flags: {}, load: serve('api') },
  { name: 'watcher', summary: 'events-directory watcher only', flags: {}, load: serve('watcher') },
  {
    name: 'worker',
    summary: 'pipeline workers',
    flags: { queues: str('a,b', `queues to consume (default all: ${QUEUE_NAMES.join(',')})`) },
    load: async () => (await import('./commands/worker.js')).workerCommand,
  },
  { name: 'scheduler', summary: 'registers the periodic maintenance schedules', flags: {}, load: serve('scheduler') },
  { name: 'migrate', summary: 'applies database migrations and exits', flags: {}, load: async () => (await import('./commands/migrate.js')).migrateCommand },
  {
    name: 'ingest',
    summary: 'posts the events of JSONL files to the API, with a progress bar',
    args: '<file|dir>',
    flags: { ...REMOTE_FLAGS, batch: str('N', 'events per request, 1-1000 (default 500)') },
    load: async () => (await import('./commands/ingest.js')).ingest,
  },
  {
    name: 'recall',
    summary: 'searches a running memloom and prints the ranked results',
    args: '"<query>"',
    flags: {
      user: str('U', 'only this user\u2019s memory'),
      session: str('S', 'only this session'),
      agent: str('A', 'only this agent'),
      dataset: str('D', 'only this dataset'),
      mode: str('M', 'chunks (default) | memories | graph | auto'),
      limit: str('N', 'results, 1-100 (default 10)'),
      kinds: str('k1,k2', 'only these memory kinds'),
      json: bool('print the API\u2019s JSON answer'),
      ...REMOTE_FLAGS,
    },
    load: async () => (await import('./commands/recall.js')).recallCommand,
  },
  {
    name: 'context',
    summary: 'prints what a running memloom knows about a question as one token-budgeted block for a prompt',
    args: '"<query>"',
    flags: {
      user: str('U', 'only this user\u2019s memory'),
      session: str('S', 'only this session'),
      agent: str('A', 'only this agent'),
      dataset: str('D', 'only this dataset'),
      budget: str('N', 'tokens in the block, headings included, 50-8000 (default 1000)'),
      'as-of': str('TIME', 'what memloom held true at that time (ISO-8601)'),
      json: bool('print the API\u2019s JSON answer'),
      ...REMOTE_FLAGS,
    },
    load: async () => (await import('./commands/context.js')).contextCommand,
  },
  {
    name: 'stats',
    summary: 'object counts, queue counts and pending events of a running memloom',
    flags: { json: bool('print the API\u2019s JSON answer'), ...REMOTE_FLAGS },
    load: async () => (await import('./commands/stats.js')).statsCommand,
  },
  {
    name: 'export',
    summary: 'exports memory (JSON lines or Markdown) from a running memloom',
    flags: {
      format: str('F', 'jsonl (default, importable) | markdown'),
      user: str('U', 'only this user'),
      dataset: str('D', 'only this dataset'),
      'no-vectors': bool('leave embedding vectors out (smaller; import re-embeds)'),
      out: str('FILE', 'write to FILE (default stdout)'),
      ...REMOTE_FLAGS,
    },
    details: 'Progress goes to stderr. With --out, the file appears only once the export is complete.',
    load: async () => (await import('./commands/export.js')).exportCommand,
  },
  {
    name: 'import',
    summary: 'imports an export (JSON lines) into a running memloom, with a progress bar',
    args: '<file.jsonl>',
    flags: { ...REMOTE_FLAGS },
    details: 'Prints counts per record type; exit code 1 when some lines were rejected. Importing a file twice adds nothing.',
    load: async () => (await import('./commands/import.js')).importCommand,
  },
  {
    name: 'forget',
    summary: 'hard-deletes a scope following provenance, prints counts',
    args: '--session S [--user U] | --user U | --dataset D | --event E',
    flags: {
      session: str('S', 'a session (with --user: that user\u2019s session)'),
      user: str('U', 'a user'),
      dataset: str('D', 'a dataset'),
      event: str('E', 'a stored event id'),
      tenant: str('T', 'tenant when the database is opened directly (default default)'),
      ...REMOTE_FLAGS,
    },
    load: async () => (await import('./commands/forget.js')).forgetCommand,
  },
  {
    name: 'doctor',
    summary: 'checks memory invariants (orphans, duplicates); exit 1 on violations',
    flags: {
      tenant: str('T', 'only this tenant'),
      url: { ...REMOTE_FLAGS.url, description: 'a running memloom to ask (default: the one that owns MEMLOOM_HOME, if any)' },
      'api-key': { ...REMOTE_FLAGS['api-key'], description: 'an admin key (default: the first of MEMLOOM_ADMIN_KEYS, else $MEMLOOM_API_KEY)' },
    },
    load: async () => (await import('./commands/doctor.js')).doctorCommand,
  },
  {
    name: 'reembed',
    summary: 're-embeds rows whose vectors are of another model than the configured one, resumable',
    flags: {
      batch: str('N', 'texts per provider call and transaction, 1-5000 (default 256)'),
      tenant: str('T', 'only this tenant (default every tenant)'),
    },
    details: 'Opens the database directly; in embedded mode stop the running memloom first (its scheduled reembed task does the same in the background).',
    load: async () => (await import('./commands/reembed.js')).reembedCommand,
  },
  {
    name: 'retry',
    summary: 'failed jobs back to waiting; their dead letters marked retried',
    args: '--queue Q | --all',
    flags: {
      queue: str('Q', 'one queue'),
      all: bool('every queue'),
      tenant: str('T', 'tenant when the queues are opened directly (default default)'),
      ...REMOTE_FLAGS,
    },
    load: async () => (await import('./commands/retry.js')).retryCommand,
  },
  {
    name: 'mcp',
    summary: 'MCP server on stdio for an agent, talking to a running memloom over HTTP',
    flags: {
      user: str('U', 'default user of the tools ($MEMLOOM_USER_ID)'),
      agent: str('A', 'agent id recorded on events ($MEMLOOM_AGENT_ID, default mcp)'),
      session: str('S', 'default session ($MEMLOOM_SESSION_ID)'),
      dataset: str('D', 'dataset ($MEMLOOM_DATASET)'),
      ...REMOTE_FLAGS,
    },
    details: 'Claude Code: claude mcp add memloom -e MEMLOOM_URL=http://127.0.0.1:8787 -e MEMLOOM_USER_ID=me -- npx memloom mcp (see docs/agents.md).',
    load: async () => (await import('./commands/mcp.js')).mcpCommand,
  },
  {
    name: 'hook',
    summary: 'the agent hook (Claude Code hooks, JSON on stdin); prefer the faster bin memloom-hook',
    args: '[session-start|prompt|stop|tool|session-end]',
    flags: {},
    details: 'Configured through MEMLOOM_URL, MEMLOOM_API_KEY, MEMLOOM_USER_ID, EVENTS_DIR, MEMLOOM_HOME (see docs/agents.md).',
    load: async () => async (_c, _l, args) => (await import('../hook/main.js')).main(args.positionals),
  },
  {
    name: 'bench',
    summary:
      'retrieval quality on a LoCoMo-format file (evidence recall@5/10/25; context: gold turns in the context block at 500/1,000/2,000 tokens), or current truth after changed facts (truth)',
    args: 'recall|context|truth',
    flags: {
      locomo: str('FILE', 'LoCoMo-format JSON'),
      samples: str('IDS', 'conversations by sample id, comma-separated (conv-26,conv-30)'),
      conversations: str('N', 'first N conversations'),
      embedder: str('MODEL', 'EMBEDDINGS_MODEL for the run'),
      dump: str('FILE', "recall: write every question's ranked turns per strategy to FILE (JSON lines), to compare strategies' misses"),
      misses: str('N', 'print N questions whose evidence the default mode missed at 10 (truth: the first N failures)'),
      strategies: str('LIST', 'only these strategies (auto,chunks,memories,graph,bm25-only,vector-only,plain-bm25)'),
      home: str(
        'DIR',
        'recall/context: keep the database in DIR: ingested when DIR is new, reused as it is when it holds one, so two versions of the code rank the same stored memory',
      ),
      speakers: str('metadata|prefix', 'recall/context: turns name their speaker in metadata.speaker (default) or as a "Name: " prefix of the content'),
      set: str('tune|check|holdout', 'truth: only this scenario set'),
      scenarios: str('IDS', 'truth: only these scenarios, comma-separated'),
      top: str('K', 'truth: under each failure, the first K results with their kind, score and current flag'),
      explain: bool("truth: print each scenario's memories with their slots, statuses and successors"),
      'include-weak': bool('ask with include_weak (nothing left out by the match floor), to measure what the floor costs'),
    },
    load: async () => (await import('./commands/bench/index.js')).bench,
  },
];

export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name);
}

export function booleanFlags(spec: CommandSpec | undefined): Set<string> {
  return new Set(
    Object.entries(spec?.flags ?? {})
      .filter(([, f]) => f.type === 'boolean')
      .map(([n]) => n),
  );
}

export function globalUsage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
  return `memloom \u2014 long-term memory for AI agents

Usage: memloom <command> [options]     memloom <command> --help for its options

${COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`).join('\n')}

Configuration comes from the environment and .env (docs/cli.md, README).`;
}

export function commandUsage(c: CommandSpec): string {
  const flags = Object.entries(c.flags);
  const width = Math.max(0, ...flags.map(([n, f]) => n.length + (f.value ? f.value.length + 1 : 0))) + 4;
  const lines = flags.map(([n, f]) => `  --${`${n}${f.value ? ` ${f.value}` : ''}`.padEnd(width)}${f.description}`);
  return [
    `Usage: memloom ${c.name}${c.args ? ` ${c.args}` : ''}${flags.length > 0 ? ' [options]' : ''}`,
    '',
    `  ${c.summary}`,
    ...(c.details ? ['', `  ${c.details}`] : []),
    ...(flags.length > 0 ? ['', 'Options:', ...lines] : []),
    `  --help${' '.repeat(Math.max(1, width - 4))}this text`,
  ].join('\n');
}

/** Unknown flags are an error naming the command (never silently ignored). */
export function unknownFlags(c: CommandSpec, args: ParsedArgs): string[] {
  return [...args.flags.keys()].filter((f) => f !== 'help' && !(f in c.flags));
}
