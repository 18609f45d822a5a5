import { withTenant } from '../../src/db/pool.js';
import { chunkedByJob, eventsToChunk, insertChunks, lockTriaged, type EventToChunk, type NewChunk } from '../../src/db/sql/chunks.js';
import { foldTermDeltas } from '../../src/db/sql/bm25-fold.js';
import { finishRun, startRun } from '../../src/db/sql/runs.js';
import { chunkSections } from '../../src/domain/chunking.js';
import { loadTokenizer } from '../../src/domain/tokens.js';
import { contentHash, ftsDocument, metaDocument } from '../../src/domain/text.js';
import { yieldToEventLoop } from '../../src/event-loop.js';
import { defineStage } from '../../src/queue/stage.js';
import { embedJob } from '../embed/schema.js';
import { chunkPieces } from './pieces.js';
import { CHUNK_MAX_TOKENS, CHUNK_OVERLAP_TOKENS, ChunkInput, chunkKey } from './schema.js';

/**
 * Events whose chunks one transaction writes. The soak (20,000 events of one user) showed the
 * chunk insert with its keys, neighbour rewrites and statistics at 160-220 ms for a whole
 * triage batch, and still up to 209 ms for 32 events late in the soak (the cost per event grows
 * with the user's chunks); 16 keep a transaction near the ~100 ms bound (issue 19).
 */
export const EVENTS_PER_TRANSACTION = 16;
/**
 * Chunks one transaction writes: a 1 MiB event has ~1,200, and their insert with keys in one
 * statement held the embedded database 2.4 s (issue 35); pieces of 32 of its 256-token chunks
 * still took 74 ms on average and up to 310 ms, so 16.
 */
export const CHUNKS_PER_TRANSACTION = 16;
/** Events whose content the stage holds at once (a job may name 1,000 events of up to 1 MiB each). */
const EVENTS_PER_READ = 32;

/**
 * Token-aware chunks on paragraph and sentence boundaries, with offsets into the event. A read,
 * the chunking (CPU) outside any transaction, so PGlite's one session is not held while it runs,
 * then short write transactions that re-lock the events still `triaged` and write only theirs;
 * replay-safe through UNIQUE (event_id, idx) and that status check.
 */
export const chunk = defineStage({
  name: 'chunk',
  input: ChunkInput,
  key: chunkKey,
  // The tokenizer's tables load synchronously (~0.7 s of the thread): when the first triage job
  // arrives, before it opens a transaction, rather than inside the first chunk job while other
  // jobs' transactions wait on the embedded database's one session.
  warm: { on: ['triage'], run: () => loadTokenizer() },
  async handle({ tenantId, eventIds }, { deps, job }) {
    let chunks = 0;
    for (let r = 0; r < eventIds.length; r += EVENTS_PER_READ) {
      const events = await withTenant(deps.db, tenantId, (tx) => eventsToChunk(tx, eventIds.slice(r, r + EVENTS_PER_READ)));
      const rows = await chunkRows(events);
      // Written in pieces of at most EVENTS_PER_TRANSACTION events and CHUNKS_PER_TRANSACTION chunks:
      // on the embedded database a transaction holds the one session the API needs too. Events
      // chunked (or forgotten) since the read are left alone; a replay after a crash between pieces
      // writes only the events still `triaged` (and of those only the missing chunks), and the
      // events this job chunked are read back by its run rows (one per piece).
      for (const piece of chunkPieces(events, rows, EVENTS_PER_TRANSACTION, CHUNKS_PER_TRANSACTION)) {
        chunks += await deps.metrics.stageCpu.part('write', () =>
          withTenant(deps.db, tenantId, async (tx) => {
            const still = new Set(await lockTriaged(tx, piece.eventIds));
            if (still.size === 0) return 0;
            const written = piece.rows.filter((row) => still.has(row.event_id));
            const finished = piece.finished.filter((id) => still.has(id));
            const runId = await startRun(tx, { stage: 'chunk', jobId: job.id });
            const inserted = await insertChunks(tx, written, finished, runId);
            await finishRun(tx, runId, { events: finished.length, chunks: inserted });
            return inserted;
          }),
        );
      }
    }
    // The term deltas these writes logged are folded into the statistics once enough of the
    // tenant's wait (foldTermDeltas), in the transaction that reads what goes on to embedding.
    const toEmbed = await withTenant(deps.db, tenantId, async (tx) => {
      await deps.metrics.stageCpu.part('fold', () => foldTermDeltas(tx));
      return chunkedByJob(tx, eventIds, String(job.id));
    });
    return { chunks, toEmbed };
  },
  // Events this job chunked (its run rows say so, also on a retry after the commit) go on to
  // embedding. Events another job chunked are left to that job: overlapping chunk jobs (the
  // dispatcher's and the requeue task's triage jobs may share events) would otherwise start
  // overlapping embed jobs and paid calls.
  next({ tenantId }, result) {
    return result.toEmbed.length > 0 ? [embedJob(tenantId, result.toEmbed)] : [];
  },
});

/** The chunk rows of `events`, one section of text at a time with the thread given back between (chunkSections). */
async function chunkRows(events: EventToChunk[]): Promise<NewChunk[]> {
  const rows: NewChunk[] = [];
  for (const e of events) {
    for (const section of chunkSections(e.content, { maxTokens: CHUNK_MAX_TOKENS, overlapTokens: CHUNK_OVERLAP_TOKENS })) {
      for (const c of section) {
        rows.push({
          event_id: e.id,
          idx: c.index,
          content: c.text,
          start_offset: c.start,
          end_offset: c.end,
          tokens: c.tokens,
          content_hash: contentHash(c.text),
          fts_doc: ftsDocument(c.text),
          meta_doc: metaDocument(e.occurred_at, e.speaker, c.text),
          dataset: e.dataset,
          user_id: e.user_id,
          agent_id: e.agent_id,
          session_id: e.session_id,
        });
      }
      await yieldToEventLoop();
    }
  }
  return rows;
}
