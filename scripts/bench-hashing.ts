/**
 * Throughput of the local hashing embedder on short texts (English, Chinese, mixed).
 * Run: npx tsx scripts/bench-hashing.ts [count]
 */
import { HashingEmbedder } from '../src/providers/embeddings/hashing.js';

const SAMPLES = [
  'We decided to use PostgreSQL with pgvector for long-term memory storage.',
  'The deploy failed because the Redis connection timed out after 30 seconds.',
  '我们决定使用PostgreSQL作为数据库，并用pgvector做向量检索。',
  'Remind me to renew the TLS certificate for api.example.com before Friday.',
  'useState hook re-renders the component when the state changes',
  '明天下午三点和产品团队开会讨论新版本的发布计划。',
];

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 50_000);
  const texts = Array.from({ length: count }, (_, i) => `${SAMPLES[i % SAMPLES.length] ?? ''} #${i}`);
  const embedder = new HashingEmbedder();
  await embedder.embed(texts.slice(0, 200), 'document'); // warm up jieba and the JIT

  for (const role of ['document', 'query'] as const) {
    const t0 = performance.now();
    const batch = 1_000;
    for (let i = 0; i < texts.length; i += batch) await embedder.embed(texts.slice(i, i + batch), role);
    const seconds = (performance.now() - t0) / 1000;
    process.stdout.write(`${role}: ${count} texts in ${seconds.toFixed(2)} s = ${Math.round(count / seconds)} texts/s\n`);
  }
}

await main();
