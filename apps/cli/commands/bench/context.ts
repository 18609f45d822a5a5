import os from 'node:os';
import type { Config } from '../../../../src/config.js';
import type { ContextAnswer } from '../../../../src/context/schema.js';
import type { Logger } from '../../../../src/logger.js';
import type { RecallResult } from '../../../../src/recall/schema.js';
import { flagString, type ParsedArgs } from '../../args.js';
import { loadLocomo } from './locomo.js';
import { ingestLocomo, pct } from './locomo-run.js';

const BUDGETS = [500, 1000, 2000] as const;
const KS = [5, 10, 25] as const;

/**
 * `memloom bench context --locomo <file>`: ingests the conversations as `bench recall` does, then
 * asks every question (categories 1–4) through POST /v1/context at budgets of 500, 1,000 and 2,000
 * tokens and through POST /v1/recall (default mode, limit 25) in the same run. Prints the share of
 * gold evidence turns the block contains by id: the turn's event id written in the Markdown (a
 * chunk line's event, or a source event a fact's line names); apart, the share from chunk lines
 * alone and from every source event of the listed facts (items). Beside it recall's R@5/10/25,
 * the tokens used and the latency.
 */
export async function benchContext(base: Config, log: Logger, args: ParsedArgs): Promise<void> {
  const file = flagString(args, 'locomo');
  if (!file) throw new Error('usage: memloom bench context --locomo <file> [--samples conv-26,conv-30 | --conversations N] [--embedder MODEL]');
  const samples = flagString(args, 'samples')
    ?.split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  const data = await loadLocomo(file, Number(flagString(args, 'conversations') ?? Infinity), samples);
  const questions = data.questions.filter((q) => q.category !== 5);
  const { running, url, diaOf, stop } = await ingestLocomo(base, log, args, data);
  const post = async <T>(path: string, body: unknown, latencies?: number[]): Promise<T> => {
    const t = performance.now();
    const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    latencies?.push(performance.now() - t);
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as T;
  };
  const per = BUDGETS.map((budget) => ({
    budget,
    named: [] as number[],
    chunks: [] as number[],
    withFacts: [] as number[],
    tokens: [] as number[],
    ms: [] as number[],
    none: 0,
  }));
  const recallAt: number[][] = KS.map(() => []);
  const recallMs: number[] = [];
  try {
    for (const q of questions) {
      const gold = (events: Iterable<string>) => {
        const dias = new Set([...events].map((e) => diaOf.get(e)));
        return q.evidence.filter((d) => dias.has(d)).length / q.evidence.length;
      };
      const recalled = await post<{ results: RecallResult[] }>('/v1/recall', { query: q.question, user_id: q.sampleId, limit: 25 }, recallMs);
      KS.forEach((k, i) => void recallAt[i]?.push(gold(recalled.results.slice(0, k).flatMap((r) => r.source.event_ids))));
      for (const b of per) {
        const a = await post<ContextAnswer>('/v1/context', { query: q.question, user_id: q.sampleId, budget_tokens: b.budget }, b.ms);
        const events = a.items.flatMap((i) => (i.type === 'chunk' ? [i.event_id as string] : (i.event_ids ?? [])));
        // By id: the event's id written in the block, or (beyond the two a fact's line names) in its item.
        b.named.push(gold(events.filter((e) => a.context?.includes(e))));
        b.chunks.push(gold(a.items.filter((i) => i.type === 'chunk').map((i) => i.event_id as string)));
        b.withFacts.push(gold(events));
        b.tokens.push(a.tokens);
        if (a.match === 'none') b.none++;
      }
    }
    const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((s, x) => s + x, 0) / xs.length);
    const share = (xs: number[]) => (100 * mean(xs)).toFixed(1);
    const out = [
      `gold evidence turns in the context block, LoCoMo, ${[...new Set(questions.map((q) => q.sampleId))].length} conversations, categories 1-4 (${questions.length} questions)`,
      'budget  named in block  of it chunk lines  with all fact sources  tokens used (mean)  match none  latency p50 / p95 ms',
    ];
    for (const b of per) {
      const ms = [...b.ms].sort((x, y) => x - y);
      out.push(
        `${String(b.budget).padEnd(7)} ${`${share(b.named)}%`.padEnd(15)} ${`${share(b.chunks)}%`.padEnd(18)} ${`${share(b.withFacts)}%`.padEnd(22)} ${mean(b.tokens).toFixed(0).padEnd(19)} ${String(b.none).padEnd(11)} ${pct(ms, 0.5)} / ${pct(ms, 0.95)}`,
      );
    }
    const rms = [...recallMs].sort((x, y) => x - y);
    out.push(
      `recall (default mode, limit 25) in the same run: R@5 / 10 / 25 ${recallAt.map((xs) => share(xs)).join(' / ')}; latency p50 / p95 ${pct(rms, 0.5)} / ${pct(rms, 0.95)} ms`,
      `${new Date().toISOString().slice(0, 16)}Z, load avg ${os.loadavg()[0]?.toFixed(1)} (${os.cpus().length} cores), ${running.deps.providers.embeddings.model}`,
    );
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    await stop();
  }
}
