import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import type { Config } from '../../../../src/config.js';
import type { Logger } from '../../../../src/logger.js';
import { recallChunks } from '../../../../src/recall/chunks.js';
import { recallContext } from '../../../../src/recall/context.js';
import { DEFAULT_RECALL_MODE, RecallInput, type RecallResult } from '../../../../src/recall/schema.js';
import { queryDates } from '../../../../src/domain/dates.js';
import { flagString, type ParsedArgs } from '../../args.js';
import { PlainBm25 } from './baseline.js';
import { loadLocomo, type LocomoQuestion } from './locomo.js';
import { ingestLocomo, pct } from './locomo-run.js';

const KS = [5, 10, 25] as const;
const CATEGORIES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop', 5: 'adversarial' };
type Strategy = 'memories' | 'auto' | 'chunks' | 'graph' | 'bm25-only' | 'vector-only' | 'plain-bm25';
const STRATEGIES: Strategy[] = ['auto', 'chunks', 'memories', 'graph', 'bm25-only', 'vector-only', 'plain-bm25'];
type Scores = Map<Strategy, Array<{ q: LocomoQuestion; recall: number[] }>>;

/**
 * `memloom bench recall --locomo <file>`: ingests each conversation through the public write path
 * (one event per turn), waits for the pipeline, asks every question through POST /v1/recall (the
 * two single-retriever baselines in-process), maps results to turns through provenance and prints
 * evidence recall@5/10/25 overall (categories 1–4) and per category (5, adversarial, apart), per
 * strategy, beside a plain BM25 over the same raw turns computed in the same run (baseline.ts).
 */
export async function benchRecall(base: Config, log: Logger, args: ParsedArgs): Promise<void> {
  const file = flagString(args, 'locomo');
  if (!file)
    throw new Error(
      'usage: memloom bench recall --locomo <file> [--samples conv-26,conv-30 | --conversations N] [--strategies auto,chunks,…] [--embedder hashing|use-lite] [--speakers metadata|prefix] [--misses N]',
    );
  const samples = flagString(args, 'samples')
    ?.split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  const only = flagString(args, 'strategies')
    ?.split(',')
    .map((x) => x.trim());
  const strategies = only ? STRATEGIES.filter((s) => only.includes(s)) : STRATEGIES;
  // With --include-weak the match floor leaves nothing out: the difference is what the floor costs.
  const includeWeak = args.flags.get('include-weak') !== undefined;
  const matches = new Map<string, number>();
  const data = await loadLocomo(file, Number(flagString(args, 'conversations') ?? Infinity), samples);
  const { running, url, diaOf, stop } = await ingestLocomo(base, log, args, data);
  try {
    const plain = new Map(
      [...new Set(data.events.map((e) => e.sample_id))].map((s) => [
        s,
        new PlainBm25(data.events.filter((e) => e.sample_id === s).map((e) => ({ id: e.metadata.dia_id, text: `${e.metadata.speaker}: ${e.content}` }))),
      ]),
    );
    const scores: Scores = new Map(strategies.map((s) => [s, []]));
    const latencies = new Map<Strategy, number[]>(strategies.map((s) => [s, []]));
    const misses: string[] = [];
    // --dump FILE: every question's ranked turns per strategy, to compare two strategies' misses offline.
    const dumpFile = flagString(args, 'dump');
    const dump = dumpFile ? ([] as object[]) : undefined;
    for (const q of data.questions) {
      for (const strategy of strategies) {
        const dias =
          strategy === 'plain-bm25'
            ? (plain.get(q.sampleId)?.search(q.question, 25) ?? []).map((d) => [d])
            : (await ask(running.deps, url, strategy, q, latencies.get(strategy) as number[], includeWeak, matches)).map((r) =>
                r.source.event_ids.map((e) => diaOf.get(e)).filter((d): d is string => !!d),
              );
        const retrieved = (k: number) => new Set(dias.slice(0, k).flat());
        const recall = KS.map((k) => q.evidence.filter((e) => retrieved(k).has(e)).length / q.evidence.length);
        scores.get(strategy)?.push({ q, recall });
        dump?.push({ sample: q.sampleId, category: q.category, question: q.question, evidence: q.evidence, strategy, top: dias });
        if (strategy === DEFAULT_RECALL_MODE && q.category !== 5 && (recall[1] as number) < 1)
          misses.push(
            `[${q.category}] ${q.question} gold ${q.evidence.join(',')} got ${dias
              .slice(0, 10)
              .map((d) => d.join('+'))
              .join(' ')}`,
          );
      }
    }
    printTable(scores);
    if (dumpFile && dump) await writeFile(dumpFile, dump.map((d) => JSON.stringify(d)).join('\n'));
    // Every LoCoMo question has its evidence stored: a "none" here is a question the floor wrongly calls unanswered.
    process.stdout.write(`\nmatch per strategy (all ${data.questions.length} questions): ${[...matches].map(([k, n]) => `${k} ${n}`).join(', ')}\n`);
    const n = Number(flagString(args, 'misses') ?? 0);
    if (n > 0) process.stdout.write(`\nmisses of ${DEFAULT_RECALL_MODE} at 10 (first ${n} of ${misses.length}):\n${misses.slice(0, n).join('\n')}\n`);
    process.stdout.write(
      `\nrecall latency over HTTP, ${new Date().toISOString().slice(0, 10)}, load avg ${os.loadavg()[0]?.toFixed(1)} (${os.cpus().length} cores), ${running.deps.providers.embeddings.model}:\n`,
    );
    for (const [strategy, xs] of latencies) {
      if (xs.length === 0) continue;
      xs.sort((a, b) => a - b);
      process.stdout.write(
        `  ${strategy.padEnd(12)} p50 ${pct(xs, 0.5)} ms, p95 ${pct(xs, 0.95)} ms (${xs.length} requests)${strategy === DEFAULT_RECALL_MODE ? ' (default mode)' : ''}\n`,
      );
    }
  } finally {
    await stop();
  }
}

