import type { NewChunk } from '../../src/db/sql/chunks.js';

/** One write transaction of the chunk stage. */
export interface ChunkPiece {
  /** Events with rows in this piece, or finished by it. */
  eventIds: string[];
  rows: NewChunk[];
  /** Events whose last rows are in this piece: they become `chunked` in its transaction. */
  finished: string[];
}

/**
 * Cuts the rows of `events` (in order; an event may have no row) into write transactions of at
 * most `maxEvents` events and `maxRows` chunks. An event with more chunks than `maxRows` spans
 * several transactions and is finished (moves to `chunked`) by its last: until then it stays
 * `triaged`, so a job replayed after a crash writes its missing chunks (UNIQUE (event_id, idx)
 * keeps the ones already there) and finishes it. No I/O.
 */
export function chunkPieces(events: ReadonlyArray<{ id: string }>, rows: readonly NewChunk[], maxEvents: number, maxRows: number): ChunkPiece[] {
  const byEvent = new Map<string, NewChunk[]>(events.map((e) => [e.id, []]));
  for (const r of rows) byEvent.get(r.event_id)?.push(r);
  const pieces: ChunkPiece[] = [];
  let cur: ChunkPiece = { eventIds: [], rows: [], finished: [] };
  const flush = () => {
    if (cur.eventIds.length > 0) pieces.push(cur);
    cur = { eventIds: [], rows: [], finished: [] };
  };
  for (const e of events) {
    const own = byEvent.get(e.id) ?? [];
    let taken = 0;
    do {
      if (cur.eventIds.length >= maxEvents || (cur.rows.length >= maxRows && own.length > taken)) flush();
      const part = own.slice(taken, taken + maxRows - cur.rows.length);
      taken += part.length;
      cur.eventIds.push(e.id);
      cur.rows.push(...part);
    } while (taken < own.length);
    cur.finished.push(e.id);
  }
  flush();
  return pieces;
}
