import { withTenant } from '../../src/db/pool.js';
import { knownEntities } from '../../src/db/sql/entities.js';
import { eventsToExtract, hasPendingExtraction, markExtracted } from '../../src/db/sql/extract-events.js';
import { finishRun, startRun } from '../../src/db/sql/runs.js';
import { embedDocuments } from '../../src/embeddings.js';
import { extractWithCache } from '../../src/llm.js';
import { defineStage } from '../../src/queue/stage.js';
import { prepare, toMessages } from './prepare.js';
import { EXTRACT_BATCH, ExtractInput, extractKey } from './schema.js';
import { writeExtraction } from './write.js';

/**
 * Session extraction: all not-yet-extracted events of one key in one pass → memory units,
 * entities and triplets → reconciled against existing memory. Provider calls happen outside
 * transactions; the answer is cached before it is applied, so a replay after a crash pays nothing.
 */
export const extract = defineStage({
  name: 'extract',
  input: ExtractInput,
  key: extractKey,
  concurrency: 2,
  async handle({ tenantId, extractKey: key }, { deps, job, log }) {
    const { events, known } = await withTenant(deps.db, tenantId, async (tx) => ({
      events: await eventsToExtract(tx, key, EXTRACT_BATCH),
      known: await knownEntities(tx, 100),
    }));
    if (events.length === 0) return { events: 0 };
    const input = { messages: toMessages(events), knownEntities: known.map((k, i) => ({ id: i + 1, name: k.name, type: k.type })) };
    const result = await extractWithCache(deps, tenantId, input);
    const prepared = prepare(result, events);
    const texts = [...prepared.entities.map((e) => e.name), ...prepared.memories.map((m) => m.content)];
    const vectors = await embedDocuments(deps.db, tenantId, deps.providers.embeddings, texts);
    const embedder = deps.providers.embeddings;
    const counts = await withTenant(deps.db, tenantId, async (tx) => {
      const runId = await startRun(tx, { stage: 'extract', jobId: job.id, provider: deps.config.LLM_PROVIDER, model: deps.providers.llm.model });
      const c = await writeExtraction(
        tx, prepared,
        { entities: vectors.slice(0, prepared.entities.length), memories: vectors.slice(prepared.entities.length) },
        events[events.length - 1] as (typeof events)[number], embedder, runId,
      );
      await markExtracted(tx, events.map((e) => e.id));
      await finishRun(tx, runId, { events: events.length, ...c });
      return c;
    });
    log.debug({ events: events.length, ...counts }, 'extracted');
    return { events: events.length, ...counts };
  },
  // Events that arrived while this job ran (its debounce key was taken) get a follow-up pass.
  async next({ tenantId, extractKey: key }, _result, { deps }) {
    const { pending } = await withTenant(deps.db, tenantId, (tx) => hasPendingExtraction(tx, key));
    if (pending === 0) return [];
    const delay = pending >= EXTRACT_BATCH ? 0 : deps.config.EXTRACT_DEBOUNCE_MS;
    return [{ stage: 'extract', input: { tenantId, extractKey: key }, opts: { delay } }];
  },
});
