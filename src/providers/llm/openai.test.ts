import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startProviderStub, type ChatRequestBody, type ProviderStub } from '../../../test/support/provider-stub.js';
import { MemloomError } from '../../errors.js';
import { OpenAILlm, type OpenAILlmOptions } from './openai.js';
import { extractionJsonSchema, reconcileJsonSchema, reconcileMaxTokens } from './prompts.js';
import type { ExtractInput, ReconcileInput } from './types.js';

let stub: ProviderStub;
beforeAll(async () => {
  stub = await startProviderStub();
});
beforeEach(() => stub.reset());
afterAll(async () => {
  await stub.close();
});

const make = (opts: Partial<OpenAILlmOptions> = {}) => new OpenAILlm({ baseURL: stub.url, apiKey: 'test-key', model: 'stub-chat', ...opts });

const input: ExtractInput = {
  messages: [
    {
      index: 0,
      type: 'message',
      role: 'user',
      speaker: 'Alice',
      content: 'I moved to Berlin last week and started at Acme.',
      occurredAt: '2025-03-10T09:00:00Z',
    },
    { index: 1, type: 'message', role: 'assistant', content: 'Congratulations on the new job!', occurredAt: '2025-03-10T09:00:05Z' },
  ],
  knownEntities: [{ id: 7, name: 'Alice', type: 'person' }],
};

const FIXTURE = {
  memories: [
    {
      kind: 'fact',
      content: 'Alice moved to Berlin in early March 2025.',
      importance: 7,
      confidence: 0.95,
      subject: 'Alice',
      event_time: '2025-03-03',
      time_precision: 'relative',
      sources: [0],
      entities: ['Alice', 'Berlin'],
    },
  ],
  entities: [
    { name: 'Alice', type: 'person', description: 'The user', sources: [0] },
    { name: 'Berlin', type: 'place', sources: [0] },
  ],
  triplets: [{ source: 'Alice', relation: 'lives_in', target: 'Berlin', sources: [0] }],
};
const INVALID = '{"memories":[{"kind":"rumour","content":"x"}],"entities":[],"triplets":[]}';

async function caught(p: Promise<unknown>): Promise<MemloomError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MemloomError);
  return err as MemloomError;
}

const chatCalls = () => stub.calls.filter((c) => c.path === '/v1/chat/completions');
const lastMessage = (body: ChatRequestBody) => body.messages[body.messages.length - 1]?.content ?? '';

describe('OpenAILlm.extract', () => {
  it('returns the parsed extraction with usage, asking with a json_schema response_format', async () => {
    stub.onChat(() => JSON.stringify(FIXTURE));
    const { result, usage } = await make().extract(input);
    expect(result.memories[0]).toMatchObject({ kind: 'fact', importance: 7, subject: 'Alice' });
    expect(result.entities[1]).toEqual({ name: 'Berlin', type: 'place', description: '', sources: [0] });
    expect(result.triplets).toEqual([{ source: 'Alice', relation: 'lives_in', target: 'Berlin', description: '', sources: [0] }]);
    expect(usage.input).toBeGreaterThan(0);
    expect(usage.output).toBeGreaterThan(0);

    const body = chatCalls()[0]?.body as ChatRequestBody;
    expect(body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'extraction', strict: false, schema: extractionJsonSchema() } });
    expect(body.max_tokens).toBe(2000);
    const prompt = body.messages.map((m) => m.content).join('\n');
    expect(prompt).toContain('[0] (2025-03-10T09:00:00Z) Alice: I moved to Berlin');
    expect(prompt).toContain('[1] (2025-03-10T09:00:05Z) assistant: Congratulations');
    expect(prompt).toContain('#7 Alice (person)');
  });

  it('accepts an answer wrapped in a code fence', async () => {
    stub.onChat(() => `\`\`\`json\n${JSON.stringify(FIXTURE)}\n\`\`\``);
    expect((await make().extract(input)).result.memories).toHaveLength(1);
  });

  it('retries once with the validation error fed back, and sums usage over both attempts', async () => {
    let n = 0;
    stub.onChat(() => (n++ === 0 ? INVALID : JSON.stringify(FIXTURE)));
    const { result, usage } = await make().extract(input);
    expect(result.memories).toHaveLength(1);

    const calls = chatCalls();
    expect(calls).toHaveLength(2);
    const second = calls[1]?.body as ChatRequestBody;
    expect(second.messages.at(-2)).toEqual({ role: 'assistant', content: INVALID });
    expect(lastMessage(second)).toContain('Your previous answer was invalid');
    expect(lastMessage(second)).toContain('memories[0].kind');
    expect(lastMessage(second)).toContain('memories[0].importance');

    expect(usage).toEqual({
      input: promptTokensOf(0) + promptTokensOf(1),
      output: Math.ceil(INVALID.length / 4) + Math.ceil(JSON.stringify(FIXTURE).length / 4),
    });
  });

  it('feeds back a JSON syntax error too', async () => {
    let n = 0;
    stub.onChat(() => (n++ === 0 ? '{"memories": [' : JSON.stringify(FIXTURE)));
    await make().extract(input);
    expect(lastMessage(chatCalls()[1]?.body as ChatRequestBody)).toContain('not valid JSON');
  });

  it('throws EXTRACTION_INVALID after a second invalid answer, keeping the raw output', async () => {
    stub.onChat(() => INVALID);
    const err = await caught(make().extract(input));
    expect(err).toMatchObject({ code: 'EXTRACTION_INVALID', kind: 'upstream', retryable: false });
    expect(err.details?.raw).toBe(INVALID);
    expect(String(err.details?.error)).toContain('memories[0].kind');
    expect(chatCalls()).toHaveLength(2);
  });

  it('truncates the kept raw output to 4000 characters', async () => {
    stub.onChat(() => `not json ${'x'.repeat(10_000)}`);
    const err = await caught(make().extract(input));
    expect(String(err.details?.raw)).toHaveLength(4000);
  });

  it('falls back to json_object when the endpoint rejects json_schema, and remembers it', async () => {
    stub.script('/v1/chat/completions', [
      {
        status: 400,
        body: {
          error: {
            message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
            type: 'invalid_request_error',
            param: 'response_format',
            code: null,
          },
        },
      },
    ]);
    stub.onChat(() => JSON.stringify(FIXTURE));
    const llm = make();
    expect((await llm.extract(input)).result.memories).toHaveLength(1);
    expect(chatCalls().map((c) => c.body.response_format.type)).toEqual(['json_schema', 'json_object']);
    expect(llm.structuredOutput).toBe('json_object');

    await llm.extract(input);
    expect(chatCalls().map((c) => c.body.response_format.type)).toEqual(['json_schema', 'json_object', 'json_object']);
  });

  it('does not fall back on an unrelated 400', async () => {
    stub.script('/v1/chat/completions', [{ status: 400, body: { error: { message: 'context length exceeded', type: 'invalid_request_error' } } }]);
    const llm = make();
    expect(await caught(llm.extract(input))).toMatchObject({ code: 'PROVIDER_BAD_REQUEST', retryable: false });
    expect(chatCalls()).toHaveLength(1);
    expect(llm.structuredOutput).toBe('json_schema');
  });

  it('uses json_object from the start when configured, and max_completion_tokens when asked', async () => {
    await make({ structuredOutput: 'json_object', maxTokensParam: 'max_completion_tokens', maxOutputTokens: 500 }).extract(input);
    const body = chatCalls()[0]?.body as ChatRequestBody;
    expect(body.response_format).toEqual({ type: 'json_object' });
    expect(body.max_completion_tokens).toBe(500);
    expect(body).not.toHaveProperty('max_tokens');
  });

  it('turns 429 into LLM_RATE_LIMITED and 500 into a retryable upstream error', async () => {
    stub.script('/v1/chat/completions', [{ status: 429, retryAfter: 2 }, { status: 503 }]);
    expect(await caught(make().extract(input))).toMatchObject({ code: 'LLM_RATE_LIMITED', retryAfterMs: 2000 });
    expect(await caught(make().extract(input))).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', kind: 'upstream', retryable: true });
  });

  it('times out a hung request as a retryable error', async () => {
    stub.script('/v1/chat/completions', [{ hang: true }]);
    const err = await caught(make({ timeoutMs: 300 }).extract(input));
    expect(err).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', retryable: true, details: { reason: 'timeout' } });
  });

  it('turns a malformed body into PROVIDER_BAD_RESPONSE', async () => {
    stub.script('/v1/chat/completions', [{ malformed: true }]);
    expect(await caught(make().extract(input))).toMatchObject({ code: 'PROVIDER_BAD_RESPONSE', retryable: true });
  });
});

