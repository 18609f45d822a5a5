import type { Queryable } from '../pool.js';

export interface FileOffset {
  path: string;
  inode: string | null;
  byte_offset: number;
  line_number: number;
}

/** The stored read position of an events file (global table: files belong to the operator). */
export async function getOffset(tx: Queryable, path: string): Promise<FileOffset | undefined> {
  const { rows } = await tx.query<FileOffset>('SELECT path, inode, byte_offset, line_number FROM watcher_offsets WHERE path = $1', [path]);
  return rows[0];
}

/** Advances the position; called in the same transaction as the events of those lines. */
export async function saveOffset(tx: Queryable, o: FileOffset & { size: number }): Promise<void> {
  await tx.query(
    `INSERT INTO watcher_offsets (path, inode, byte_offset, line_number, size, updated_at) VALUES ($1, $2, $3, $4, $5, now())
     ON CONFLICT (path) DO UPDATE SET inode = EXCLUDED.inode, byte_offset = EXCLUDED.byte_offset,
       line_number = EXCLUDED.line_number, size = EXCLUDED.size, updated_at = now()`,
    [o.path, o.inode, o.byte_offset, o.line_number, o.size],
  );
}
