import { withTenant } from '../../src/db/pool.js';
import { chunkedByJob, eventsToChunk, insertChunks, lockTriaged, type NewChunk } from '../../src/db/sql/chunks.js';
import { finishRun, startRun } from '../../src/db/sql/runs.js';
import { chunkText } from '../../src/domain/chunking.js';
import { loadTokenizer } from '../../src/domain/tokens.js';
import { contentHash, ftsDocument, metaDocument } from '../../src/domain/text.js';
import { defineStage } from '../../src/queue/stage.js';
import { embedJob } from '../embed/schema.js';
import { CHUNK_MAX_TOKENS, CHUNK_OVERLAP_TOKENS, ChunkInput, chunkKey } from './schema.js';

/**
 * Events whose chunks one transaction writes. The soak (20,000 events of one user) showed the
 * chunk insert with its keys, neighbour rewrites and statistics at 160-220 ms for a whole
 * triage batch, and still up to 209 ms for 32 events late in the soak (the cost per event grows
 * with the user's chunks); 16 keep a transaction near the ~100 ms bound (issue 19).
 */
export const EVENTS_PER_TRANSACTION = 16;

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
    const events = await withTenant(deps.db, tenantId, (tx) => eventsToChunk(tx, eventIds));
    const rows: NewChunk[] = [];
    for (const e of events) {
      for (const c of chunkText(e.content, { maxTokens: CHUNK_MAX_TOKENS, overlapTokens: CHUNK_OVERLAP_TOKENS })) {
        rows.push({
          event_id: e.id,
          idx: c.index,
          content: c.text,
          start_offset: c.start,
          end_offset: c.end,
          tokens: c.tokens,
          content_hash: contentHash(c.text),
          fts_doc: ftsDocument(c.text),
          meta_doc: metaDocument(e.occurred_at, e.speaker),
          dataset: e.dataset,
          user_id: e.user_id,
          agent_id: e.agent_id,
          session_id: e.session_id,
          occurred_at: e.occurred_at,
        });
      }
    }
    // Written EVENTS_PER_TRANSACTION events at a time: on the embedded database a transaction holds
    // the one session the API needs too. Events chunked (or forgotten) since the read are left
    // alone; a replay after a crash between slices writes only the events still `triaged`, and
    // the events this job chunked are read back by its run rows (one per slice).
    let chunks = 0;
    for (let i = 0; i < events.length; i += EVENTS_PER_TRANSACTION) {
      const slice = events.slice(i, i + EVENTS_PER_TRANSACTION).map((e) => e.id);
      chunks += await withTenant(deps.db, tenantId, async (tx) => {
        const still = await lockTriaged(tx, slice);
        if (still.length === 0) return 0;
        const mine = new Set(still);
        const written = rows.filter((r) => mine.has(r.event_id));
        const runId = await startRun(tx, { stage: 'chunk', jobId: job.id });
        await insertChunks(tx, written, still, runId);
        await finishRun(tx, runId, { events: still.length, chunks: written.length });
        return written.length;
      });
    }
    return { chunks, toEmbed: await withTenant(deps.db, tenantId, (tx) => chunkedByJob(tx, eventIds, String(job.id))) };
  },
  // Events this job chunked (its run rows say so, also on a retry after the commit) go on to
  // embedding. Events another job chunked are left to that job: overlapping chunk jobs (the
  // dispatcher's and the requeue task's triage jobs may share events) would otherwise start
  // overlapping embed jobs and paid calls.
  next({ tenantId }, result) {
    return result.toEmbed.length > 0 ? [embedJob(tenantId, result.toEmbed)] : [];
  },
});
