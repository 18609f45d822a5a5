import { createHash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Deps } from '../../src/deps.js';
import { insertFileDeadLettersStatement, type FileDeadLetter } from '../../src/db/sql/dead-letters.js';
import { insertedEvents, insertEventsStatement, runInOneTransaction, setTenantStatement, type EventRow } from '../../src/db/sql/insert-events.js';
import { getOffset, saveOffset, saveOffsetStatementFor, type FileOffset } from '../../src/db/sql/watcher-offsets.js';
import type { ErrorCode } from '../../src/errors.js';
import { toEventRow } from '../../src/events/ingest.js';
import { intake } from '../../src/events/intake.js';
import { validateEvents } from '../../src/events/schema.js';
import { completeLines, type FileLine } from './lines.js';

const READ_BYTES = 4 * 1024 * 1024;
const LINES_PER_TX = 2_000;
/** Bytes before the offset whose hash tells a rewritten file from the one we were reading. */
const TAIL_BYTES = 256;
/** A line longer than this can never be a valid event (content ≤ 1 MiB, even fully \u-escaped). */
const MAX_LINE_BYTES = 8 * 1024 * 1024;

/** Idempotency key of a file line without `id` (docs/architecture.md, "The write path"): sha256(path + line number + line). */
export function lineKey(relPath: string, lineNumber: number, line: string): string {
  return `file-${createHash('sha256').update(`${relPath}\n${lineNumber}\n${line}`).digest('hex')}`;
}

/** Where reading stands: the byte offset after the last complete line, its number, and the bytes just before. */
interface Position {
  offset: number;
  line: number;
  tail: Buffer;
}

function fingerprint(tail: Buffer): string {
  return createHash('sha256').update(tail).digest('hex').slice(0, 32);
}

/** The last TAIL_BYTES before `end` of `buf`, which starts right after `tail`. */
function tailAt(tail: Buffer, buf: Buffer, end: number): Buffer {
  if (end >= TAIL_BYTES) return Buffer.from(buf.subarray(end - TAIL_BYTES, end));
  const joined = Buffer.concat([tail, buf.subarray(0, end)]);
  return joined.subarray(Math.max(0, joined.length - TAIL_BYTES));
}

async function readAt(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fh.read(buf, 0, length, position);
  return buf.subarray(0, bytesRead);
}

/**
 * Reads one events file from its stored offset to the last complete line, storing events, dead
 * letters for bad lines, and the new offset in one transaction per slice — so a crash at any point
 * neither loses nor doubles a line. A new inode, a size below the offset, or different bytes just
 * before the offset mean the file was replaced, truncated or rewritten: reading restarts at 0 and
 * the line keys (or the events' own ids) make lines read before duplicates. `shouldStop` ends the
 * read between two transactions (shutdown), never inside one.
 */
export async function readEventsFile(
  deps: Deps,
  root: string,
  absPath: string,
  tenantId: string,
  opts: { shouldStop?: () => boolean } = {},
): Promise<{ stored: number; deadLetters: number }> {
  const relPath = path.relative(root, absPath);
  let fh: FileHandle;
  try {
    fh = await open(absPath, 'r');
  } catch {
    return { stored: 0, deadLetters: 0 }; // removed meanwhile
  }
  let stored = 0;
  let deadLetters = 0;
  try {
    // fstat of the open handle: the identity we record is the one of the bytes we read.
    const info = await fh.stat();
    const inode = `${info.dev}:${info.ino}`;
    const saved = await getOffset(deps.db, relPath);
    let pos: Position = { offset: 0, line: 0, tail: Buffer.alloc(0) };
    if (saved) {
      const tail =
        info.size >= saved.byte_offset ? await readAt(fh, Math.max(0, saved.byte_offset - TAIL_BYTES), Math.min(TAIL_BYTES, saved.byte_offset)) : undefined;
      const reason =
        saved.inode !== inode
          ? 'replaced'
          : tail === undefined
            ? 'truncated'
            : saved.fingerprint !== null && fingerprint(tail) !== saved.fingerprint
              ? 'rewritten'
              : undefined;
      if (reason) deps.log.info({ file: relPath, reason }, 'events file restarts at 0');
      else pos = { offset: saved.byte_offset, line: saved.line_number, tail: tail ?? Buffer.alloc(0) };
    }
    const save = (p: Position): FileOffset & { size: number } => ({
      path: relPath,
      inode,
      fingerprint: fingerprint(p.tail),
      byte_offset: p.offset,
      line_number: p.line,
      size: info.size,
    });
    // what the table holds for this file, to skip a write that would change nothing
    let written: Omit<FileOffset, 'path'> | undefined = saved;
    const store = async (lines: FileLine[], bad: FileDeadLetter[], next: Position) => {
      const offset = save(next);
      const r = await storeLines(deps, tenantId, relPath, lines, bad, offset);
      written = offset;
      pos = next;
      stored += r.stored;
      deadLetters += r.deadLetters;
    };

    let carry: Buffer = Buffer.alloc(0);
    reading: while (pos.offset + carry.length < info.size && !opts.shouldStop?.()) {
      const chunk = await readAt(fh, pos.offset + carry.length, Math.min(READ_BYTES, info.size - pos.offset - carry.length));
      if (chunk.length === 0) break; // truncated while reading; the next read sees it
      const buf = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
      const start = pos;
      const { lines, consumed, lastLine } = completeLines(buf, start.offset, start.line);
      carry = buf.subarray(consumed);
      if (consumed === 0) {
        if (buf.length <= MAX_LINE_BYTES) continue; // no complete line yet in this window: keep reading
        const skipped = await skipLongLine(fh, start, buf, info.size);
        if (!skipped) break; // its \n has not been written yet
        await store([], [skipped.deadLetter], skipped.next);
        carry = Buffer.alloc(0);
        continue;
      }
      for (let i = 0; i < lines.length || i === 0; i += LINES_PER_TX) {
        const slice = lines.slice(i, i + LINES_PER_TX);
        const isLast = i + LINES_PER_TX >= lines.length;
        // the offset after this slice: the end of its last line, or the whole consumed span for the last slice
        const end = isLast ? consumed : (slice[slice.length - 1] as FileLine).end;
        await store(slice, [], {
          offset: start.offset + end,
          line: isLast ? lastLine : (slice[slice.length - 1] as FileLine).number,
          tail: tailAt(start.tail, buf, end),
        });
        if (!isLast && opts.shouldStop?.()) break reading; // shutting down: the offset stored is exact
      }
    }
    const current = save(pos);
    if (
      !written ||
      written.inode !== inode ||
      written.fingerprint !== current.fingerprint ||
      written.byte_offset !== pos.offset ||
      written.line_number !== pos.line
    ) {
      await saveOffset(deps.db, current);
    }
  } finally {
    await fh.close();
  }
  return { stored, deadLetters };
}

