import type { Config } from '../../../../src/config.js';
import type { Logger } from '../../../../src/logger.js';
import type { ParsedArgs } from '../../args.js';
import { benchContext } from './context.js';
import { benchRecall } from './recall.js';
import { benchTruth } from './truth.js';

/** `memloom bench <what>`: benchmarks that print figures (never assertions). */
export async function bench(config: Config, log: Logger, args: ParsedArgs): Promise<void> {
  const what = args.positionals[0];
  if (what === 'recall') return benchRecall(config, log, { ...args, positionals: args.positionals.slice(1) });
  if (what === 'context') return benchContext(config, log, { ...args, positionals: args.positionals.slice(1) });
  if (what === 'truth') return benchTruth(config, log, { ...args, positionals: args.positionals.slice(1) });
  throw new Error('usage: memloom bench recall --locomo <file> | memloom bench context --locomo <file> | memloom bench truth [--set tune|check]');
}
