import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { EMPTY_EXTRACTION, startProviderStub, stubEmbedding, type ProviderStub } from './provider-stub.js';

let stub: ProviderStub;
beforeEach(async () => {
  stub ??= await startProviderStub();
  stub.reset();
});
afterAll(async () => {
  await stub?.close();
});

async function post(path: string, body: unknown, signal?: AbortSignal) {
  const res = await fetch(`${stub.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe('provider stub: embeddings', () => {
  it('answers in the OpenAI shape with unit vectors of the default dimension', async () => {
    const res = await post('/embeddings', { model: 'm', input: ['alpha', 'beta'], encoding_format: 'float' });
    expect(res.status).toBe(200);
    const body = JSON.parse(res.text);
    expect(body.object).toBe('list');
    expect(body.model).toBe('m');
    expect(body.usage.prompt_tokens).toBeGreaterThan(0);
    expect(body.data.map((d: { index: number }) => d.index)).toEqual([0, 1]);
    for (const d of body.data) {
      expect(d.object).toBe('embedding');
      expect(d.embedding).toHaveLength(64);
      expect(Math.abs(cosine(d.embedding, d.embedding) - 1)).toBeLessThan(1e-9);
    }
  });

  it('is deterministic per text and honours the request dimensions', async () => {
    const a = JSON.parse((await post('/embeddings', { model: 'm', input: 'same text', dimensions: 16 })).text);
    const b = JSON.parse((await post('/embeddings', { model: 'm', input: ['same text'], dimensions: 16 })).text);
    expect(a.data[0].embedding).toHaveLength(16);
    expect(a.data[0].embedding).toEqual(b.data[0].embedding);
    expect(a.data[0].embedding).toEqual(stubEmbedding('same text', 16));
  });

  it('gives texts that share words a higher cosine than unrelated texts', () => {
    const base = stubEmbedding('Alice moved to Berlin last spring', 64);
    const related = stubEmbedding('Alice lives in Berlin', 64);
    const unrelated = stubEmbedding('the quarterly invoice totals', 64);
    expect(cosine(base, related)).toBeGreaterThan(cosine(base, unrelated) + 0.2);
    expect(stubEmbedding('a b', 64)).not.toEqual(stubEmbedding('b a', 64));
  });

  it('encodes base64 when asked', async () => {
    const body = JSON.parse((await post('/embeddings', { model: 'm', input: 'x', encoding_format: 'base64', dimensions: 8 })).text);
    const bytes = Buffer.from(body.data[0].embedding, 'base64');
    const floats = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    expect(floats).toHaveLength(8);
    expect(Array.from(floats)[0]).toBeCloseTo(stubEmbedding('x', 8)[0]!, 6);
  });
});

describe('provider stub: chat and models', () => {
  it('answers "ok" to plain chat and an empty extraction when JSON is asked for', async () => {
    const plain = JSON.parse((await post('/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'hi' }] })).text);
    expect(plain.choices[0].message.content).toBe('ok');
    expect(plain.usage).toEqual({ prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 });
    const json = JSON.parse(
      (await post('/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'extract' }], response_format: { type: 'json_object' } })).text,
    );
    expect(json.choices[0].message.content).toBe(EMPTY_EXTRACTION);
  });

  it('lets handlers answer, newest first, and falls through on undefined', async () => {
    stub.onChat(() => 'older');
    const remove = stub.onChat((body) => (body.messages[0]?.content === 'ping' ? 'pong' : undefined));
    const ask = async (content: string) =>
      JSON.parse((await post('/chat/completions', { model: 'm', messages: [{ role: 'user', content }] })).text).choices[0].message.content;
    expect(await ask('ping')).toBe('pong');
    expect(await ask('other')).toBe('older');
    remove();
    expect(await ask('ping')).toBe('older');
  });

  it('lists one model', async () => {
    const body = (await (await fetch(`${stub.url}/models`)).json()) as { data: Array<{ id: string }> };
    expect(body.data.map((m) => m.id)).toEqual(['stub-model']);
  });
});

describe('provider stub: scripting and recording', () => {
  it('plays scripted answers in order, then answers normally', async () => {
    stub.script('/v1/embeddings', [{ status: 429, retryAfter: 3 }, { status: 500 }, { delayMs: 20 }]);
    const first = await post('/embeddings', { model: 'm', input: 'x' });
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('3');
    expect(JSON.parse(first.text).error.code).toBe('rate_limit_exceeded');
    expect((await post('/embeddings', { model: 'm', input: 'x' })).status).toBe(500);
    expect((await post('/embeddings', { model: 'm', input: 'x' })).status).toBe(200);
    expect((await post('/embeddings', { model: 'm', input: 'x' })).status).toBe(200);
    expect(stub.calls.map((c) => c.status)).toEqual([429, 500, 200, 200]);
    expect(stub.calls[0]).toMatchObject({ method: 'POST', path: '/v1/embeddings', body: { input: 'x' } });
  });

  it('accepts a path without the /v1 prefix and only scripts that path', async () => {
    stub.script('chat/completions', [{ json: { custom: true } }]);
    expect((await post('/embeddings', { model: 'm', input: 'x' })).status).toBe(200);
    const res = await post('/chat/completions', { model: 'm', messages: [] });
    expect(JSON.parse(res.text)).toEqual({ custom: true });
  });

  it('sends an invalid JSON body for malformed', async () => {
    stub.script('/v1/embeddings', [{ malformed: true }]);
    const res = await post('/embeddings', { model: 'm', input: 'x' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(() => JSON.parse(res.text)).toThrow();
  });

  it('never answers a hang, and records it with status 0', async () => {
    stub.script('/v1/embeddings', [{ hang: true }]);
    await expect(post('/embeddings', { model: 'm', input: 'x' }, AbortSignal.timeout(200))).rejects.toThrow();
    expect(stub.calls).toHaveLength(1);
    expect(stub.calls[0]?.status).toBe(0);
  });

  it('adds latency to every answer when configured, and closes with a request still hanging', async () => {
    const slow = await startProviderStub({ latencyMs: 10, dimensions: 4 });
    const res = await fetch(`${slow.url}/embeddings`, { method: 'POST', body: JSON.stringify({ model: 'm', input: 'x' }) });
    expect(((await res.json()) as { data: Array<{ embedding: number[] }> }).data[0]?.embedding).toHaveLength(4);
    slow.script('/v1/models', [{ hang: true }]);
    const pending = fetch(`${slow.url}/models`).catch((err: unknown) => err);
    await new Promise((r) => setTimeout(r, 50));
    await slow.close();
    expect(await pending).toBeInstanceOf(Error);
  });

  it('answers 404 for an unknown route', async () => {
    expect((await post('/nope', {})).status).toBe(404);
  });
});
