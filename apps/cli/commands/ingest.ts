import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, type Config } from '../../../src/config.js';
import { MemloomError } from '../../../src/errors.js';
import { MAX_BATCH } from '../../../src/events/schema.js';
import type { Logger } from '../../../src/logger.js';
import { deliver, type TransportOptions } from '../../client/transport.js';
import type { WireEvent } from '../../client/wire.js';
import { lineKey } from '../../watcher/file-reader.js';
import { completeLines, type FileLine } from '../../watcher/lines.js';
import { listJsonl } from '../../watcher/watcher.js';
import { flagString, type ParsedArgs } from '../args.js';
import { createProgress, type IngestCounts } from '../progress.js';

const READ_BYTES = 1024 * 1024;
const MAX_BATCH_BYTES = 4 * 1024 * 1024;

export interface IngestIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/**
 * `memloom ingest <file|dir> [--url URL] [--api-key K] [--batch 500]`: posts the events of JSONL
 * files to POST /v1/events (the client's transport: retries, 413 splits, partial rejections) and
 * prints `{files, lines, accepted, duplicates, rejected}` on stdout.
 *
 * A line without `id` gets the watcher's key, sha256(relative path + line number + line), with the
 * path taken relative to EVENTS_DIR when the file lies inside it (else relative to the given
 * directory, or the file's own directory): importing a file twice, or importing a file the watcher
 * also reads, stores each event once. Bad lines are counted as rejected and never stop the import.
 */
export async function ingest(config: Config, log: Logger, args: ParsedArgs, io: IngestIo = { stdout: process.stdout, stderr: process.stderr }): Promise<void> {
  const target = args.positionals[0];
  if (!target) throw new ConfigError('usage: memloom ingest <file|dir> [--url URL] [--api-key KEY] [--batch 500]');
  const batchSize = parseBatch(flagString(args, 'batch'));
  const url = (flagString(args, 'url') ?? defaultUrl(config)).replace(/\/+$/, '');
  // The key may come from the environment so it does not show in `ps` or the shell history.
  const apiKey = flagString(args, 'api-key') ?? process.env.MEMLOOM_API_KEY;
  const { files, root } = await resolveFiles(path.resolve(target), path.resolve(config.EVENTS_DIR));
  const sizes = await Promise.all(files.map(async (f) => (await stat(f)).size));
  const transport: TransportOptions = {
    url,
    apiKey,
    fetch: globalThis.fetch,
    timeoutMs: 60_000,
    maxRetries: 5,
    backoffBaseMs: 200,
    backoffCapMs: 10_000,
    maxRetryAfterMs: 60_000,
  };

  const counts: IngestCounts = { files: 0, lines: 0, accepted: 0, duplicates: 0, rejected: 0 };
  const progress = createProgress({ total: sizes.reduce((a, b) => a + b, 0), stream: io.stderr });
  log.debug({ files: files.length, url, batchSize }, 'ingest started');
  let bytesBefore = 0;
  let batch: WireEvent[] = [];
  let batchBytes = 0;
  const send = async (): Promise<void> => {
    if (batch.length === 0) return;
    const d = await deliver(batch, transport);
    batch = [];
    batchBytes = 0;
    counts.accepted += d.accepted;
    counts.duplicates += d.duplicates;
    counts.rejected += d.rejected.length;
    for (const r of d.rejected) progress.log(`${r.event.ref ?? r.event.id}: rejected: ${r.issues.map((i) => `${i.path || 'event'}: ${i.message}`).join('; ')}`);
    if (d.undelivered.length > 0) {
      throw new MemloomError(
        d.error?.code ?? 'API_UNREACHABLE',
        `ingest stopped at ${d.undelivered[0]?.ref ?? '?'}: ${d.error?.message ?? 'the API did not take the events'}. ${counts.accepted} new and ${counts.duplicates} duplicate event(s) were stored; running the same command again skips them as duplicates.`,
        { kind: 'unavailable', cause: d.error, details: { url, undelivered: d.undelivered.length } },
      );
    }
  };

  try {
    for (const [i, file] of files.entries()) {
      const rel = path.relative(root, file);
      counts.files++;
      for await (const { lines, consumed } of readLines(file)) {
        for (const line of lines) {
          counts.lines++;
          const event = toEvent(rel, line);
          if (typeof event === 'string') {
            counts.rejected++;
            progress.log(`${rel}:${line.number}: rejected: ${event}`);
            continue;
          }
          if (batch.length > 0 && batchBytes + event.bytes > MAX_BATCH_BYTES) await send();
          batch.push(event);
          batchBytes += event.bytes;
          if (batch.length >= batchSize) await send();
        }
        progress.update(bytesBefore + consumed, counts);
      }
      bytesBefore += sizes[i] ?? 0;
    }
    await send();
    progress.update(bytesBefore, counts);
  } finally {
    progress.stop();
  }
  log.debug({ ...counts }, 'ingest finished');
  io.stdout.write(`${JSON.stringify(counts)}\n`);
}

