import { describe, expect, it } from 'vitest';
import { runInGateScope } from '../gate-scope.js';
import { MemloomError } from '../../errors.js';
import { HASHING_MODEL, HashingEmbedder } from './hashing.js';

const dot = (a: number[], b: number[]): number => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);
const norm = (a: number[]): number => Math.sqrt(dot(a, a));
/** Vectors are unit length, so cosine is the dot product. */
const cosine = dot;

async function embedOne(e: HashingEmbedder, text: string, role: 'document' | 'query' = 'document'): Promise<number[]> {
  const { vectors } = await e.embed([text], role);
  return vectors[0] as number[];
}

/** Documents ranked by cosine to the query, best first. */
async function rank(e: HashingEmbedder, query: string, docs: string[]): Promise<string[]> {
  const { vectors } = await e.embed(docs, 'document');
  const q = await embedOne(e, query, 'query');
  return docs
    .map((d, i) => ({ d, score: cosine(q, vectors[i] as number[]) }))
    .sort((a, b) => b.score - a.score)
    .map((x) => x.d);
}

const ENGLISH_DISTRACTORS = [
  'The deploy failed because the Redis connection timed out after 30 seconds.',
  'Remind me to renew the TLS certificate before Friday.',
  'We decided to use PostgreSQL as the main database for the memory service.',
  'The weekly planning meeting moved to Tuesday afternoon.',
  'Use pnpm instead of npm for the monorepo builds.',
];

