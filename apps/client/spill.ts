import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import { jsonLines, type WireEvent } from './wire.js';

/**
 * Appends undeliverable events to `<dir>/spill-<pid>-<YYYY-MM-DD>.jsonl`, one JSON line per event,
 * each with its `id`. `dir` lies inside the events directory, so the watcher stores these lines
 * later under the same idempotency keys the API would have used: an event both sent and spilled is
 * stored once.
 *
 * Each batch is ONE write(2) on an O_APPEND descriptor (not fs.appendFile, which splits buffers
 * over 512 KiB into several writes): lines of two batches, two clients or two processes never
 * interleave, and the watcher, which only takes lines ending in \n, never sees half a batch as
 * complete lines.
 */
export class SpillFile {
  readonly dir: string;
  readonly #pid: number;

  constructor(dir: string, pid: number = process.pid) {
    this.dir = path.resolve(dir);
    this.#pid = pid;
  }

  /** The file for today (UTC): a long-running agent gets one file per day, which keeps files small. */
  file(now: Date = new Date()): string {
    return path.join(this.dir, `spill-${this.#pid}-${now.toISOString().slice(0, 10)}.jsonl`);
  }

  async append(events: readonly WireEvent[]): Promise<string> {
    const file = this.file();
    const buf = Buffer.from(jsonLines(events));
    await mkdir(this.dir, { recursive: true });
    const fh = await open(file, 'a');
    try {
      let at = 0;
      // A regular file takes the whole buffer in one write; the loop only guards against a short write.
      while (at < buf.length) at += (await fh.write(buf, at)).bytesWritten;
    } finally {
      await fh.close();
    }
    return file;
  }

  /** The same, synchronously: the only I/O possible in a process `exit` handler. */
  appendSync(events: readonly WireEvent[]): string {
    const file = this.file();
    const buf = Buffer.from(jsonLines(events));
    mkdirSync(this.dir, { recursive: true });
    const fd = openSync(file, 'a');
    try {
      let at = 0;
      while (at < buf.length) at += writeSync(fd, buf, at);
    } finally {
      closeSync(fd);
    }
    return file;
  }
}
