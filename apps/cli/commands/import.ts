import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { ConfigError, type Config } from '../../../src/config.js';
import type { Logger } from '../../../src/logger.js';
import type { ParsedArgs } from '../args.js';
import { remoteApi } from '../remote.js';
import { createTransferProgress } from '../transfer-progress.js';
import type { Io } from './recall.js';

/**
 * `memloom import <file.jsonl>`: streams an export to POST /v1/import of a running memloom (the
 * key's tenant) with a progress bar, and prints the counts JSON. Importing the same file again
 * adds nothing.
 */
export async function importCommand(
  config: Config,
  _log: Logger,
  args: ParsedArgs,
  io: Io = { stdout: process.stdout, stderr: process.stderr },
): Promise<void> {
  const file = args.positionals[0];
  if (!file) throw new ConfigError('usage: memloom import <export.jsonl>; see memloom import --help');
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch {
    throw new ConfigError(`memloom import: ${file} does not exist`);
  }
  const progress = createTransferProgress({ label: 'import', total: size, stream: io.stderr });
  let bytes = 0;
  let lines = 0;
  const counted = async function* () {
    for await (const chunk of createReadStream(file)) {
      const buf = chunk as Buffer;
      bytes += buf.length;
      for (const b of buf) if (b === 10) lines++;
      progress.update(bytes, lines);
      yield new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
    }
  };
  // The answer comes once the server has read everything: the bar shows what was sent.
  const api = remoteApi(config, args, 24 * 3600_000);
  try {
    const result = await api.importData(Readable.toWeb(Readable.from(counted())) as ReadableStream<Uint8Array>);
    io.stdout.write(`${JSON.stringify(result)}\n`);
    if (result.rejected > 0) process.exitCode = 1;
  } finally {
    progress.stop();
  }
}
