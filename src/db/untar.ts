import { closeSync, createReadStream, mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { createGunzip } from 'node:zlib';

const BLOCK = 512;

/**
 * Extracts a gzip'd tar file of directories and regular files (ustar, as PGlite's dumpDataDir
 * writes it) into `dir`, as it streams: memory stays at a few blocks whatever the size of a file.
 * Loading the same tarball inside PGlite (its loadDataDir) held the whole archive in the database
 * thread's memory several times over, and the process's idle RSS stayed ~90 MB higher after it.
 * Any other entry type, a name that leaves `dir`, or a truncated archive throws.
 */
export async function extractTarGz(file: string, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  let pending: Buffer = Buffer.alloc(0);
  /** The file being written and the bytes of it (then of padding) still to come. */
  let fd: number | undefined;
  let remaining = 0;
  let padding = 0;
  let ended = false;
  for await (const chunk of createReadStream(file).pipe(createGunzip()) as AsyncIterable<Buffer>) {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      if (remaining > 0) {
        const n = Math.min(remaining, pending.length);
        if (n === 0) break;
        writeSync(fd as number, pending, 0, n);
        pending = pending.subarray(n);
        remaining -= n;
        if (remaining > 0) break;
        closeSync(fd as number);
        fd = undefined;
      }
      if (padding > 0) {
        const n = Math.min(padding, pending.length);
        pending = pending.subarray(n);
        padding -= n;
        if (padding > 0) break;
      }
      if (ended || pending.length < BLOCK) break;
      const header = pending.subarray(0, BLOCK);
      pending = pending.subarray(BLOCK);
      if (header.every((b) => b === 0)) {
        ended = true;
        break;
      }
      const entry = parseHeader(header, dir);
      if (entry.type === 'dir') mkdirSync(entry.target, { recursive: true });
      else {
        mkdirSync(path.dirname(entry.target), { recursive: true });
        fd = openSync(entry.target, 'w', 0o600);
        remaining = entry.size;
        padding = (BLOCK - (entry.size % BLOCK)) % BLOCK;
        if (remaining === 0) {
          closeSync(fd);
          fd = undefined;
        }
      }
    }
  }
  if (fd !== undefined) closeSync(fd);
  if (!ended || remaining > 0) throw new Error(`${file}: the archive ends early`);
}

function parseHeader(header: Buffer, dir: string): { type: 'dir' | 'file'; target: string; size: number } {
  const text = (from: number, length: number) => header.toString('latin1', from, from + length).replace(/\0.*$/s, '');
  const sum = header.reduce((s, b, i) => s + (i >= 148 && i < 156 ? 32 : b), 0);
  if (Number.parseInt(text(148, 8).trim(), 8) !== sum) throw new Error('tar header checksum does not match');
  const name = [text(345, 155), text(0, 100)].filter(Boolean).join('/');
  const target = path.resolve(dir, `.${path.posix.normalize(`/${name}`)}`);
  if (target !== dir && !target.startsWith(`${dir}${path.sep}`)) throw new Error(`tar entry ${name} is outside the directory`);
  const flag = text(156, 1);
  const size = Number.parseInt(text(124, 12).trim() || '0', 8);
  if (flag === '5') return { type: 'dir', target, size: 0 };
  if (flag === '0' || flag === '') return { type: 'file', target, size };
  throw new Error(`tar entry ${name} has type ${flag}, expected a file or a directory`);
}
