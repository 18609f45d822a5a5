import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startProviderStub, stubEmbedding, type ProviderStub } from '../../../test/support/provider-stub.js';
import { MemloomError } from '../../errors.js';
import { parseRetryAfter } from '../errors.js';
import { OpenAIEmbeddings, type OpenAIEmbeddingsOptions } from './openai.js';

let stub: ProviderStub;
beforeAll(async () => {
  stub = await startProviderStub({ dimensions: 32 });
});
beforeEach(() => stub.reset());
afterAll(async () => {
  await stub.close();
});

const make = (opts: Partial<OpenAIEmbeddingsOptions> = {}) =>
  new OpenAIEmbeddings({ baseURL: stub.url, apiKey: 'test-key', model: 'stub-embedding', dimensions: 32, ...opts });

async function caught(p: Promise<unknown>): Promise<MemloomError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MemloomError);
  return err as MemloomError;
}

describe('OpenAIEmbeddings', () => {
  it('splits input into ceil(n / batchSize) requests and returns vectors in input order', async () => {
    const texts = Array.from({ length: 10 }, (_, i) => `text number ${i}`);
    const result = await make({ batchSize: 3 }).embed(texts, 'document');
    expect(stub.calls.filter((c) => c.path === '/v1/embeddings')).toHaveLength(Math.ceil(10 / 3));
    expect(result.vectors).toEqual(texts.map((t) => stubEmbedding(t, 32)));
    expect(result.tokens).toBeGreaterThan(0);
    expect(stub.calls.map((c) => c.body.input.length)).toEqual([3, 3, 3, 1]);
  });

  it('sends encoding_format float, and dimensions only when configured', async () => {
    await make().embed(['a'], 'query');
    expect(stub.calls[0]?.body).toMatchObject({ model: 'stub-embedding', encoding_format: 'float', dimensions: 32 });
    stub.reset();
    const unsized = make({ dimensions: undefined });
    await unsized.embed(['a'], 'query');
    expect(stub.calls[0]?.body).not.toHaveProperty('dimensions');
    // Learned from the first answer (the stub's default size).
    expect(unsized.dimensions).toBe(32);
    expect(unsized.paid).toBe(true);
  });

  it('orders vectors by index when the provider answers out of order', async () => {
    const [a, b] = [stubEmbedding('first', 32), stubEmbedding('second', 32)];
    stub.script('/v1/embeddings', [
      {
        json: {
          object: 'list',
          model: 'm',
          data: [
            { object: 'embedding', index: 1, embedding: b },
            { object: 'embedding', index: 0, embedding: a },
          ],
          usage: { prompt_tokens: 2, total_tokens: 2 },
        },
      },
    ]);
    const result = await make().embed(['first', 'second'], 'document');
    expect(result.vectors).toEqual([a, b]);
    expect(result.tokens).toBe(2);
  });

  it('makes no request for an empty input', async () => {
    expect(await make().embed([], 'document')).toEqual({ vectors: [] });
    expect(stub.calls).toHaveLength(0);
  });

  it('rejects a vector of the wrong dimension as PROVIDER_BAD_RESPONSE', async () => {
    stub.script('/v1/embeddings', [
      { json: { object: 'list', model: 'm', data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }], usage: { prompt_tokens: 1, total_tokens: 1 } } },
    ]);
    const err = await caught(make().embed(['x'], 'document'));
    expect(err).toMatchObject({ code: 'PROVIDER_BAD_RESPONSE', kind: 'upstream', retryable: true });
    expect(err.details).toMatchObject({ expected: 32, received: 2 });
  });

  it('rejects an answer with the wrong number of vectors', async () => {
    stub.script('/v1/embeddings', [{ json: { object: 'list', model: 'm', data: [], usage: { prompt_tokens: 1, total_tokens: 1 } } }]);
    expect(await caught(make().embed(['x'], 'document'))).toMatchObject({ code: 'PROVIDER_BAD_RESPONSE' });
  });

  it('turns 429 into LLM_RATE_LIMITED with retryAfterMs from the retry-after header', async () => {
    stub.script('/v1/embeddings', [{ status: 429, retryAfter: 7 }]);
    const err = await caught(make().embed(['x'], 'document'));
    expect(err).toMatchObject({ code: 'LLM_RATE_LIMITED', kind: 'rate_limited', retryable: true, retryAfterMs: 7000 });
    expect(err.details).toMatchObject({ status: 429, providerCode: 'rate_limit_exceeded' });
    expect(stub.calls).toHaveLength(1); // maxRetries: 0
  });

  it('prefers retry-after-ms when the provider sends it', async () => {
    stub.script('/v1/embeddings', [{ status: 429, retryAfter: 7, retryAfterMs: 1500 }]);
    expect((await caught(make().embed(['x'], 'document'))).retryAfterMs).toBe(1500);
  });

  it('turns 500 into a retryable upstream PROVIDER_UNAVAILABLE without retrying itself', async () => {
    stub.script('/v1/embeddings', [{ status: 500 }]);
    const err = await caught(make().embed(['x'], 'document'));
    expect(err).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', kind: 'upstream', retryable: true });
    expect(stub.calls).toHaveLength(1);
  });

  it('turns a hung request into a retryable timeout after timeoutMs', async () => {
    stub.script('/v1/embeddings', [{ hang: true }]);
    const err = await caught(make({ timeoutMs: 300 }).embed(['x'], 'document'));
    expect(err).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', kind: 'upstream', retryable: true });
    expect(err.details).toMatchObject({ reason: 'timeout' });
  });

  it('turns a malformed JSON body into a retryable PROVIDER_BAD_RESPONSE', async () => {
    stub.script('/v1/embeddings', [{ malformed: true }]);
    expect(await caught(make().embed(['x'], 'document'))).toMatchObject({ code: 'PROVIDER_BAD_RESPONSE', retryable: true });
  });

  it('turns 400 into PROVIDER_BAD_REQUEST and 401 into PROVIDER_AUTH, neither retryable', async () => {
    stub.script('/v1/embeddings', [{ status: 400 }, { status: 401 }]);
    expect(await caught(make().embed(['x'], 'document'))).toMatchObject({ code: 'PROVIDER_BAD_REQUEST', kind: 'input', retryable: false });
    expect(await caught(make().embed(['x'], 'document'))).toMatchObject({ code: 'PROVIDER_AUTH', retryable: false });
  });

  it('is ready when /models answers, and falls back to one embed when /models is missing', async () => {
    await make().ready();
    expect(stub.calls.map((c) => c.path)).toEqual(['/v1/models']);
    stub.reset();
    stub.script('/v1/models', [{ status: 404 }]);
    await make().ready();
    expect(stub.calls.map((c) => c.path)).toEqual(['/v1/models', '/v1/embeddings']);
    stub.reset();
    stub.script('/v1/models', [{ status: 401 }]);
    expect(await caught(make().ready())).toMatchObject({ code: 'PROVIDER_AUTH' });
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it('reads seconds, an HTTP date and retry-after-ms', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after': '2' }), now)).toBe(2000);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:05 GMT' }), now)).toBe(5000);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Tue, 31 Dec 2024 00:00:05 GMT' }), now)).toBe(0);
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '250.5' }), now)).toBe(251);
    expect(parseRetryAfter({ 'retry-after': '1' }, now)).toBe(1000);
  });
  it('is undefined when absent or unreadable', () => {
    expect(parseRetryAfter(new Headers(), now)).toBeUndefined();
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
