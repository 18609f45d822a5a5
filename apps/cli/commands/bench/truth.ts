import os from 'node:os';
import { z } from 'zod';
import type { Config } from '../../../../src/config.js';
import type { Logger } from '../../../../src/logger.js';
import { flagString, type ParsedArgs } from '../../args.js';
import { withTenant } from '../../../../src/db/pool.js';
import type { Deps } from '../../../../src/deps.js';
import type { Slot } from '../../../../src/domain/slots.js';
import { TUNE_SCENARIOS, type TruthEvent, type TruthScenario } from './truth-scenarios.js';
import { CHECK_SCENARIOS } from './truth-scenarios-check.js';
import { HOLDOUT_SCENARIOS } from './truth-scenarios-holdout.js';
import { AS_OF_MODE, type AsOfRun, type Answer, failures, formatTable, type QuestionRun, TRUTH_MODES } from './truth-score.js';
import { neverSaidOverlaps, validateScenarios } from './truth-validate.js';
import { startBenchMemloom } from './locomo-run.js';

const USAGE = 'usage: memloom bench truth [--set tune|check|holdout] [--scenarios id,id] [--misses N [--top K]] [--embedder hashing|use-lite]';
const LIMIT = 10;

// The boundary: only what the scoring reads. `match` may be absent on code before "current truth".
const RecallAnswer = z.object({
  match: z.enum(['strong', 'weak', 'none']).optional(),
  results: z.array(
    z
      .object({
        content: z.string(),
        kind: z.string().optional(),
        current: z.boolean().optional(),
        score: z.number().optional(),
      })
      .loose(),
  ),
});
const Stats = z.object({ pending_events: z.number(), objects: z.record(z.string(), z.number()) }).loose();

/**
 * `memloom bench truth`: does recall put the current value of a changed fact first, keep the
 * history for as_of, and answer match "none" for what was never said? Ingests the scenarios of
 * truth-scenarios.ts (tune) and truth-scenarios-check.ts (check) through the public write path,
 * in rounds (every scenario's first event, then, once the pipeline is idle, every second event, …)
 * so each scenario's events are processed in their array order, late arrivals included; then asks
 * every question in every mode and every as_of check, and prints figures per set and mode
 * (truth-score.ts). A benchmark prints figures; it asserts nothing.
 */
export async function benchTruth(base: Config, log: Logger, args: ParsedArgs): Promise<void> {
  const set = flagString(args, 'set');
  if (set !== undefined && set !== 'tune' && set !== 'check' && set !== 'holdout') throw new Error(USAGE);
  const ids = flagString(args, 'scenarios')
    ?.split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  // The holdout set was written last, apart from both others, and is scored as its own set.
  const all = [...TUNE_SCENARIOS, ...CHECK_SCENARIOS, ...HOLDOUT_SCENARIOS.map((s) => ({ ...s, set: 'holdout' as const }))];
  const problems = validateScenarios(all);
  if (problems.length > 0) throw new Error(`the truth scenarios are not sound:\n${problems.join('\n')}`);
  for (const s of all)
    for (const o of neverSaidOverlaps(s)) process.stderr.write(`warning: ${s.id}: never-said "${o.query}" uses words the user wrote: ${o.words.join(', ')}\n`);
  const unknown = ids?.filter((id) => !all.some((s) => s.id === id)) ?? [];
  if (unknown.length > 0) throw new Error(`unknown scenarios: ${unknown.join(', ')}`);
  const scenarios = all.filter((s) => (set === undefined || s.set === set) && (ids === undefined || ids.includes(s.id)));
  if (scenarios.length === 0) throw new Error(`no scenario in ${set ?? 'tune or check'}${ids ? ` among ${ids.join(',')}` : ''}`);

  // With --include-weak nothing is left out by the match floor: the difference is what the floor costs.
  const includeWeak = args.flags.get('include-weak') !== undefined;
  const top = Number(flagString(args, 'top') ?? 0);
  const { running, config, url, stop } = await startBenchMemloom(base, log, args);
  try {
    const t0 = performance.now();
    const rounds = Math.max(...scenarios.map((s) => s.events.length));
    let objects: Record<string, number> = {};
    for (let i = 0; i < rounds; i++) {
      const batch = scenarios.flatMap((s) => (i < s.events.length ? [toEvent(s, s.events[i] as TruthEvent, i)] : []));
      await post(url, '/v1/events', { events: batch }, 202);
      objects = await idle(url);
    }
    const events = scenarios.reduce((n, s) => n + s.events.length, 0);
    const ingestS = (performance.now() - t0) / 1000;
    process.stderr.write(
      `ingested ${events} events of ${scenarios.length} scenarios in ${rounds} rounds, ${ingestS.toFixed(1)} s: ${JSON.stringify(objects)}\n`,
    );

    const runs: QuestionRun[] = [];
    const asOf: AsOfRun[] = [];
    for (const s of scenarios) {
      for (const question of s.questions) {
        const body = { query: question.query, user_id: userId(s, question.user), limit: LIMIT, ...(includeWeak ? { include_weak: true } : {}) };
        for (const mode of TRUTH_MODES) runs.push({ scenario: s.id, set: s.set, mode, question, ...(await recall(url, { ...body, mode }, top)) });
        for (const check of question.as_of ?? [])
          asOf.push({ scenario: s.id, set: s.set, query: question.query, check, ...(await recall(url, { ...body, mode: AS_OF_MODE, as_of: check.at }, top)) });
      }
    }

    const cpus = os.cpus();
    process.stdout.write(
      `current truth, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${cpus.length} cores (${cpus[0]?.model.trim() ?? '?'}), load avg ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}\n` +
        `embedder ${running.deps.providers.embeddings.model}, LLM ${config.LLM_PROVIDER}${config.LLM_MODEL ? ` ${config.LLM_MODEL}` : ''}; ` +
        `${scenarios.length} scenarios, ${events} events ingested in ${ingestS.toFixed(1)} s; ${runs.length} recalls in 4 modes + ${asOf.length} as_of (top of ${LIMIT})\n\n`,
    );
    process.stdout.write(`${formatTable(runs, asOf)}\n`);
    if (args.flags.get('explain') !== undefined) await explain(running.deps, scenarios);
    const n = Number(flagString(args, 'misses') ?? 0);
    if (n > 0) {
      const all = failures(runs, asOf);
      process.stdout.write(`\nfailures (first ${Math.min(n, all.length)} of ${all.length}):\n${all.slice(0, n).join('\n')}\n`);
    }
  } finally {
    await stop();
  }
}