describe('OpenAILlm.reconcile', () => {
  const question: ReconcileInput = {
    memories: [{ id: 1, kind: 'preference', content: 'Bob prefers window seats.', date: '2026-01-05' }],
    units: [{ unit: 0, kind: 'preference', content: 'Bob prefers aisle seats now.', date: '2026-03-02', candidates: [1] }],
  };
  const ANSWER = '{"decisions":[{"unit":0,"action":"UPDATE","target":1}]}';

  it('asks once for the whole question with its own json_schema and a small output cap', async () => {
    stub.onChat(() => ANSWER);
    const { result, usage } = await make().reconcile(question);
    expect(result).toEqual({ decisions: [{ unit: 0, action: 'UPDATE', target: 1 }] });
    expect(usage.output).toBe(Math.ceil(ANSWER.length / 4));
    const body = chatCalls()[0]?.body as ChatRequestBody;
    expect(body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'reconcile', strict: false, schema: reconcileJsonSchema() } });
    expect(body.max_tokens).toBe(reconcileMaxTokens(1));
    expect(lastMessage(body)).toContain('#1 (2026-01-05, preference) Bob prefers window seats.');
    expect(lastMessage(body)).toContain('[0] (2026-03-02, preference) Bob prefers aisle seats now. — candidates: #1');
  });

  it('corrects an answer of the wrong shape once, then throws RECONCILE_INVALID with the billed tokens', async () => {
    let n = 0;
    stub.onChat(() => (n++ === 0 ? '{"decisions":[{"unit":0,"action":"REPLACE"}]}' : ANSWER));
    expect((await make().reconcile(question)).result.decisions).toHaveLength(1);
    expect(lastMessage(chatCalls()[1]?.body as ChatRequestBody)).toContain('decisions[0].action');

    stub.reset();
    stub.onChat(() => 'no idea');
    const err = await caught(make().reconcile(question));
    expect(err).toMatchObject({ code: 'RECONCILE_INVALID', kind: 'upstream', retryable: false, details: { raw: 'no idea' } });
    expect(err.details?.inputTokens).toBe(promptTokensOf(0) + promptTokensOf(1));
    expect(chatCalls()).toHaveLength(2);
  });
});

describe('OpenAILlm.ready', () => {
  it('lists models, and reports an auth failure', async () => {
    await make().ready();
    stub.script('/v1/models', [{ status: 401 }]);
    expect(await caught(make().ready())).toMatchObject({ code: 'PROVIDER_AUTH', retryable: false });
  });
});

/** prompt_tokens the stub billed for chat call `i` (chars / 4 of its messages). */
function promptTokensOf(i: number): number {
  const body = chatCalls()[i]?.body as ChatRequestBody;
  return Math.ceil(body.messages.map((m) => m.content ?? '').join('\n').length / 4);
}
