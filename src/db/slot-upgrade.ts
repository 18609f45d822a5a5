import type pg from 'pg';
import { relate } from '../domain/slot-relate.js';
import { type Slot, slotOf } from '../domain/slots.js';
import { slotKeys, slotKeyText } from '../domain/slot-keys.js';
import { ftsDocument } from '../domain/text.js';
import type { MemoryKind } from '../domain/vocabulary.js';
import type { Logger } from '../logger.js';
import { listTenants } from './pool.js';
import { unlinkVersions } from './sql/memory-chains.js';

/** pg_advisory_lock key: one upgrade at a time across replicas (fts-upgrade's is 727003). */
const LOCK_KEY = 727_004;
const SETTING = 'slots';
/**
 * The version of the slot reader whose readings the stored memories hold (src/domain/slots.ts).
 * Raise it when the reader changes what it reads, so stored memories are read again.
 * 1: the first reader; memories written before it have none.
 * 2 (2026-12-07): numbered headings ("Note 41:") and numbered subjects ("service 41") are no
 *   values, nor are possessors ("James's skills"), judging words ("great") or the speakers of the
 *   statement's events; the reader before it had chained such statements as versions of one slot.
 */
export const SLOTS_VERSION = '2';
const BATCH = 500;

/** What an upgrade did: memories whose slot was read (anew), supersessions undone. */
export interface SlotUpgrade {
  read: number;
  restored: number;
}

/**
 * Reads the slots of stored memories with the current reader (SLOTS_VERSION), once per version.
 * Runs at startup as the owner after the migrations, tenant by tenant in batches of their own
 * transactions (about a millisecond of reading per memory); interrupted, it resumes at the next
 * start after the last batch it committed (a batch done twice does nothing new). Two steps:
 * - Every memory whose slot the offline reader gave (the heuristic extractor's, a correction's)
 *   or that has none is read again: its slot, slot keys and key words (slotKeyText) follow the
 *   current reader, so new statements find it the way they would find one written today. A
 *   model's reading (a run of another provider) is kept: the model named the subject.
 * - Supersessions the heuristic extractor made, between two memories it wrote, that the current
 *   reader does not make (the two slots are unrelated) are undone (unlinkVersions): the older
 *   version is current again. Corrections, a person's or a model's decisions and dream merges
 *   are not touched, nor supersessions the reader still makes. Old memories that contradict each
 *   other and were never linked stay as they are: only new statements supersede.
 */
export async function upgradeSlots(owner: pg.Client, log?: Logger): Promise<SlotUpgrade> {
  const setting = async (name: string) => (await owner.query<{ value: string }>('SELECT value FROM memloom_settings WHERE name = $1', [name])).rows[0]?.value;
  const none = { read: 0, restored: 0 };
  if ((await setting(SETTING)) === SLOTS_VERSION) return none;
  await owner.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
  try {
    if ((await setting(SETTING)) === SLOTS_VERSION) return none;
    const started = performance.now();
    const done = { ...none };
    // Where an interrupted upgrade of this version stopped: tenants before it are done.
    const saved = JSON.parse((await setting(PROGRESS)) ?? 'null') as Progress | null;
    const resume = saved?.version === SLOTS_VERSION ? saved : null;
    for (const tenant of await listTenants(owner)) {
      if (resume && tenant < resume.tenant) continue;
      const at = (step: Progress['step']) => (resume?.tenant === tenant && resume.step === step ? resume.after : FIRST_ID);
      if (!(resume?.tenant === tenant && resume.step === 'unlink')) done.read += await inBatches(owner, tenant, 'read', at('read'), readSlots, log);
      done.restored += await inBatches(owner, tenant, 'unlink', at('unlink'), undoStaleSupersessions, log);
    }
    await owner.query(
      `INSERT INTO memloom_settings (name, value) VALUES ($1, $2), ($3, 'null') ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
      [SETTING, SLOTS_VERSION, PROGRESS],
    );
    if (done.read + done.restored > 0)
      log?.info(
        { version: SLOTS_VERSION, ...done, ms: Math.round(performance.now() - started) },
        'slots read again; supersessions the reader no longer makes undone',
      );
    return done;
  } finally {
    await owner.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]);
  }
}

/** The upgrade's place, saved with each batch: a restart resumes there instead of reading every memory again. */
interface Progress {
  version: string;
  tenant: string;
  step: 'read' | 'unlink';
  after: string;
}
const PROGRESS = 'slots_progress';
/** A progress line every this many batches (10,000 memories). */
const PROGRESS_LOG_BATCHES = 20;
const FIRST_ID = '00000000-0000-0000-0000-000000000000';
type Batch = (tx: pg.Client, after: string) => Promise<{ last?: string; count: number; rows: number }>;

/**
 * Runs `batch` over one tenant's rows in id order from `after`, a transaction per batch that also
 * saves the progress, until a batch returns fewer than BATCH rows. Returns the sum of the counts.
 */
async function inBatches(owner: pg.Client, tenant: string, step: Progress['step'], from: string, batch: Batch, log?: Logger): Promise<number> {
  let after = from;
  let total = 0;
  for (let n = 1; ; n++) {
    // A large store takes minutes once: say that it is under way.
    if (n % PROGRESS_LOG_BATCHES === 0) log?.info({ tenant, step, memories: n * BATCH }, 'slots: reading stored memories again');
    await owner.query(`BEGIN; SELECT set_config('app.tenant_id', ${owner.escapeLiteral(tenant)}, true)`);
    try {
      const { last, count, rows } = await batch(owner, after);
      const progress: Progress = { version: SLOTS_VERSION, tenant, step, after: last ?? after };
      await owner.query(
        `INSERT INTO memloom_settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
        [PROGRESS, JSON.stringify(progress)],
      );
      await owner.query('COMMIT');
      total += count;
      if (rows < BATCH || last === undefined) return total;
      after = last;
    } catch (err) {
      await owner.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }
}