/** Scenario ids prefix users and sessions, so no scenario sees another's events. */
function userId(s: TruthScenario, user: string): string {
  return `${s.id}-${user}`;
}

function toEvent(s: TruthScenario, e: TruthEvent, index: number) {
  return {
    id: `${s.id}-${index}`,
    user_id: userId(s, e.user),
    session_id: `${s.id}-${e.session}`,
    type: e.type ?? 'message',
    ...(e.role ? { role: e.role } : {}),
    content: e.content,
    occurred_at: e.at,
    ...(e.speaker ? { metadata: { speaker: e.speaker } } : {}),
  };
}

async function recall(url: string, body: Record<string, unknown>, top: number): Promise<Answer> {
  const parsed = RecallAnswer.parse(await post(url, '/v1/recall', body, 200));
  const more = parsed.results
    .slice(0, top)
    .map((r) => `${r.score?.toFixed(3) ?? '?'} ${r.kind ?? 'chunk'}${r.current === false ? ' (not current)' : ''}: ${r.content}`);
  return { top: parsed.results[0]?.content, ...(parsed.match ? { match: parsed.match } : {}), ...(top > 0 ? { more } : {}) };
}

async function post(url: string, route: string, body: unknown, expect: number): Promise<unknown> {
  const res = await fetch(`${url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status !== expect) throw new Error(`${route} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

/** Waits until every stored event is recallable (extraction included); returns the object counts. */
async function idle(url: string): Promise<Record<string, number>> {
  for (;;) {
    const stats = Stats.parse(await (await fetch(`${url}/v1/stats`)).json());
    if (stats.pending_events === 0) return stats.objects;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** `--explain`: each scenario's events, then its memories in event-time order with kind, status, slot and successor. */
async function explain(deps: Deps, scenarios: TruthScenario[]): Promise<void> {
  for (const s of scenarios) {
    const users = [...new Set(s.events.map((e) => userId(s, e.user)))];
    const { events, memories } = await withTenant(deps.db, 'default', async (tx) => ({
      events: (
        await tx.query<{ status: string; skip_reason: string | null; content: string }>(
          'SELECT status, skip_reason, content FROM events WHERE user_id = ANY($1::text[]) ORDER BY occurred_at',
          [users],
        )
      ).rows,
      memories: (
        await tx.query<{ id: string; kind: string; status: string; content: string; valid_from: Date; slot: Slot | null; superseded_by: string | null }>(
          'SELECT id, kind, status, content, valid_from, slot, superseded_by FROM memories WHERE user_id = ANY($1::text[]) ORDER BY valid_from, created_at',
          [users],
        )
      ).rows,
    }));
    const out = [`\n## ${s.id}`, ...events.map((e) => `  event ${e.status}${e.skip_reason ? ` (${e.skip_reason})` : ''}: ${e.content.slice(0, 100)}`)];
    for (const r of memories) {
      const slot = r.slot
        ? ` [${r.slot.about.join(' ')} = ${r.slot.value.join(' ')} (${r.slot.kind})${r.slot.replaces.length ? ` replaces ${r.slot.replaces.join(' ')}` : ''}]`
        : '';
      const by = r.superseded_by ? ` → ${r.superseded_by.slice(0, 8)}` : '';
      out.push(`${r.id.slice(0, 8)} ${r.valid_from.toISOString().slice(0, 10)} ${r.kind.padEnd(10)} ${r.status.padEnd(10)} ${r.content}${slot}${by}`);
    }
    process.stdout.write(`${out.join('\n')}\n`);
  }
}
