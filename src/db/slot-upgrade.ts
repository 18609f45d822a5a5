import type pg from 'pg';
import { slotKeys, slotKeyText, slotOf } from '../domain/slots.js';
import { ftsDocument } from '../domain/text.js';
import type { MemoryKind } from '../domain/vocabulary.js';
import type { Logger } from '../logger.js';
import { listTenants } from './pool.js';

/** pg_advisory_lock key: one upgrade at a time across replicas (fts-upgrade's is 727003). */
const LOCK_KEY = 727_004;
const SETTING = 'slots';
/**
 * The version of the slot reader whose readings the stored memories hold (src/domain/slots.ts).
 * 1: the first reader; memories written before it have none.
 */
export const SLOTS_VERSION = '1';
const BATCH = 500;

/**
 * Gives the memories written before slots existed their slot, slot keys and key words
 * (slotKeyText), so that new statements find and supersede them like any other. Runs at startup
 * as the owner after the migrations, tenant by tenant in batches of their own transactions;
 * interrupted, it starts over at the next start (reading a slot again gives the same slot, and a
 * memory that has one is skipped). Old memories that contradict each other are left as they are:
 * only new statements supersede. Returns the memories that got a slot.
 */
export async function upgradeSlots(owner: pg.Client, log?: Logger): Promise<number> {
  const current = async () => (await owner.query<{ value: string }>('SELECT value FROM memloom_settings WHERE name = $1', [SETTING])).rows[0]?.value;
  if ((await current()) === SLOTS_VERSION) return 0;
  await owner.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
  try {
    if ((await current()) === SLOTS_VERSION) return 0;
    const started = performance.now();
    let rows = 0;
    for (const tenant of await listTenants(owner)) rows += await readSlots(owner, tenant);
    await owner.query(
      `INSERT INTO memloom_settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
      [SETTING, SLOTS_VERSION],
    );
    if (rows > 0) log?.info({ version: SLOTS_VERSION, rows, ms: Math.round(performance.now() - started) }, 'slots read for memories written before them');
    return rows;
  } finally {
    await owner.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]);
  }
}

async function readSlots(owner: pg.Client, tenant: string): Promise<number> {
  let after = '00000000-0000-0000-0000-000000000000';
  let written = 0;
  for (;;) {
    await owner.query(`BEGIN; SELECT set_config('app.tenant_id', ${owner.escapeLiteral(tenant)}, true)`);
    try {
      const { rows } = await owner.query<{ id: string; kind: MemoryKind; content: string }>(
        `SELECT id, kind, content FROM memories WHERE id > $1 AND slot IS NULL ORDER BY id LIMIT ${BATCH}`,
        [after],
      );
      const read = rows.flatMap((r) => {
        const slot = slotOf(r.kind, r.content);
        return slot ? [{ id: r.id, slot, keys: slotKeys(slot), words: ftsDocument(slotKeyText(slot)) }] : [];
      });
      if (read.length > 0)
        await owner.query(
          `UPDATE memories m SET slot = x.slot, slot_keys = ARRAY(SELECT jsonb_array_elements_text(x.keys)), fts = m.fts || to_tsvector('simple', x.words)
           FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, slot jsonb, keys jsonb, words text) WHERE m.id = x.id AND m.slot IS NULL`,
          [JSON.stringify(read)],
        );
      await owner.query('COMMIT');
      written += read.length;
      if (rows.length < BATCH) return written;
      after = (rows[rows.length - 1] as { id: string }).id;
    } catch (err) {
      await owner.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }
}