/** Finds the end of a line too long to be an event without holding it in memory; undefined while it has no \n. */
async function skipLongLine(fh: FileHandle, pos: Position, head: Buffer, size: number): Promise<{ next: Position; deadLetter: FileDeadLetter } | undefined> {
  let at = pos.offset + head.length;
  let prev = head;
  while (at < size) {
    const chunk = await readAt(fh, at, Math.min(READ_BYTES, size - at));
    if (chunk.length === 0) return undefined;
    const nl = chunk.indexOf(0x0a);
    if (nl !== -1) {
      const end = at + nl + 1;
      const before =
        nl + 1 >= TAIL_BYTES
          ? chunk.subarray(nl + 1 - TAIL_BYTES, nl + 1)
          : Buffer.concat([prev.subarray(prev.length - TAIL_BYTES), chunk.subarray(0, nl + 1)]);
      return {
        next: { offset: end, line: pos.line + 1, tail: Buffer.from(before.subarray(before.length - TAIL_BYTES)) },
        deadLetter: {
          file: '',
          line: pos.line + 1,
          code: 'LINE_TOO_LONG' satisfies ErrorCode,
          message: `the line is ${end - pos.offset} bytes, over the ${MAX_LINE_BYTES}-byte limit`,
          payload: head.toString('utf8', 0, 1024),
        },
      };
    }
    at += chunk.length;
    prev = chunk;
  }
  return undefined;
}

/** Parses, validates and stores one slice of lines with its dead letters and the new offset, in one transaction. */
async function storeLines(deps: Deps, tenantId: string, relPath: string, lines: FileLine[], extraBad: FileDeadLetter[], next: FileOffset & { size: number }) {
  const parsed: unknown[] = [];
  const bad: FileDeadLetter[] = extraBad.map((d) => ({ ...d, file: relPath }));
  const goodLines: FileLine[] = [];
  const deadLetter = (line: FileLine, code: ErrorCode, message: string) => bad.push({ file: relPath, line: line.number, code, message, payload: line.text });
  for (const line of lines) {
    if (!line.utf8) {
      deadLetter(line, 'INVALID_UTF8', 'the line is not valid UTF-8');
      continue;
    }
    try {
      parsed.push(JSON.parse(line.text));
      goodLines.push(line);
    } catch (err) {
      deadLetter(line, 'INVALID_JSON', (err as Error).message);
    }
  }
  const { valid, issues } = validateEvents(parsed);
  const reasons = new Map<number, string[]>();
  for (const issue of issues) {
    const list = reasons.get(issue.index as number) ?? [];
    list.push(`${issue.path || 'event'}: ${issue.message}`);
    reasons.set(issue.index as number, list);
  }
  for (const [index, list] of reasons) deadLetter(goodLines[index] as FileLine, 'INPUT_INVALID', list.join('; '));
  const rows: EventRow[] = [];
  const seen = new Set<string>();
  for (const { index, event } of valid) {
    const line = goodLines[index] as FileLine;
    const key = event.id ?? lineKey(relPath, line.number, line.text);
    if (seen.has(key)) continue;
    seen.add(key);
    rows.push(toEventRow(event, key, 'file', `${relPath}:${line.number}`));
  }
  // events, dead letters and the new offset: one message, one transaction, one round trip
  const deadLetterStatement = insertFileDeadLettersStatement(bad);
  const { newIds } = await intake(deps, tenantId, async () => {
    const results = await runInOneTransaction(deps.db, [
      setTenantStatement(tenantId),
      saveOffsetStatementFor(next),
      ...(deadLetterStatement ? [deadLetterStatement] : []),
      ...(rows.length > 0 ? [insertEventsStatement(rows)] : []),
    ]);
    const inserted = rows.length > 0 ? await insertedEvents(deps.db, tenantId, rows, results[results.length - 1]) : [];
    return { newIds: inserted.filter((r) => r.inserted).map((r) => r.id) };
  });
  return { stored: newIds.length, deadLetters: bad.length };
}
