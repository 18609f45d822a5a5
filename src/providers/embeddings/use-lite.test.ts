import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemloomError } from '../../errors.js';
import { UseLiteEmbeddings } from './use-lite.js';

const dot = (a: number[], b: number[]): number => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);
const norm = (a: number[]): number => Math.sqrt(dot(a, a));
const maxDiff = (a: number[], b: number[]): number => Math.max(...a.map((x, i) => Math.abs(x - (b[i] ?? 0))));

/** Worker threads alive in this process, read from Node's diagnostic report (independent of the provider). */
const liveThreads = (): number => (process.report.getReport() as { workers: unknown[] }).workers.length;

async function rejection(p: Promise<unknown>): Promise<MemloomError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof MemloomError)) throw new Error(`expected a MemloomError, got ${String(err)}`);
  return err;
}

describe('UseLiteEmbeddings with the real model', () => {
  // batchSize 4: a 6-text call crosses two thread messages, so batching is really exercised.
  const provider = new UseLiteEmbeddings({ batchSize: 4 });
  let threadsBefore = 0;

  beforeAll(async () => {
    threadsBefore = liveThreads();
    await provider.ready(); // loads the model in the thread once for the whole file
  });
  afterAll(() => provider.close());

  it('describes itself as the free 512-d local-use-lite model', () => {
    expect(provider.model).toBe('local-use-lite');
    expect(provider.dimensions).toBe(512);
    expect(provider.paid).toBe(false);
  });

  it('runs the model in one worker thread', () => {
    expect(provider.threadId).toBeGreaterThan(0);
    expect(liveThreads()).toBe(threadsBefore + 1);
  });

  it('returns one 512-d unit vector per text, the empty string included', async () => {
    const texts = ['Remember to water the plants.', '', 'Nothing but a short note', ''];
    const { vectors } = await provider.embed(texts, 'document');
    expect(vectors).toHaveLength(texts.length);
    for (const v of vectors) {
      expect(v).toHaveLength(512);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
  });

  it('is deterministic', async () => {
    const text = 'The meeting moved to Thursday afternoon.';
    const [a] = (await provider.embed([text], 'document')).vectors;
    const [b] = (await provider.embed([text], 'query')).vectors;
    expect(a).toEqual(b);
  });

  it('puts a paraphrase with no shared words closer than an unrelated sentence', async () => {
    const [car, paraphrase, unrelated] = (
      await provider.embed(['The automobile would not start this morning', 'My car broke down today', 'Bananas are rich in potassium'], 'document')
    ).vectors as [number[], number[], number[]];
    expect(dot(car, paraphrase)).toBeGreaterThan(dot(car, unrelated) + 0.1);
  });

  it('gives the same vectors in a batch as one by one', async () => {
    const texts = [
      'alpha release notes',
      'The cat sat on the mat.',
      'Deploy failed: missing env var',
      'Ship it on Friday',
      'a',
      'Quarterly revenue grew by 12 percent',
    ];
    const batched = (await provider.embed(texts, 'document')).vectors;
    const single = await Promise.all(texts.map(async (t) => (await provider.embed([t], 'document')).vectors[0] ?? []));
    single.forEach((v, i) => expect(maxDiff(v, batched[i] ?? [])).toBeLessThan(1e-5));
  });

  it('answers an empty list without a round trip', async () => {
    expect(await provider.embed([], 'document')).toEqual({ vectors: [] });
  });

  it('close() ends the thread, a second close is harmless, and later calls reject', async () => {
    await provider.close();
    expect(liveThreads()).toBe(threadsBefore);
    expect(provider.threadId).toBeUndefined();
    await provider.close();
    const err = await rejection(provider.embed(['too late'], 'document'));
    expect(err.code).toBe('EMBEDDER_CLOSED');
  });
});

// A protocol-faithful stand-in thread that exits on the text "crash": crashes cannot be provoked in
// the real model on demand, and this keeps the test free of a model load.
const fakeThread = new URL(
  `data:text/javascript,${encodeURIComponent(`
import { parentPort } from 'node:worker_threads';
parentPort.postMessage({ type: 'ready' });
parentPort.on('message', (m) => {
  if (m.texts.includes('crash')) process.exit(3);
  const out = new Float32Array(m.texts.length * 512);
  m.texts.forEach((_, i) => { out[i * 512] = 1; });
  parentPort.postMessage({ type: 'vectors', id: m.id, count: m.texts.length, buffer: out.buffer }, [out.buffer]);
});`)}`,
);

describe('UseLiteEmbeddings when its thread crashes', () => {
  it('rejects every pending request with EMBEDDER_CRASHED and restarts on the next call', async () => {
    const provider = new UseLiteEmbeddings({ threadUrl: fakeThread, batchSize: 1 });
    try {
      expect((await provider.embed(['fine'], 'document')).vectors).toHaveLength(1);
      const firstThread = provider.threadId;

      const crashing = provider.embed(['crash'], 'document');
      const queuedBehind = provider.embed(['innocent'], 'query');
      for (const err of [await rejection(crashing), await rejection(queuedBehind)]) {
        expect(err.code).toBe('EMBEDDER_CRASHED');
        expect(err.kind).toBe('internal');
        expect(err.retryable).toBe(true);
        expect(err.details?.exitCode).toBe(3);
      }

      const { vectors } = await provider.embed(['after the crash'], 'document');
      expect(vectors[0]?.[0]).toBe(1);
      expect(provider.threadId).not.toBe(firstThread);
    } finally {
      await provider.close();
    }
  });
});
