// First paint of the console's memories view for a user with 10,000 memories (issue 34), measured
// in Debian's headless Chromium: an API-only memloom (embedded, in memory), the memories written
// through the write-side SQL in batches (as the extract stage writes them), then the page opened
// cold N times. Prints, per run: first contentful paint (the page shell) and the time until the
// first page of memories is on screen, both from navigation start.
// Run: npx tsx scripts/bench-console.ts [--memories 10000] [--runs 5]
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startRoles } from '../apps/cli/commands/roles.js';
import { loadConfig } from '../src/config.js';
import { withTenant } from '../src/db/pool.js';
import { insertMemories, type MemoryInsert } from '../src/db/sql/memories-write.js';
import { startRun } from '../src/db/sql/runs.js';
import { contentHash, ftsDocument, normalizeText } from '../src/domain/text.js';
import { MEMORY_KINDS } from '../src/domain/vocabulary.js';
import { createLogger } from '../src/logger.js';
import { launchBrowser } from '../test/support/browser.js';

const { values } = parseArgs({ options: { memories: { type: 'string', default: '10000' }, runs: { type: 'string', default: '5' } } });
const total = Number(values.memories);
const runs = Number(values.runs);
const USER = 'ten-thousand';
const BATCH = 500;

const home = await mkdtemp(path.join(os.tmpdir(), 'memloom-bench-console-'));
const config = loadConfig({ MEMLOOM_HOME: home, EVENTS_DIR: path.join(home, 'events'), PORT: '0', LOG_LEVEL: 'warn', EMBEDDINGS_MODEL: 'hashing' });
const log = createLogger(config, process.stderr);
const running = await startRoles(config, log, { api: true, watcher: false, workers: [], scheduler: false }, { inMemory: true });
const url = `http://127.0.0.1:${(running.app!.server.address() as { port: number }).port}`;
const browser = await launchBrowser();
try {
  const deps = running.deps;
  const { model, dimensions } = deps.providers.embeddings;
  const t0 = performance.now();
  for (let start = 0; start < total; start += BATCH) {
    const texts = Array.from(
      { length: Math.min(BATCH, total - start) },
      (_, i) => `Note ${start + i}: the build for project p-${(start + i) % 97} runs on runner r-${start + i}.`,
    );
    const { vectors } = await deps.providers.embeddings.embed(texts, 'document');
    await withTenant(deps.db, 'default', async (tx) => {
      const runId = await startRun(tx, { stage: 'bench', jobId: undefined });
      const rows: MemoryInsert[] = texts.map((content, i) => ({
        kind: MEMORY_KINDS[(start + i) % MEMORY_KINDS.length] as string,
        content,
        content_hash: contentHash(normalizeText(content)),
        fts_doc: ftsDocument(content),
        vector: vectors[i] as number[],
        importance: 1 + ((start + i) % 10),
        confidence: 0.8,
        event_time: null,
        time_precision: null,
        occurred_at: new Date(Date.now() - (total - start - i) * 60_000).toISOString(),
        subject_entity_id: null,
        dataset: 'default',
        user_id: USER,
        agent_id: null,
        session_id: null,
        source_event_ids: [],
        version: 1,
      }));
      await insertMemories(tx, rows, model, dimensions, runId);
    });
  }
  process.stdout.write(`${total} memories of ${USER} written in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  const figures: Array<{ fcp: number; list: number }> = [];
  for (let run = 0; run < runs; run++) {
    const { page } = await browser.page();
    // The scope as the header form sets it, and a watcher that notes when the first memory is in the DOM.
    await page.addInitScript(`sessionStorage.setItem('memloom.scope', JSON.stringify({ user_id: ${JSON.stringify(USER)}, dataset: '' }));
      new MutationObserver((_, o) => { if (document.querySelector('.memory')) { window.firstMemoryAt = performance.now(); o.disconnect(); } })
        .observe(document, { childList: true, subtree: true });`);
    await page.goto(`${url}/#/memories`);
    await page.waitForSelector('.memory');
    // The next frame after the list went in is when it is painted.
    const f = (await page.evaluate(`new Promise((resolve) => requestAnimationFrame(() => resolve({
      fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
      list: window.firstMemoryAt,
    })))`)) as { fcp: number; list: number };
    const shown = await page.locator('.memory').count();
    figures.push(f);
    process.stdout.write(
      `run ${run + 1}: first contentful paint ${f.fcp.toFixed(0)} ms, first page of memories (${shown}) on screen ${f.list.toFixed(0)} ms\n`,
    );
    await page.close();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
  process.stdout.write(
    `median over ${runs}: first contentful paint ${median(figures.map((f) => f.fcp)).toFixed(0)} ms, memories on screen ${median(figures.map((f) => f.list)).toFixed(0)} ms\n`,
  );
} finally {
  await browser.close();
  await running.stop();
  await rm(home, { recursive: true, force: true });
}
