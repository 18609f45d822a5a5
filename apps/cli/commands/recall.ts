import { ConfigError, type Config } from '../../../src/config.js';
import type { Logger } from '../../../src/logger.js';
import { MEMORY_KINDS } from '../../../src/domain/vocabulary.js';
import { resultDate } from '../../../src/domain/result-date.js';
import { DEFAULT_RECALL_MODE, RECALL_MODES } from '../../../src/recall/schema.js';
import type { MemoryKind, RecallAnswer, RecallMode } from '../../client/types.js';
import { flagString, type ParsedArgs } from '../args.js';
import { remoteApi } from '../remote.js';

export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/** `memloom recall "<query>"`: asks a running memloom (POST /v1/recall) and prints the ranked results. */
export async function recallCommand(
  config: Config,
  _log: Logger,
  args: ParsedArgs,
  io: Io = { stdout: process.stdout, stderr: process.stderr },
): Promise<void> {
  const query = args.positionals.join(' ').trim();
  if (query === '') throw new ConfigError('usage: memloom recall "<query>" [options]; see memloom recall --help');
  const mode = flagString(args, 'mode') ?? DEFAULT_RECALL_MODE;
  if (!(RECALL_MODES as readonly string[]).includes(mode)) throw new ConfigError(`invalid --mode: expected one of ${RECALL_MODES.join(', ')}`);
  const limitText = flagString(args, 'limit') ?? '10';
  const limit = Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new ConfigError('invalid --limit: expected an integer between 1 and 100');
  const kinds = flagString(args, 'kinds')
    ?.split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  const bad = kinds?.filter((k) => !(MEMORY_KINDS as readonly string[]).includes(k)) ?? [];
  if (bad.length > 0) throw new ConfigError(`invalid --kinds: ${bad.join(', ')}; expected some of ${MEMORY_KINDS.join(', ')}`);
  const answer = await remoteApi(config, args).recall({
    query,
    mode: mode as RecallMode,
    limit,
    kinds: kinds as MemoryKind[] | undefined,
    user_id: flagString(args, 'user'),
    session_id: flagString(args, 'session'),
    agent_id: flagString(args, 'agent'),
    dataset: flagString(args, 'dataset'),
  });
  io.stdout.write(args.flags.has('json') ? `${JSON.stringify(answer, null, 2)}\n` : formatAnswer(answer));
}

export function formatAnswer(a: RecallAnswer): string {
  return (
    formatResults(a) +
    (a.vectors
      ? `(${a.vectors.missing}${a.vectors.capped ? '+' : ''} rows have no vector of ${a.vectors.model} yet: vector search skips them until memloom reembed)\n`
      : '')
  );
}

function formatResults(a: RecallAnswer): string {
  if (a.results.length === 0) return `nothing is stored about that (match: ${a.match ?? 'none'}; recall ${a.recall_id}, ${a.took_ms} ms)\n`;
  const lines = a.results.map((r, i) => {
    const what = r.type === 'memory' ? (r.kind ?? 'memory') : r.type;
    const old = r.current === false ? '  no longer current' : '';
    return `${String(i + 1).padStart(2)}. ${r.score.toFixed(3)}  [${what}] ${r.content.replace(/\s+/g, ' ')}\n      ${resultDate(r)}  id ${r.id}${r.source.session_id ? `  session ${r.source.session_id}` : ''}${old}`;
  });
  return `${lines.join('\n')}\n(match ${a.match}; recall ${a.recall_id}, ${a.took_ms} ms)\n`;
}