/** One line → the event to send (with the watcher's key when it has no `id`), or why it is rejected. */
function toEvent(rel: string, line: FileLine): WireEvent | string {
  if (!line.utf8) return 'the line is not valid UTF-8';
  let value: unknown;
  try {
    value = JSON.parse(line.text);
  } catch (err) {
    return `invalid JSON: ${(err as Error).message}`;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'an event must be a JSON object';
  const obj = value as Record<string, unknown>;
  const event = obj.id === undefined ? { ...obj, id: lineKey(rel, line.number, line.text) } : obj;
  const json = JSON.stringify(event);
  return { id: String(event.id), json, bytes: Buffer.byteLength(json), ref: `${rel}:${line.number}` };
}

/**
 * Streams the complete lines of a file with the watcher's own splitter (BOM, CRLF, blank lines and
 * line numbers exactly as the watcher counts them, so keys match). A last line without \n is taken
 * too: it gets the same key the watcher will give it once its newline arrives.
 */
async function* readLines(file: string): AsyncGenerator<{ lines: FileLine[]; consumed: number }> {
  const fh = await open(file, 'r');
  try {
    let offset = 0; // file position of the first byte of `carry`
    let lineNo = 0;
    let carry = Buffer.alloc(0);
    for (;;) {
      const chunk = Buffer.alloc(READ_BYTES);
      const { bytesRead } = await fh.read(chunk, 0, READ_BYTES, offset + carry.length);
      if (bytesRead === 0) break;
      const buf = carry.length > 0 ? Buffer.concat([carry, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead);
      const { lines, consumed, lastLine } = completeLines(buf, offset, lineNo);
      offset += consumed;
      lineNo = lastLine;
      carry = buf.subarray(consumed);
      if (lines.length > 0) yield { lines, consumed: offset };
    }
    if (carry.length > 0) {
      const { lines } = completeLines(Buffer.concat([carry, Buffer.from('\n')]), offset, lineNo);
      yield { lines, consumed: offset + carry.length };
    }
  } finally {
    await fh.close();
  }
}

async function resolveFiles(abs: string, eventsRoot: string): Promise<{ files: string[]; root: string }> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(abs);
  } catch {
    throw new ConfigError(`memloom ingest: ${abs} does not exist`);
  }
  const files = info.isDirectory() ? (await listJsonl(abs)).sort() : [abs];
  const rel = path.relative(eventsRoot, abs);
  const insideEvents = !rel.startsWith('..') && !path.isAbsolute(rel);
  return { files, root: insideEvents ? eventsRoot : info.isDirectory() ? abs : path.dirname(abs) };
}

function parseBatch(value: string | undefined): number {
  if (value === undefined) return 500;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_BATCH) throw new ConfigError(`invalid --batch: expected an integer between 1 and ${MAX_BATCH}`);
  return n;
}

/** The API of this configuration; a wildcard listen address is reached on loopback. */
function defaultUrl(config: Config): string {
  const host = config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST === '::' ? '::1' : config.HOST;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.PORT}`;
}
