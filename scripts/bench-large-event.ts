/**
 * One 1 MiB event through an embedded memloom (in this process: API, every worker, PGlite in its
 * thread) while a client recalls every 100 ms: recall latency before and during the event, the
 * time until `pending_events` is 0, and how long background work held the embedded database's one
 * session (its longest turns and what ran in them). Prints figures; nothing is asserted.
 * Run: npm run bench:large-event [-- --preferences 600 --runs 1]
 */
import { parseArgs } from 'node:util';
import { megabyte } from '../test/support/megabyte.js';
import { postJson, startTestMemloom, waitFor } from '../test/support/memloom.js';
import { apiStats, sql } from '../test/support/pipeline.js';

const { values } = parseArgs({ options: { preferences: { type: 'string', default: '600' }, runs: { type: 'string', default: '1' } } });

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : (s[Math.min(s.length - 1, Math.floor(p * s.length))] as number);
};
const fmt = (xs: number[]) => `n=${xs.length} p50 ${pct(xs, 0.5).toFixed(0)} p95 ${pct(xs, 0.95).toFixed(0)} max ${Math.max(0, ...xs).toFixed(0)} ms`;

async function recallLoop(url: string, until: () => boolean): Promise<number[]> {
  const took: number[] = [];
  while (!until()) {
    const started = performance.now();
    const r = await postJson(`${url}/v1/recall`, { user_id: 'u-big', query: 'which database did we pick?', limit: 5 });
    if (r.status !== 200) throw new Error(`recall answered ${r.status}`);
    took.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return took;
}

const content = megabyte(Number(values.preferences));
for (let run = 1; run <= Number(values.runs); run++) {
  const m = await startTestMemloom({
    env: { EXTRACT_DEBOUNCE_MS: '100', LOG_LEVEL: 'warn' },
    roles: { api: true, workers: ['triage', 'chunk', 'embed', 'extract', 'briefing'] },
  });
  try {
    // A few memories to recall, then recalls while idle.
    await postJson(`${m.url}/v1/events`, { user_id: 'u-big', session_id: 's-warm', content: 'We decided to use PostgreSQL for memory.' });
    await waitFor(async () => (await apiStats(m.url)).pending_events === 0, { timeoutMs: 60_000 });
    let idleDone = false;
    setTimeout(() => (idleDone = true), 5_000);
    const idle = await recallLoop(m.url, () => idleDone);

    await m.deps.embedded?.sessionStats({ reset: true });
    const [{ at }] = (await sql<{ at: string }>(m.deps.db, 'SELECT clock_timestamp()::text AS at')) as [{ at: string }];
    const started = performance.now();
    const post = await postJson(`${m.url}/v1/events`, { user_id: 'u-big', session_id: 's-big', content });
    if (post.status !== 202) throw new Error(`POST answered ${post.status}`);
    const posted = performance.now() - started;
    let drained = false;
    const during = recallLoop(m.url, () => drained);
    await waitFor(async () => (await apiStats(m.url)).pending_events === 0, { timeoutMs: 1_800_000, intervalMs: 250 });
    const drainMs = performance.now() - started;
    drained = true;
    const recalls = await during;
    const hold = await m.deps.embedded?.sessionStats();
    const stats = await apiStats(m.url);

    console.log(`run ${run}: ${Buffer.byteLength(content)} bytes, ${values.preferences} preferences`);
    console.log(
      `  POST answered 202 in ${posted.toFixed(0)} ms; pending_events 0 after ${(drainMs / 1000).toFixed(1)} s; events_failed ${stats.objects.events_failed}`,
    );
    console.log(
      `  objects: chunks ${stats.objects.chunks}, memories ${stats.objects.memories}, entities ${stats.objects.entities}, edges ${stats.objects.edges}`,
    );
    console.log(`  recall idle:   ${fmt(idle)}`);
    console.log(`  recall during: ${fmt(recalls)}`);
    // Each stage's span for the big event: its first run started to its last finished (a run per write transaction).
    const spans = await sql<{ stage: string; runs: number; s: number }>(
      m.deps.db,
      `SELECT stage, count(*)::int AS runs, round(extract(epoch FROM max(finished_at) - min(started_at))::numeric, 1)::float AS s
       FROM pipeline_runs WHERE started_at >= $1::timestamptz GROUP BY stage ORDER BY min(started_at)`,
      [at],
    );
    console.log(`  stages: ${spans.map((x) => `${x.stage} ${x.s} s (${x.runs} runs)`).join(', ')}`);
    if (hold) {
      console.log(
        `  session: background turns ${hold.turns.background}, longest ${hold.maxMs.background.toFixed(0)} ms, over 100 ms ${hold.over100Ms.background}; api longest wait ${hold.maxWaitMs.api.toFixed(0)} ms`,
      );
      for (const s of hold.slowest)
        console.log(`    ${s.ms.toFixed(0)} ms (${s.priority}, busy ${s.busyMs.toFixed(0)}, statement ${s.statementMs.toFixed(0)}): ${s.sql.slice(0, 90)}`);
    }
    // Forgetting it again: one request, while recalls go on.
    await m.deps.embedded?.sessionStats({ reset: true });
    let forgotten = false;
    const duringForget = recallLoop(m.url, () => forgotten);
    const forgetStarted = performance.now();
    const forget = await postJson(`${m.url}/v1/forget`, { event_id: post.body.ids[0] });
    const forgetMs = performance.now() - forgetStarted;
    forgotten = true;
    const forgetRecalls = await duringForget;
    const forgetHold = await m.deps.embedded?.sessionStats();
    console.log(
      `  forget: ${forget.status} in ${forgetMs.toFixed(0)} ms; recall ${fmt(forgetRecalls)}; longest background turn ${forgetHold?.maxMs.background.toFixed(0) ?? '?'} ms`,
    );
  } finally {
    await m.close();
  }
}