/** The offline reader's memories (and those without a slot) read again; only changed readings are written. */
const readSlots: Batch = async (tx, after) => {
  // With the speakers of its events, as extraction reads it (workers/extract/prepare.ts).
  const { rows } = await tx.query<{ id: string; kind: MemoryKind; content: string; speakers: string[] }>(
    `SELECT m.id, m.kind, m.content,
            ARRAY(SELECT DISTINCT s FROM provenance p JOIN events e ON e.id = p.event_id,
                    LATERAL (SELECT coalesce(e.metadata ->> 'speaker', e.metadata ->> 'name') AS s) x
                  WHERE p.object_type = 'memory' AND p.object_id = m.id AND x.s IS NOT NULL) AS speakers
     FROM memories m LEFT JOIN pipeline_runs r ON r.id = m.run_id
       WHERE m.id > $1 AND (m.slot IS NULL OR r.stage = 'correct' OR (r.stage = 'extract' AND r.provider = 'heuristic'))
       ORDER BY m.id LIMIT ${BATCH}`,
    [after],
  );
  const read = rows.map((r) => {
    const slot = slotOf(r.kind, r.content, null, r.speakers);
    return { id: r.id, slot, keys: slot ? slotKeys(slot) : null, words: slot ? ftsDocument(slotKeyText(slot)) : '' };
  });
  const { rowCount } = await tx.query(
    `UPDATE memories m SET slot = x.slot, slot_keys = CASE WHEN x.keys IS NULL THEN NULL ELSE ARRAY(SELECT jsonb_array_elements_text(x.keys)) END,
         fts = m.fts || to_tsvector('simple', x.words)
       FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, slot jsonb, keys jsonb, words text)
       WHERE m.id = x.id AND m.slot IS DISTINCT FROM x.slot`,
    [JSON.stringify(read)],
  );
  return { last: rows[rows.length - 1]?.id, count: rowCount ?? 0, rows: rows.length };
};

/**
 * The heuristic extractor's supersessions between two of its memories (the old one superseded at
 * the new one's valid_from, as extraction does) whose slots, read anew, are unrelated: undone.
 */
const undoStaleSupersessions: Batch = async (tx, after) => {
  const { rows } = await tx.query<{ id: string; new_id: string; old_slot: Slot | null; new_slot: Slot | null }>(
    `SELECT o.id, n.id AS new_id, o.slot AS old_slot, n.slot AS new_slot
       FROM memories o JOIN memories n ON n.id = o.superseded_by
       JOIN pipeline_runs ro ON ro.id = o.run_id JOIN pipeline_runs rn ON rn.id = n.run_id
       WHERE o.id > $1 AND o.status = 'superseded' AND o.superseded_at = n.valid_from
         AND ro.stage = 'extract' AND ro.provider = 'heuristic' AND rn.stage = 'extract' AND rn.provider = 'heuristic'
       ORDER BY o.id LIMIT ${BATCH}`,
    [after],
  );
  const stale = rows.filter((r) => r.old_slot === null || r.new_slot === null || relate(r.old_slot, r.new_slot) === 'unrelated');
  const restored = await unlinkVersions(
    tx,
    stale.map((r) => ({ oldId: r.id, newId: r.new_id })),
  );
  return { last: rows[rows.length - 1]?.id, count: restored.length, rows: rows.length };
};
