import type { Deps } from '../deps.js';
import { withTenant, type Tx } from '../db/pool.js';
import {
  exportChunks,
  exportEdges,
  exportEntities,
  exportEvents,
  exportMemories,
  exportMemoryEntities,
  exportProvenance,
  exportRelations,
  exportWorkingMemory,
  useIsoIntervals,
  type ExportScope,
} from '../db/sql/export.js';
import { EXPORT_FORMAT, EXPORT_VERSION, type DataRecordName, type ExportQuery } from './schema.js';

const PAGE = 500;
const ZERO = '00000000-0000-0000-0000-000000000000';

type Row = Record<string, unknown>;

/**
 * The records of an export, in dependency order (an import can resolve every reference from
 * records it has already read), read page by page in short transactions. Not a point-in-time
 * snapshot: objects written while the export runs may or may not be in it (docs/api.md).
 */
export async function* exportRecords(deps: Deps, tenantId: string, q: ExportQuery): AsyncGenerator<Row> {
  const scope: ExportScope = { userId: q.user_id, dataset: q.dataset };
  const counts: Record<DataRecordName, number> = {
    event: 0,
    chunk: 0,
    entity: 0,
    memory: 0,
    edge: 0,
    relation: 0,
    memory_entity: 0,
    provenance: 0,
    working_memory: 0,
  };
  const embeddings = deps.providers.embeddings;
  yield {
    record: 'header',
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exported_at: new Date().toISOString(),
    scope: { ...(q.user_id ? { user_id: q.user_id } : {}), ...(q.dataset ? { dataset: q.dataset } : {}) },
    embedding: q.vectors ? { model: embeddings.model, dimensions: embeddings.dimensions } : null,
  };
  const page = (read: (tx: Tx, after: string) => Promise<Row[]>) => async (after: string) =>
    withTenant(deps.db, tenantId, async (tx) => {
      await useIsoIntervals(tx);
      return read(tx, after);
    });
  const tables: Array<[DataRecordName, (after: string) => Promise<Row[]>, string, (r: Row) => string]> = [
    ['event', page((tx, a) => exportEvents(tx, scope, a, PAGE)), ZERO, byId],
    ['chunk', page((tx, a) => exportChunks(tx, scope, a, PAGE, q.vectors)), ZERO, byId],
    ['entity', page((tx, a) => exportEntities(tx, scope, a, PAGE, q.vectors)), ZERO, byId],
    ['memory', page((tx, a) => exportMemories(tx, scope, a, PAGE, q.vectors)), ZERO, byId],
    ['edge', page((tx, a) => exportEdges(tx, scope, a, PAGE)), ZERO, byId],
    ['relation', page((tx, a) => exportRelations(tx, scope, a, PAGE)), ZERO, byId],
    ['memory_entity', page((tx, a) => exportMemoryEntities(tx, scope, a, PAGE)), `${ZERO}/${ZERO}`, byKey],
    ['provenance', page((tx, a) => exportProvenance(tx, scope, a, PAGE)), `/${ZERO}/${ZERO}`, byKey],
  ];
  for (const [record, read, start, keyOf] of tables) {
    let after = start;
    for (;;) {
      const rows = await read(after);
      for (const row of rows) {
        counts[record]++;
        yield toRecord(record, row);
      }
      if (rows.length < PAGE) break;
      after = keyOf(rows[rows.length - 1] as Row);
    }
  }
  for (const wm of await withTenant(deps.db, tenantId, (tx) => exportWorkingMemory(tx, scope))) {
    counts.working_memory++;
    yield { record: 'working_memory', ...wm };
  }
  yield { record: 'end', counts };
}

const byId = (r: Row) => r.id as string;
const byKey = (r: Row) => r.key as string;

function toRecord(record: DataRecordName, row: Row): Row {
  const { key: _key, ...rest } = row;
  const out: Row = { record, ...rest };
  // pgvector's text form is a JSON array; absent when vectors were not asked for.
  if ('embedding' in out) {
    if (typeof out.embedding === 'string') out.embedding = JSON.parse(out.embedding) as number[];
    else delete out.embedding;
  }
  return out;
}

/** JSON lines: one record per line. */
export async function* jsonLinesOf(records: AsyncIterable<Row>): AsyncGenerator<string> {
  for await (const r of records) yield `${JSON.stringify(r)}\n`;
}
