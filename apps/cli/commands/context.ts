import { ConfigError, type Config } from '../../../src/config.js';
import { DEFAULT_CONTEXT_BUDGET, MAX_CONTEXT_BUDGET, MIN_CONTEXT_BUDGET } from '../../../src/context/schema.js';
import type { Logger } from '../../../src/logger.js';
import { flagString, type ParsedArgs } from '../args.js';
import { remoteApi } from '../remote.js';
import type { Io } from './recall.js';

/** `memloom context "<query>"`: asks a running memloom (POST /v1/context) and prints the block to paste into a prompt. */
export async function contextCommand(
  config: Config,
  _log: Logger,
  args: ParsedArgs,
  io: Io = { stdout: process.stdout, stderr: process.stderr },
): Promise<void> {
  const query = args.positionals.join(' ').trim();
  if (query === '') throw new ConfigError('usage: memloom context "<query>" [options]; see memloom context --help');
  const budget = Number(flagString(args, 'budget') ?? DEFAULT_CONTEXT_BUDGET);
  if (!Number.isInteger(budget) || budget < MIN_CONTEXT_BUDGET || budget > MAX_CONTEXT_BUDGET)
    throw new ConfigError(`invalid --budget: expected an integer between ${MIN_CONTEXT_BUDGET} and ${MAX_CONTEXT_BUDGET}`);
  const answer = await remoteApi(config, args).context({
    query,
    budget_tokens: budget,
    user_id: flagString(args, 'user'),
    session_id: flagString(args, 'session'),
    agent_id: flagString(args, 'agent'),
    dataset: flagString(args, 'dataset'),
    as_of: flagString(args, 'as-of'),
  });
  if (args.flags.has('json')) {
    io.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
    return;
  }
  // The block alone on stdout (to pipe into a prompt); what it cost on stderr.
  if (answer.context) io.stdout.write(`${answer.context}\n`);
  io.stderr.write(
    answer.match === 'none'
      ? `nothing is stored about that (match: none; recall ${answer.recall_id})\n`
      : `(match ${answer.match}; ${answer.tokens} of ${answer.budget_tokens} tokens, ${answer.items.length} items; recall ${answer.recall_id}, ${answer.took_ms} ms)\n`,
  );
}
