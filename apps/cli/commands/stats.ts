import type { Config } from '../../../src/config.js';
import type { Logger } from '../../../src/logger.js';
import type { ServerStats } from '../../client/types.js';
import type { ParsedArgs } from '../args.js';
import { remoteApi } from '../remote.js';
import type { Io } from './recall.js';

/** `memloom stats`: object and queue counts of a running memloom (GET /v1/stats) for the key's tenant. */
export async function statsCommand(config: Config, _log: Logger, args: ParsedArgs, io: Io = { stdout: process.stdout, stderr: process.stderr }): Promise<void> {
  const stats = await remoteApi(config, args).serverStats();
  io.stdout.write(args.flags.has('json') ? `${JSON.stringify(stats, null, 2)}\n` : formatStats(stats));
}

function formatStats(s: ServerStats): string {
  const objects = Object.entries(s.objects).map(([k, n]) => `  ${k.padEnd(16)} ${String(n).padStart(10)}`);
  const queues = Object.entries(s.queues).map(
    ([q, c]) =>
      `  ${q.padEnd(12)} ${String(c.waiting).padStart(8)} ${String(c.active).padStart(8)} ${String(c.delayed).padStart(8)} ${String(c.failed).padStart(8)} ${String(c.completed).padStart(10)}`,
  );
  return [
    'objects',
    ...objects,
    '',
    `queues        ${'waiting'.padStart(8)} ${'active'.padStart(8)} ${'delayed'.padStart(8)} ${'failed'.padStart(8)} ${'completed'.padStart(10)}`,
    ...queues,
    '',
    `pending events: ${s.pending_events}${s.pending_events === 0 ? ' (everything received is recallable)' : ''}`,
    '',
  ].join('\n');
}
