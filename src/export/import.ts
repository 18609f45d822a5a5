import { createHash } from 'node:crypto';
import type { Deps } from '../deps.js';
import { withTenant } from '../db/pool.js';
import { createImportRun, linkSuperseded } from '../db/sql/import.js';
import { contentHash } from '../domain/text.js';
import { InputError } from '../errors.js';
import { writeWorkingMemoryFile } from '../memories/working-memory.js';
import { flushBatch, type ImportState } from './import-batches.js';
import { ExportHeader, ExportRecord, type DataRecordName, type ImportResult } from './schema.js';

const BATCH = 500;
const MAX_REJECTIONS = 100;

/**
 * POST /v1/import: reads an export's JSON lines and stores what they hold in the caller's tenant.
 * Every line is validated on its own; a bad line, or one that refers to an object the file did
 * not carry, is rejected and counted without stopping the rest. Ids are new (derived from the
 * tenant and the source id, so a second import of the same file finds its own rows) and every
 * reference is mapped; an object that already exists under its natural key (an event's
 * idempotency key, an entity's name and type, an active memory's content in its user scope, an
 * edge's endpoints and relation) is reused. Imported events keep their status; one the source
 * had not finished processing starts the pipeline again here.
 */
export async function importRecords(deps: Deps, tenantId: string, lines: AsyncIterable<{ text: string | null; number: number }>): Promise<ImportResult> {
  const result: ImportResult = { imported: zero(), existing: zero(), rejected: 0, rejections: [], embedded: 0, complete: false };
  const reject = (line: number, message: string) => {
    result.rejected++;
    if (result.rejections.length < MAX_REJECTIONS) result.rejections.push({ line, message });
  };
  let state: ImportState | undefined;
  let batch: Array<{ line: number; record: ExportRecord }> = [];
  const flush = async () => {
    if (state && batch.length > 0) await flushBatch(deps, state, batch);
    batch = [];
  };

  for await (const { text, number } of lines) {
    if (text === null) {
      reject(number, 'line too long');
      continue;
    }
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      if (!state)
        throw new InputError(
          'The body is not an export: its first line is not JSON.',
          [{ path: `line ${number}`, message: (err as Error).message }],
          'IMPORT_NOT_AN_EXPORT',
        );
      reject(number, `invalid JSON: ${(err as Error).message}`);
      continue;
    }
    if (!state) {
      const header = ExportHeader.safeParse(value);
      if (!header.success) {
        throw new InputError(
          'The body is not a memloom export: the first line must be its header record.',
          header.error.issues.map((i) => ({ path: `line ${number}.${i.path.join('.')}`, message: i.message })),
          'IMPORT_NOT_AN_EXPORT',
        );
      }
      const runId = await withTenant(deps.db, tenantId, (tx) => createImportRun(tx, { exported_at: header.data.exported_at, scope: header.data.scope }));
      state = newState(tenantId, runId, header.data.embedding, result, reject);
      continue;
    }
    const parsed = ExportRecord.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      reject(number, `${issue?.path.join('.') || 'record'}: ${issue?.message ?? 'invalid'}`);
      continue;
    }
    const record = parsed.data;
    if (record.record === 'header') {
      reject(number, 'a second header');
      continue;
    }
    if (record.record === 'end') {
      result.complete = true;
      continue;
    }
    if (batch.length > 0 && (batch[0]?.record.record !== record.record || batch.length >= BATCH)) await flush();
    batch.push({ line: number, record });
  }
  await flush();
  if (!state) throw new InputError('The body is empty: send the JSON lines of an export.', [], 'IMPORT_NOT_AN_EXPORT');
  await finish(deps, tenantId, state);
  return result;
}

function newState(
  tenantId: string,
  runId: string,
  embedding: ImportState['sourceEmbedding'],
  result: ImportResult,
  reject: ImportState['reject'],
): ImportState {
  return {
    tenantId,
    runId,
    sourceEmbedding: embedding,
    result,
    reject,
    newId: (type, id) => derivedId(tenantId, type, id),
    contentHash,
    ids: { event: new Map(), entity: new Map(), memory: new Map(), edge: new Map(), relation: new Map() },
    entityNames: new Map(),
    supersededLinks: [],
    restartEvents: [],
    workingMemory: [],
  };
}

/** After the last line: version links (both ends are in by now), the pipeline for unfinished events, working-memory files. */
async function finish(deps: Deps, tenantId: string, s: ImportState): Promise<void> {
  const links = s.supersededLinks
    .map((l) => ({ id: l.id, superseded_by: s.ids.memory.get(l.successor) }))
    .filter((l): l is { id: string; superseded_by: string } => l.superseded_by !== undefined);
  for (let i = 0; i < links.length; i += 1000) await withTenant(deps.db, tenantId, (tx) => linkSuperseded(tx, links.slice(i, i + 1000)));
  if (s.restartEvents.length > 0) deps.dispatcher.submit(tenantId, s.restartEvents);
  for (const wm of s.workingMemory) await writeWorkingMemoryFile(deps.config.MEMLOOM_HOME, tenantId, wm.user_id, wm.markdown);
  deps.log.info(
    { tenantId, imported: s.result.imported, existing: s.result.existing, rejected: s.result.rejected, embedded: s.result.embedded },
    'import finished',
  );
}

/** A UUID derived from the target tenant and the source's id: stable across re-imports, distinct across tenants. */
export function derivedId(tenantId: string, type: string, id: string): string {
  const h = createHash('sha256').update(`memloom-import\0${tenantId}\0${type}\0${id}`).digest('hex');
  // RFC 9562 version 8 (custom) and the RFC variant bits.
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h.slice(16, 17), 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function zero(): Record<DataRecordName, number> {
  return { event: 0, chunk: 0, entity: 0, memory: 0, edge: 0, relation: 0, memory_entity: 0, provenance: 0, working_memory: 0 };
}

/**
 * Splits a byte stream into lines (\n or \r\n), numbering them from 1. A line over `maxBytes` is
 * skipped up to its newline and yielded as `text: null`, so one huge line neither fills memory nor
 * stops the import.
 */
export async function* streamLines(
  stream: AsyncIterable<Uint8Array | string>,
  maxBytes = 16 * 1024 * 1024,
): AsyncGenerator<{ text: string | null; number: number }> {
  const decoder = new TextDecoder('utf-8', { fatal: false });
  let parts: Buffer[] = [];
  let size = 0;
  let tooLong = false;
  let number = 0;
  const emit = () => {
    number++;
    const text = tooLong ? null : decoder.decode(Buffer.concat(parts)).replace(/\r$/, '');
    parts = [];
    size = 0;
    tooLong = false;
    return { text, number };
  };
  for await (const chunk of stream) {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    for (let nl = buf.indexOf(10); nl !== -1; nl = buf.indexOf(10)) {
      if (!tooLong && size + nl > maxBytes) tooLong = true;
      if (!tooLong) parts.push(buf.subarray(0, nl));
      yield emit();
      buf = buf.subarray(nl + 1);
    }
    if (buf.length > 0 && !tooLong) {
      size += buf.length;
      if (size > maxBytes) {
        tooLong = true;
        parts = [];
      } else parts.push(Buffer.from(buf));
    }
  }
  if (size > 0 || tooLong) yield emit();
}
