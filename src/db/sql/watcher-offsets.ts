import type { Queryable } from '../pool.js';
import { dollarQuoted } from './insert-events.js';

export interface FileOffset {
  path: string;
  /** `dev:ino` of the file that was read. */
  inode: string | null;
  /**
   * Hash of the bytes just before byte_offset, as they were read. A file truncated and rewritten
   * past the old offset before the watcher looked keeps its inode and size, but not these bytes.
   * Null for offsets stored before fingerprints existed (then only inode and size are compared).
   */
  fingerprint: string | null;
  byte_offset: number;
  line_number: number;
}

// The fingerprint shares the `inode` column as `dev:ino|fingerprint` (no migration needed);
// `dev:ino` never contains '|'.
function splitIdentity(stored: string | null): { inode: string | null; fingerprint: string | null } {
  if (stored === null) return { inode: null, fingerprint: null };
  const bar = stored.indexOf('|');
  return bar === -1 ? { inode: stored, fingerprint: null } : { inode: stored.slice(0, bar), fingerprint: stored.slice(bar + 1) };
}

/** The stored read position of an events file (global table: files belong to the operator). */
export async function getOffset(tx: Queryable, path: string): Promise<FileOffset | undefined> {
  // a literal, not a parameter: one protocol message instead of five (see insert-events.ts)
  const { rows } = await tx.query<{ path: string; inode: string | null; byte_offset: number; line_number: number }>(
    `SELECT path, inode, byte_offset, line_number FROM watcher_offsets WHERE path = ${dollarQuoted(path)}`,
  );
  const row = rows[0];
  return row && { ...row, ...splitIdentity(row.inode) };
}

function saveOffsetStatement(source: string): string {
  return `INSERT INTO watcher_offsets (path, inode, byte_offset, line_number, size, updated_at)
     SELECT path, inode, byte_offset, line_number, size, now() FROM jsonb_to_record(${source}) AS x(path text, inode text, byte_offset bigint, line_number bigint, size bigint)
     ON CONFLICT (path) DO UPDATE SET inode = EXCLUDED.inode, byte_offset = EXCLUDED.byte_offset,
       line_number = EXCLUDED.line_number, size = EXCLUDED.size, updated_at = now()`;
}

function offsetJson(o: FileOffset & { size: number }): string {
  const inode = o.inode === null ? null : o.fingerprint === null ? o.inode : `${o.inode}|${o.fingerprint}`;
  return JSON.stringify({ path: o.path, inode, byte_offset: o.byte_offset, line_number: o.line_number, size: o.size });
}

/** Advances the position; called in the same transaction as the events of those lines. Idempotent upsert on path. */
export async function saveOffset(tx: Queryable, o: FileOffset & { size: number }): Promise<void> {
  await tx.query(saveOffsetStatement('$1::jsonb'), [offsetJson(o)]);
}

/** saveOffset as a statement for runInOneTransaction, beside the events of the same lines. */
export function saveOffsetStatementFor(o: FileOffset & { size: number }): string {
  return saveOffsetStatement(`${dollarQuoted(offsetJson(o))}::jsonb`);
}
