import type pg from 'pg';
import type { Slot } from '../domain/slots.js';
import { slotKeyText } from '../domain/slot-keys.js';
import { FTS_KEYS_VERSION, ftsDocument, metaDocument } from '../domain/text.js';
import type { Logger } from '../logger.js';
import { listTenants } from './pool.js';
import { foldTermDeltas } from './sql/bm25-fold.js';
import { refreshChunkKeys } from './sql/chunks.js';

/** pg_advisory_lock key: one upgrade at a time across replicas (the migrator's is 727001). */
const LOCK_KEY = 727_003;
const SETTING = 'fts_keys';
/** Rows re-tokenised per statement. */
const BATCH = 1000;

type Tokenise = (row: Record<string, string>) => string[];

/**
 * Full-text keys of each table, and how ftsDocument is applied to a row: the same texts the write
 * paths tokenise (chunk stage, extraction, correction, import, forget).
 */
const TABLES: Array<{ table: string; select: string; tokenise: Tokenise; set: string }> = [
  // A chunk's own text and its time and speaker words; the neighbours' parts are rebuilt after.
  {
    table: 'chunks',
    select: `c.content AS a, to_json(c.occurred_at) #>> '{}' AS t, (SELECT coalesce(e.metadata->>'speaker', e.metadata->>'name') FROM events e WHERE e.id = c.event_id) AS s`,
    tokenise: (r) => [ftsDocument(r.a ?? ''), metaDocument(new Date(r.t ?? 0), r.s, r.a ?? '')],
    set: `to_tsvector('simple', x.doc) || memloom_meta_key(to_tsvector('simple', x.meta))`,
  },
  // A memory's key also holds its slot's category and attribute words (src/domain/slots.ts slotKeyText).
  // What a version inherited from the one it replaced is not rewritten: a rewrite keeps its own words only.
  {
    table: 'memories',
    select: 'c.content AS a, c.slot::text AS s',
    tokenise: (r) => [ftsDocument(`${r.a ?? ''} ${r.s ? slotKeyText(JSON.parse(r.s) as Slot) : ''}`)],
    set: `to_tsvector('simple', x.doc)`,
  },
  { table: 'entities', select: 'c.name AS a, c.description AS b', tokenise: (r) => [ftsDocument(`${r.a} ${r.b}`)], set: `to_tsvector('simple', x.doc)` },
  {
    table: 'edges',
    select: `(SELECT s.name FROM entities s WHERE s.id = c.source_entity_id) AS a, c.relation AS b,
             (SELECT d.name FROM entities d WHERE d.id = c.target_entity_id) AS t, c.description AS d`,
    tokenise: (r) => [ftsDocument(`${r.a ?? ''} ${(r.b ?? '').replace(/_/g, ' ')} ${r.t ?? ''} ${r.d ?? ''}`)],
    set: `to_tsvector('simple', x.doc)`,
  },
];

/**
 * Rewrites every stored full-text key when the tokenizer changed since they were written
 * (FTS_KEYS_VERSION against memloom_settings): keys are tokenised in TypeScript, so no SQL
 * migration can. Runs at startup as the owner, after the migrations, tenant by tenant in batches
 * (each a transaction of its own under the tenant's row-level security), chunks' own texts first and
 * then their context parts from their neighbours (memloom_refresh_chunk_keys under the sessions'
 * locks). The BM25 statistics follow through their triggers. Interrupted, it starts over at the
 * next start: rewriting a key twice gives the same key. Returns the rows whose own key changed
 * (chunks' context parts, rewritten after, are not counted).
 */
export async function upgradeFullTextKeys(owner: pg.Client, log?: Logger): Promise<number> {
  const current = async () => (await owner.query<{ value: string }>('SELECT value FROM memloom_settings WHERE name = $1', [SETTING])).rows[0]?.value;
  if ((await current()) === FTS_KEYS_VERSION) return 0;
  await owner.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
  try {
    const from = await current();
    if (from === FTS_KEYS_VERSION) return 0;
    const tenants = await listTenants(owner);
    const started = performance.now();
    let rows = 0;
    for (const tenant of tenants) {
      for (const t of TABLES) rows += await retokenise(owner, tenant, t);
      await refreshChunkContexts(owner, tenant);
    }
    await owner.query(
      `INSERT INTO memloom_settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
      [SETTING, FTS_KEYS_VERSION],
    );
    if (rows > 0)
      log?.info(
        { from: from ?? 'before versions', to: FTS_KEYS_VERSION, rows, ms: Math.round(performance.now() - started) },
        'full-text keys rewritten for the new tokenizer',
      );
    return rows;
  } finally {
    await owner.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]);
  }
}

async function inTenant<T>(owner: pg.Client, tenant: string, fn: () => Promise<T>): Promise<T> {
  await owner.query(`BEGIN; SELECT set_config('app.tenant_id', ${owner.escapeLiteral(tenant)}, true)`);
  try {
    const out = await fn();
    // Each batch's rewritten keys leave term deltas; folded with it, so none pile up over a whole corpus.
    await foldTermDeltas(owner, 1);
    await owner.query('COMMIT');
    return out;
  } catch (err) {
    await owner.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** Rewrites the keys of `t` in the tenant; returns the rows whose key changed. */
async function retokenise(owner: pg.Client, tenant: string, t: (typeof TABLES)[number]): Promise<number> {
  let after = '00000000-0000-0000-0000-000000000000';
  let changed = 0;
  for (;;) {
    const n = await inTenant(owner, tenant, async () => {
      const { rows } = await owner.query<Record<string, string> & { id: string }>(
        `SELECT c.id, ${t.select} FROM ${t.table} c WHERE c.id > $1 ORDER BY c.id LIMIT ${BATCH}`,
        [after],
      );
      if (rows.length === 0) return 0;
      const ids = rows.map((r) => r.id);
      // A chunk's key changes under its session's lock, as every chunk write does.
      if (t.table === 'chunks') await owner.query('SELECT memloom_lock_sessions($1::uuid[])', [ids]);
      const docs = rows.map(t.tokenise);
      const { rowCount } = await owner.query(
        `UPDATE ${t.table} t SET fts = ${t.set}
         FROM unnest($1::uuid[], $2::text[], $3::text[]) AS x(id, doc, meta) WHERE t.id = x.id AND t.fts IS DISTINCT FROM ${t.set}`,
        [ids, docs.map((d) => d[0] ?? ''), docs.map((d) => d[1] ?? '')],
      );
      after = ids[ids.length - 1] as string;
      changed += rowCount ?? 0;
      return rows.length;
    });
    if (n < BATCH) return changed;
  }
}

/** The neighbours' parts of every chunk key of the tenant, from the rewritten own texts (time and speaker words are kept). */
async function refreshChunkContexts(owner: pg.Client, tenant: string): Promise<void> {
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const n = await inTenant(owner, tenant, async () => {
      const { rows } = await owner.query<{ id: string }>(`SELECT id FROM chunks WHERE id > $1 ORDER BY id LIMIT ${BATCH}`, [after]);
      if (rows.length === 0) return 0;
      const ids = rows.map((r) => r.id);
      await refreshChunkKeys(owner, ids, 'fts');
      after = ids[ids.length - 1] as string;
      return rows.length;
    });
    if (n < BATCH) return;
  }
}
