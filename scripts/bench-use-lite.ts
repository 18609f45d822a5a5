/**
 * Throughput of the offline USE-lite embedder (src/providers/embeddings/use-lite.ts).
 * Run: node --import tsx scripts/bench-use-lite.ts [shortCount=200] [mediumCount=40]
 * Prints model load time, process RSS after load (the thread shares the process), texts/s for
 * 10-word and 75-word texts, and the main event loop's worst delay while the thread worked.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { UseLiteEmbeddings } from '../src/providers/embeddings/use-lite.js';

const WORDS = (
  'memory agent note meeting project deadline release customer invoice server deploy error ' +
  'morning team budget design review question answer travel flight hotel doctor garden music ' +
  'kitchen recipe weather storm river mountain city train ticket phone battery screen window ' +
  'friend family birthday gift coffee book chapter story idea plan change fixed broken quickly ' +
  'slowly tomorrow yesterday because after before during without about important small large'
).split(' ');

/** Deterministic pseudo-random sentences, all different, so nothing is accidentally cached. */
function makeTexts(count: number, words: number, seed: number): string[] {
  let state = seed;
  const next = (): number => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state;
  };
  return Array.from({ length: count }, () => Array.from({ length: words }, () => WORDS[next() % WORDS.length]).join(' '));
}

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function rate(provider: UseLiteEmbeddings, label: string, texts: string[]): Promise<void> {
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const start = performance.now();
  await provider.embed(texts, 'document');
  const seconds = (performance.now() - start) / 1000;
  lag.disable();
  print(
    `${label}: ${texts.length} texts in ${seconds.toFixed(2)} s = ${(texts.length / seconds).toFixed(1)} texts/s ` +
      `(main loop max delay ${(lag.max / 1e6).toFixed(1)} ms)`,
  );
}

async function main(): Promise<void> {
  const shortCount = Number(process.argv[2] ?? 200);
  const mediumCount = Number(process.argv[3] ?? 40);
  const provider = new UseLiteEmbeddings();
  try {
    const rssBefore = process.memoryUsage().rss;
    const loadStart = performance.now();
    await provider.ready();
    print(`model load: ${((performance.now() - loadStart) / 1000).toFixed(2)} s`);
    await provider.embed(makeTexts(8, 10, 1), 'document'); // warm-up: first inference compiles kernels
    print(`rss after load: ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB (before load ${(rssBefore / 2 ** 20).toFixed(0)} MiB)`);
    await rate(provider, 'short (10 words)', makeTexts(shortCount, 10, 2));
    await rate(provider, 'medium (75 words)', makeTexts(mediumCount, 75, 3));
    print(`rss after runs: ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`);
  } finally {
    await provider.close();
  }
}

await main();