async function ask(
  deps: Parameters<typeof recallContext>[0],
  url: string,
  strategy: Strategy,
  q: LocomoQuestion,
  latencies: number[],
  includeWeak: boolean,
  matches?: Map<string, number>,
): Promise<RecallResult[]> {
  const body = { query: q.question, user_id: q.sampleId, limit: 25, ...(includeWeak ? { include_weak: true } : {}) };
  if (strategy === 'bm25-only' || strategy === 'vector-only') {
    // A single retriever as it ranks, with no floor: the baseline measures that retriever alone.
    const ctx = await recallContext(deps, 'default', RecallInput.parse({ ...body, mode: 'chunks', include_weak: true }));
    return (await recallChunks(ctx, 25, strategy === 'bm25-only' ? 'keyword' : 'vector')).results;
  }
  const t = performance.now();
  const res = await fetch(`${url}/v1/recall`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, mode: strategy }),
  });
  latencies.push(performance.now() - t);
  if (res.status !== 200) throw new Error(`recall (${strategy}) answered ${res.status}: ${await res.text()}`);
  const answer = (await res.json()) as { results: RecallResult[]; match?: string };
  matches?.set(`${strategy} ${answer.match}`, (matches.get(`${strategy} ${answer.match}`) ?? 0) + 1);
  return answer.results;
}

function printTable(scores: Scores): void {
  const rows0 = [...scores.values()][0] ?? [];
  const cats = [...new Set(rows0.map((s) => s.q.category))].sort();
  const main = rows0.filter((r) => r.q.category !== 5).length;
  const mean = (xs: number[]) => (xs.length === 0 ? 0 : (100 * xs.reduce((a, b) => a + b, 0)) / xs.length);
  const head = (c: number) => `${c} ${CATEGORIES[c] ?? ''} (${rows0.filter((r) => r.q.category === c).length})`.padEnd(20);
  const dated = (r: { q: LocomoQuestion }) => r.q.category !== 5 && namesFullDate(r.q.question);
  const out = [
    `evidence recall @5 / @10 / @25; overall = categories 1-4 (${main} questions), 5 apart; full date = questions of 1-4 that name a day of a year`,
    ['strategy'.padEnd(12), 'overall'.padEnd(20), ...cats.map(head), `full date (${rows0.filter(dated).length})`].join(' '),
  ];
  for (const [strategy, rows] of scores) {
    const cell = (subset: typeof rows) =>
      KS.map((_, i) => mean(subset.map((r) => r.recall[i] as number)).toFixed(1))
        .join(' / ')
        .padEnd(20);
    out.push(
      [
        strategy.padEnd(12),
        cell(rows.filter((r) => r.q.category !== 5)),
        ...cats.map((c) => cell(rows.filter((r) => r.q.category === c))),
        cell(rows.filter(dated)),
      ].join(' '),
    );
  }
  // Per conversation: a mechanism tuned on some conversations is checked on the others.
  const samples = [...new Set(rows0.map((r) => r.q.sampleId))];
  if (samples.length > 1) {
    out.push(
      '',
      `by conversation, overall (categories 1-4): ${samples.map((id) => `${id} (${rows0.filter((r) => r.q.sampleId === id && r.q.category !== 5).length})`).join(', ')}`,
    );
    for (const [strategy, rows] of scores) {
      const per = samples.map((id) => {
        const subset = rows.filter((r) => r.q.sampleId === id && r.q.category !== 5);
        return KS.map((_, i) => mean(subset.map((r) => r.recall[i] as number)).toFixed(1)).join(' / ');
      });
      out.push(`${strategy.padEnd(12)} ${per.map((x) => x.padEnd(20)).join(' ')}`);
    }
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

/** The question names a day of a year ("on October 3, 2023", "3 October 2023"). */
function namesFullDate(question: string): boolean {
  return queryDates(question, new Date(0)).some((d) => d.grain === 'day' && d.yearKnown !== false);
}