describe('HashingEmbedder', () => {
  it('describes itself as a free local model of the configured size', () => {
    const e = new HashingEmbedder({ dimensions: 128 });
    expect(e.model).toBe(HASHING_MODEL);
    expect(e.paid).toBe(false);
    expect(e.dimensions).toBe(128);
    expect(new HashingEmbedder().dimensions).toBe(384);
  });

  it('returns one unit vector of the configured dimension per text', async () => {
    for (const dimensions of [64, 384, 1000]) {
      const e = new HashingEmbedder({ dimensions });
      const texts = ['hello world', '我们决定使用PostgreSQL作为数据库', 'the of and', '?!', '', '😀'];
      for (const role of ['document', 'query'] as const) {
        const { vectors } = await e.embed(texts, role);
        expect(vectors).toHaveLength(texts.length);
        for (const v of vectors) {
          expect(v).toHaveLength(dimensions);
          expect(v.every(Number.isFinite)).toBe(true);
          expect(norm(v)).toBeCloseTo(1, 10);
        }
      }
    }
  });

  it('is deterministic across instances and batches', async () => {
    const texts = ['Use pgvector with HNSW indexes', '明天下午三点开会', 'mixed 中文 and English'];
    const a = await new HashingEmbedder().embed(texts, 'document');
    const b = new HashingEmbedder();
    const one = await Promise.all(texts.map((t) => embedOne(b, t)));
    expect(one).toEqual(a.vectors);
  });

  it('gives the same text cosine 1 and different texts less', async () => {
    const e = new HashingEmbedder();
    const a = await embedOne(e, 'We decided to use PostgreSQL for storage.');
    const b = await embedOne(e, 'We decided to use PostgreSQL for storage.');
    const c = await embedOne(e, 'We decided to use SQLite for storage.');
    expect(cosine(a, b)).toBeCloseTo(1, 10);
    expect(cosine(a, c)).toBeLessThan(0.99);
  });

  it('scores a paraphrase sharing content words above an unrelated text', async () => {
    const e = new HashingEmbedder();
    const pairs: Array<[string, string, string]> = [
      [
        'The team decided to use PostgreSQL for storage.',
        'Decision: PostgreSQL is our storage database.',
        'The cat slept on the warm windowsill all afternoon.',
      ],
      ['Deploys are failing because of Redis timeouts.', 'The deploy failed after a Redis connection timeout.', 'Buy milk and eggs on the way home.'],
      ['我们决定使用PostgreSQL作为数据库', '数据库最终选择了PostgreSQL', '明天下午三点开会讨论发布计划'],
    ];
    for (const [anchor, paraphrase, unrelated] of pairs) {
      const [a, p, u] = await Promise.all([anchor, paraphrase, unrelated].map((t) => embedOne(e, t)));
      expect(cosine(a as number[], p as number[]), anchor).toBeGreaterThan(cosine(a as number[], u as number[]));
    }
  });

  it('matches inflected forms through stems and character n-grams', async () => {
    const e = new HashingEmbedder();
    const q = await embedOne(e, 'deciding on indexes', 'query');
    const hit = await embedOne(e, 'We decided which index to build.');
    const miss = await embedOne(e, 'We bought groceries for the weekend.');
    expect(cosine(q, hit)).toBeGreaterThan(cosine(q, miss) + 0.1);
  });

  it('finds a Chinese document among English distractors for a Chinese query', async () => {
    const e = new HashingEmbedder();
    const zh = '我们决定使用PostgreSQL作为记忆服务的数据库。';
    const docs = [...ENGLISH_DISTRACTORS, zh, '今天天气很好，我们去公园散步了。'];
    for (const query of ['用什么数据库？', '数据库的决定', '记忆服务']) {
      expect((await rank(e, query, docs))[0], query).toBe(zh);
    }
  });

  it('lets a rare shared word outrank common shared words once IDF is known', async () => {
    const rare = 'Kubernetes upgrade plan for the cluster';
    const common = 'Weekly meeting notes from the project meeting';
    const query = 'weekly meeting about kubernetes';
    const corpus = [...Array.from({ length: 60 }, (_, i) => `Weekly meeting ${i}: project status and meeting actions`), common, rare];

    // Without document frequencies every feature weighs the same: two shared words win.
    const fresh = new HashingEmbedder({ observeDocuments: false });
    expect((await rank(fresh, query, [common, rare]))[0]).toBe(common);

    const e = new HashingEmbedder();
    await e.embed(corpus, 'document');
    expect(e.documentCount).toBe(corpus.length);
    const q = await embedOne(e, query, 'query');
    const [c, r] = (await new HashingEmbedder().embed([common, rare], 'document')).vectors as [number[], number[]];
    expect(cosine(q, r)).toBeGreaterThan(cosine(q, c));
  });

  it("keeps document frequencies per tenant: one tenant's documents never move another's query vectors", async () => {
    const e = new HashingEmbedder();
    const query = 'weekly meeting about kubernetes';
    const inScope = <T>(tenantId: string, fn: () => Promise<T>) => runInGateScope({ tenantId }, fn);
    await inScope('alpha', () => e.embed(['Kubernetes upgrade plan', 'Weekly meeting notes'], 'document'));
    const before = await inScope('alpha', async () => (await e.embed([query], 'query')).vectors[0]);
    await inScope('beta', () =>
      e.embed(
        Array.from({ length: 50 }, (_, i) => `Weekly meeting ${i} about kubernetes`),
        'document',
      ),
    );
    const after = await inScope('alpha', async () => (await e.embed([query], 'query')).vectors[0]);
    expect(after).toEqual(before);
    expect(await inScope('beta', async () => e.documentCount)).toBe(50);
    expect(await inScope('alpha', async () => e.documentCount)).toBe(2);
  });

  it('embeds documents without IDF, so stored vectors never depend on what was observed', async () => {
    const observed = new HashingEmbedder();
    observed.observe(ENGLISH_DISTRACTORS);
    const text = 'We decided to use PostgreSQL.';
    expect(observed.embedOne(text, 'document')).toEqual(new HashingEmbedder().embedOne(text, 'document'));
    expect(observed.embedOne(text, 'query')).not.toEqual(new HashingEmbedder().embedOne(text, 'query'));
  });

  it('restores exported document frequencies exactly', async () => {
    const a = new HashingEmbedder({ dfBits: 12 });
    await a.embed([...ENGLISH_DISTRACTORS, '我们决定使用PostgreSQL作为数据库'], 'document');
    const stats = JSON.parse(JSON.stringify(a.exportStats())) as ReturnType<HashingEmbedder['exportStats']>;

    const b = new HashingEmbedder({ dfBits: 12 });
    b.importStats(stats);
    expect(b.documentCount).toBe(a.documentCount);
    for (const q of ['PostgreSQL database', '数据库', 'Redis timeout']) expect(b.embedOne(q, 'query')).toEqual(a.embedOne(q, 'query'));
    expect(b.exportStats()).toEqual(stats);
  });

  it('rejects stats from a different table size or corrupted counts', () => {
    const stats = new HashingEmbedder({ dfBits: 10 }).exportStats();
    expect(() => new HashingEmbedder({ dfBits: 12 }).importStats(stats)).toThrow(MemloomError);
    expect(() => new HashingEmbedder({ dfBits: 10 }).importStats({ ...stats, counts: 'bm90IGRlZmxhdGU=' })).toThrow(MemloomError);
    expect(() => new HashingEmbedder({ dfBits: 10 }).importStats({ ...stats, documents: -1 })).toThrow(MemloomError);
  });

  it('rejects impossible options', () => {
    expect(() => new HashingEmbedder({ dimensions: 0 })).toThrow(RangeError);
    expect(() => new HashingEmbedder({ dfBits: 40 })).toThrow(RangeError);
  });
});
