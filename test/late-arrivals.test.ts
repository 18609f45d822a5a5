/**
 * Where a late-arriving older statement goes in a chain of versions (placeLateVersions), on the
 * real database (PGlite here, PostgreSQL in the server suite): before the first later version it
 * relates to, taking over as successor only of the earlier versions it replaces.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../src/db/pool.js';
import { placeLateVersions } from '../src/db/sql/memory-chains.js';
import { readSlot } from '../src/domain/slots.js';
import { startTestMemloom, type TestMemloom } from './support/memloom.js';

let m: TestMemloom;
const day = (d: number, h = 10) => new Date(Date.UTC(2026, 2, d, h)).toISOString();
const rows = <T>(text: string, params: unknown[] = []) => withTenant(m.deps.db, 'default', async (tx) => (await tx.query(text, params)).rows as T[]);

beforeAll(async () => {
  m = await startTestMemloom();
});
afterAll(async () => m?.close());

describe('a late arrival placed in a chain', () => {
  it('is placed before the first later version it relates to, and takes over as successor only of the earlier versions it replaces', async () => {
    // B (standup 9:30) and A (a release day) were both superseded by S (standup 10:00): A by a
    // relinking of an older reader. L (standup 9:45, stated between them) arrives late.
    const insert = async (content: string, at: number) =>
      (
        await rows<{ id: string }>(
          `INSERT INTO memories (user_id, kind, content, content_hash, fts, valid_from, occurred_at, slot, run_id)
           VALUES ('lena', 'fact', $1, md5($1), to_tsvector('simple', $1), $2, $2, $3::jsonb, NULL) RETURNING id`,
          [content, day(at), JSON.stringify(readSlot(content))],
        )
      )[0]?.id as string;
    const a = await insert('The release is on Friday.', 2);
    const b = await insert('Standup is at 9:30.', 3);
    const late = await insert('Standup moved to 9:45.', 6);
    // X, valid after L, in the same chain by the same mistake: L is not placed before it.
    const x = await insert('The release moved to Monday.', 7);
    const s = await insert('Standup moved to 10:00.', 9);
    await rows(`UPDATE memories o SET status = 'superseded', superseded_by = $2, superseded_at = $3 WHERE id = ANY($1::uuid[])`, [[a, b, x], s, day(9)]);
    await withTenant(m.deps.db, 'default', (tx) => placeLateVersions(tx, [{ id: late, successorId: s, slot: readSlot('Standup moved to 9:45.') }]));
    const after = new Map(
      (await rows<{ id: string; superseded_by: string | null }>(`SELECT id, superseded_by FROM memories WHERE user_id = 'lena'`)).map((r) => [
        r.id,
        r.superseded_by,
      ]),
    );
    expect(after.get(late)).toBe(s);
    expect(after.get(b)).toBe(late);
    expect(after.get(a)).toBe(s);
    expect(after.get(x)).toBe(s);
  });
});
