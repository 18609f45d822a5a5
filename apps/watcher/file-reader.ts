import { createHash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Deps } from '../../src/deps.js';
import { withTenant } from '../../src/db/pool.js';
import { insertFileDeadLetter } from '../../src/db/sql/dead-letters.js';
import { insertEvents, type EventRow } from '../../src/db/sql/insert-events.js';
import { getOffset, saveOffset } from '../../src/db/sql/watcher-offsets.js';
import { toEventRow } from '../../src/events/ingest.js';
import { validateEvents } from '../../src/events/schema.js';
import { completeLines, type FileLine } from './lines.js';

const READ_BYTES = 4 * 1024 * 1024;
const LINES_PER_TX = 2_000;

/** Idempotency key of a file line without `id` (DESIGN §2): sha256(path + line number + line). */
export function lineKey(relPath: string, lineNumber: number, line: string): string {
  return `file-${createHash('sha256').update(`${relPath}\n${lineNumber}\n${line}`).digest('hex')}`;
}

/**
 * Reads one events file from its stored offset to the last complete line, storing events, dead
 * letters for bad lines, and the new offset in one transaction per slice — so a crash at any point
 * neither loses nor doubles a line. A new inode or a size below the offset means the file was
 * replaced or truncated: reading restarts at 0 and line-hash keys make re-read lines duplicates.
 */
export async function readEventsFile(deps: Deps, root: string, absPath: string, tenantId: string): Promise<{ stored: number; deadLetters: number }> {
  const relPath = path.relative(root, absPath);
  let info;
  try {
    info = await stat(absPath, { bigint: false });
  } catch {
    return { stored: 0, deadLetters: 0 }; // removed meanwhile
  }
  const inode = `${info.dev}:${info.ino}`;
  const saved = await getOffset(deps.db, relPath);
  let offset = saved?.byte_offset ?? 0;
  let lineNo = saved?.line_number ?? 0;
  if (saved && (saved.inode !== inode || info.size < saved.byte_offset)) {
    deps.log.info({ file: relPath, reason: saved.inode !== inode ? 'replaced' : 'truncated' }, 'events file restarts at 0');
    offset = 0;
    lineNo = 0;
  }
  let stored = 0;
  let deadLetters = 0;
  const fh = await open(absPath, 'r');
  try {
    let carry = Buffer.alloc(0);
    while (offset + carry.length < info.size) {
      const want = Math.min(READ_BYTES, info.size - offset - carry.length);
      const chunk = Buffer.alloc(want);
      const { bytesRead } = await fh.read(chunk, 0, want, offset + carry.length);
      if (bytesRead === 0) break;
      const buf = carry.length > 0 ? Buffer.concat([carry, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead);
      const { lines, consumed, lastLine } = completeLines(buf, offset, lineNo);
      if (consumed === 0) {
        carry = buf; // no complete line yet in this window; keep reading (a very long line)
        continue;
      }
      for (let i = 0; i < lines.length; i += LINES_PER_TX) {
        const slice = lines.slice(i, i + LINES_PER_TX);
        const isLast = i + LINES_PER_TX >= lines.length;
        // the offset after this slice: the end of its last line, or the whole consumed span for the last slice
        const sliceEnd = isLast ? consumed : (slice[slice.length - 1] as FileLine).end;
        const sliceLastLine = isLast ? lastLine : (slice[slice.length - 1] as FileLine).number;
        const r = await storeLines(deps, tenantId, relPath, slice, { path: relPath, inode, byte_offset: offset + sliceEnd, line_number: sliceLastLine, size: info.size });
        stored += r.stored;
        deadLetters += r.deadLetters;
      }
      if (lines.length === 0) await saveOffset(deps.db, { path: relPath, inode, byte_offset: offset + consumed, line_number: lastLine, size: info.size });
      offset += consumed;
      lineNo = lastLine;
      carry = buf.subarray(consumed);
    }
    if (!saved || saved.inode !== inode || (offset === 0 && saved.byte_offset !== 0)) {
      await saveOffset(deps.db, { path: relPath, inode, byte_offset: offset, line_number: lineNo, size: info.size });
    }
  } finally {
    await fh.close();
  }
  return { stored, deadLetters };
}

async function storeLines(deps: Deps, tenantId: string, relPath: string, lines: FileLine[], next: { path: string; inode: string; byte_offset: number; line_number: number; size: number }) {
  const parsed: unknown[] = [];
  const bad: Array<{ line: FileLine; code: string; message: string }> = [];
  const goodLines: FileLine[] = [];
  for (const line of lines) {
    if (!line.utf8) {
      bad.push({ line, code: 'INVALID_UTF8', message: 'the line is not valid UTF-8' });
      continue;
    }
    try {
      parsed.push(JSON.parse(line.text));
      goodLines.push(line);
    } catch (err) {
      bad.push({ line, code: 'INVALID_JSON', message: (err as Error).message });
    }
  }
  const { valid, issues } = validateEvents(parsed);
  for (const issue of issues) {
    const line = goodLines[issue.index as number] as FileLine;
    bad.push({ line, code: 'INPUT_INVALID', message: `${issue.path || 'event'}: ${issue.message}` });
  }
  const rows: EventRow[] = [];
  const seen = new Set<string>();
  for (const { index, event } of valid) {
    const line = goodLines[index] as FileLine;
    const key = event.id ?? lineKey(relPath, line.number, line.text);
    if (seen.has(key)) continue;
    seen.add(key);
    rows.push(toEventRow(event, key, 'file', `${relPath}:${line.number}`));
  }
  const inserted = await withTenant(deps.db, tenantId, async (tx) => {
    const result = await insertEvents(tx, rows);
    for (const b of bad) await insertFileDeadLetter(tx, { file: relPath, line: b.line.number, code: b.code, message: b.message, payload: b.line.text });
    await saveOffset(tx, next);
    return result;
  });
  const newIds = inserted.filter((r) => r.inserted).map((r) => r.id);
  deps.dispatcher.submit(tenantId, newIds);
  return { stored: newIds.length, deadLetters: bad.length };
}
