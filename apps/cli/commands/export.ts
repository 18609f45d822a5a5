import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { ConfigError, type Config } from '../../../src/config.js';
import { MemloomError } from '../../../src/errors.js';
import type { Logger } from '../../../src/logger.js';
import { flagString, type ParsedArgs } from '../args.js';
import { remoteApi } from '../remote.js';
import { createTransferProgress } from '../transfer-progress.js';
import type { Io } from './recall.js';

/**
 * `memloom export [--format jsonl|markdown] [--user U | --dataset D] [--no-vectors] [--out FILE]`:
 * streams GET /v1/export of a running memloom to FILE (written to FILE.partial, renamed at the
 * end, so a broken transfer never leaves a file that looks whole) or to stdout.
 */
export async function exportCommand(config: Config, log: Logger, args: ParsedArgs, io: Io = { stdout: process.stdout, stderr: process.stderr }): Promise<void> {
  const format = flagString(args, 'format') ?? 'jsonl';
  if (format !== 'jsonl' && format !== 'markdown') throw new ConfigError('invalid --format: expected jsonl or markdown');
  const out = flagString(args, 'out');
  const api = remoteApi(config, args);
  const body = await api.exportStream({
    format,
    user_id: flagString(args, 'user'),
    dataset: flagString(args, 'dataset'),
    vectors: !args.flags.has('no-vectors'),
  });
  const partial = out ? `${out}.partial` : undefined;
  const sink = partial ? createWriteStream(partial) : io.stdout;
  const progress = createTransferProgress({ label: 'export', stream: io.stderr });
  let bytes = 0;
  let lines = 0;
  let last = '';
  try {
    for await (const chunk of body) {
      bytes += chunk.byteLength;
      for (const b of chunk) if (b === 10) lines++;
      last = Buffer.from(chunk.subarray(Math.max(0, chunk.byteLength - 200))).toString('utf8');
      if (!sink.write(chunk)) await once(sink, 'drain');
      progress.update(bytes, lines);
    }
    // A JSON-lines export ends with its `end` record; without it the server stopped half-way.
    if (format === 'jsonl' && !last.includes('"record":"end"')) {
      throw new MemloomError('EXPORT_TRUNCATED', 'the export stopped before its end record (see the server log); nothing was kept', { kind: 'upstream' });
    }
    if (partial && out) {
      (sink as NodeJS.WritableStream & { end(cb: () => void): void }).end(() => undefined);
      await once(sink, 'finish');
      await rename(partial, out);
    }
  } catch (err) {
    if (partial) await rm(partial, { force: true });
    throw err;
  } finally {
    progress.stop();
  }
  log.debug({ bytes, lines, url: api.url }, 'export finished');
}
