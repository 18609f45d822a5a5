import 'dotenv/config';
import pg from 'pg';
import { ConfigError, isEmbedded, loadConfig, type Config } from '../../src/config.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { isMemloomError } from '../../src/errors.js';
import { QUEUE_NAMES, isQueueName, type QueueName } from '../../src/queue/names.js';
import { migrate } from '../../src/db/migrator.js';
import { parseArgs, flagString, type ParsedArgs } from './args.js';
import { serve } from './commands/serve.js';
import { ingest } from './commands/ingest.js';
import { bench } from './commands/bench/index.js';
import { forgetCommand } from './commands/forget.js';
import { doctorCommand } from './commands/doctor.js';
import { retryCommand } from './commands/retry.js';

const USAGE = `memloom — long-term memory for AI agents

Usage: memloom <command> [options]

  start                      API + Bull Board + watcher + all workers + scheduler in one process
  api                        HTTP API and Bull Board only
  watcher                    events-directory watcher only
  worker [--queues a,b]      pipeline workers (default: all queues: ${QUEUE_NAMES.join(',')})
  scheduler                  registers the periodic maintenance schedules
  migrate                    applies database migrations and exits
  bench recall --locomo F    retrieval quality on a LoCoMo-format file (evidence recall@5/10/25)
  ingest <file|dir> [--url URL] [--api-key KEY] [--batch 500]
                             posts the events of JSONL files to the API, with a progress bar
  forget --session S | --user U | --dataset D | --event E [--url URL] [--tenant T]
                             hard-deletes a scope following provenance, prints counts
  doctor [--tenant T]        checks memory invariants (orphans, duplicates); exit 1 on violations
  retry --queue Q | --all [--url URL] [--tenant T]
                             failed jobs back to waiting; their dead letters marked retried

Configuration comes from the environment and .env (see README).`;

type Command = (config: Config, log: Logger, args: ParsedArgs) => Promise<void>;

const COMMANDS: Record<string, Command> = {
  start: (c, l) => serve(c, l, { api: true, watcher: true, workers: QUEUE_NAMES, scheduler: true }),
  api: (c, l) => serve(c, l, { api: true, watcher: false, workers: [], scheduler: false }),
  watcher: (c, l) => serve(c, l, { api: false, watcher: true, workers: [], scheduler: false }),
  scheduler: (c, l) => serve(c, l, { api: false, watcher: false, workers: [], scheduler: true }),
  worker: (c, l, args) => serve(c, l, { api: false, watcher: false, workers: parseQueues(flagString(args, 'queues')), scheduler: false }),
  migrate: runMigrate,
  ingest,
  bench,
  forget: forgetCommand,
  doctor: doctorCommand,
  retry: retryCommand,
};

function parseQueues(value: string | undefined): QueueName[] {
  if (!value) return [...QUEUE_NAMES];
  const names = value.split(',').map((s) => s.trim()).filter(Boolean);
  const bad = names.filter((n) => !isQueueName(n));
  if (bad.length > 0) throw new ConfigError(`invalid --queues: unknown queue ${bad.join(', ')}; expected some of ${QUEUE_NAMES.join(', ')}`);
  return names as QueueName[];
}

async function runMigrate(config: Config, log: Logger): Promise<void> {
  if (isEmbedded(config)) {
    // The embedded database migrates on every start; opening it is the migration.
    const { createDeps } = await import('../../src/deps.js');
    const deps = await createDeps(config, log);
    await deps.close();
    return;
  }
  const client = new pg.Client({ connectionString: config.DATABASE_URL });
  await client.connect();
  try {
    const applied = await migrate(client, log);
    log.info({ applied: applied.length }, 'migrations done');
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const name = args.positionals[0];
  if (!name || name === 'help' || args.flags.has('help')) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`memloom: unknown command "${name}"\n\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`memloom: ${err.message}\n`);
      process.exitCode = 2;
      return;
    }
    throw err;
  }
  const log = createLogger(config);
  try {
    await command(config, log, { ...args, positionals: args.positionals.slice(1) });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`memloom: ${err.message}\n`);
      process.exitCode = 2;
      return;
    }
    if (isMemloomError(err)) {
      process.stderr.write(`memloom: ${err.message}\n`);
      log.debug({ err }, 'command failed');
    } else log.error({ err }, 'command failed');
    log.flush?.();
    process.exitCode = 1;
    // The process may hold open handles (pools, servers) after a failed start.
    setTimeout(() => process.exit(1), 200).unref();
  }
}

await main();
