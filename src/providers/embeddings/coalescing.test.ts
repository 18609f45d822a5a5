import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startProviderStub, stubEmbedding, type ProviderStub } from '../../../test/support/provider-stub.js';
import { runInGateScope } from '../gate-scope.js';
import { CoalescingEmbeddings } from './coalescing.js';
import { OpenAIEmbeddings } from './openai.js';

const DIMS = 32;
let stub: ProviderStub;
beforeAll(async () => {
  stub = await startProviderStub({ dimensions: DIMS });
});
beforeEach(() => stub.reset());
afterAll(async () => {
  await stub.close();
});

const embeddingCalls = () => stub.calls.filter((c) => c.path === '/v1/embeddings');
const make = (maxBatch = 100) =>
  new CoalescingEmbeddings(new OpenAIEmbeddings({ baseURL: stub.url, apiKey: 'k', model: 'stub-embedding', dimensions: DIMS, batchSize: 100 }), {
    maxBatch,
    windowMs: 20,
  });
const asTenant = <T>(tenantId: string, fn: () => Promise<T>) => runInGateScope({ tenantId, queue: 'embed' }, fn);

describe('CoalescingEmbeddings', () => {
  it('sends the texts of concurrent callers of one tenant in one request and gives each caller its own vectors', async () => {
    const e = make();
    const asks = [['alpha one', 'alpha two'], ['beta'], ['gamma one', 'gamma two', 'gamma three']];
    const answers = await Promise.all(asks.map((texts) => asTenant('t1', () => e.embed(texts, 'document'))));
    expect(embeddingCalls()).toHaveLength(1);
    expect(embeddingCalls()[0]?.body.input).toEqual(asks.flat());
    answers.forEach((a, i) => expect(a.vectors).toEqual((asks[i] as string[]).map((t) => stubEmbedding(t, DIMS))));
  });

  it('never puts two tenants’ texts in one request, so each budget pays for its own', async () => {
    const e = make();
    await Promise.all([
      asTenant('t1', () => e.embed(['one of t1'], 'document')),
      asTenant('t2', () => e.embed(['one of t2'], 'document')),
      asTenant('t1', () => e.embed(['two of t1'], 'document')),
    ]);
    const inputs = embeddingCalls().map((c) => c.body.input as string[]);
    expect(inputs.sort((a, b) => a.length - b.length)).toEqual([['one of t2'], ['one of t1', 'two of t1']]);
  });

  it('sends at once when the batch is full, and queries straight through', async () => {
    const e = make(2);
    await asTenant('t1', () => e.embed(['x', 'y'], 'document'));
    await e.embed(['a question'], 'query');
    expect(embeddingCalls().map((c) => c.body.input)).toEqual([['x', 'y'], ['a question']]);
  });

  it('rejects every waiter of a failed request, and the next request goes out anew', async () => {
    const e = make();
    stub.script('/v1/embeddings', [{ status: 400 }]);
    const results = await Promise.allSettled([asTenant('t1', () => e.embed(['p'], 'document')), asTenant('t1', () => e.embed(['q'], 'document'))]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    const again = await asTenant('t1', () => e.embed(['p'], 'document'));
    expect(again.vectors).toEqual([stubEmbedding('p', DIMS)]);
    expect(embeddingCalls()).toHaveLength(2);
  });
});
