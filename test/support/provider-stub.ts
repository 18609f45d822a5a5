/**
 * A local OpenAI-compatible HTTP server: the one fake in memloom's tests (STYLE "Real things in tests").
 * Providers talk to it through the real `openai` SDK over real HTTP, so timeouts, status codes and
 * malformed bodies exercise the same code paths as production.
 *
 * - `POST /v1/embeddings`: deterministic vectors per text; texts sharing words have a higher cosine.
 * - `POST /v1/chat/completions`: answers from `onChat` handlers, else a valid empty extraction when
 *   JSON is asked for, else "ok".
 * - `GET /v1/models`: one model (a readiness check).
 * - `script(path, [...])`: the next requests to `path` get these answers, then normal ones resume.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ScriptedResponse =
  /** An error status with an OpenAI-shaped error body (or `body`); `retryAfter` in seconds. */
  | { status: number; retryAfter?: number; retryAfterMs?: number; body?: unknown }
  /** Wait, then answer normally. */
  | { delayMs: number }
  /** Never answer: the client must time out. */
  | { hang: true }
  /** 200 with a JSON content type and a body that is not JSON. */
  | { malformed: true }
  /** 200 with exactly this body. */
  | { json: unknown };

export interface RecordedCall {
  method: string;
  path: string;
  /** Parsed JSON body, or undefined for a GET. */
  body: any;
  /** Date.now() when the request arrived. */
  at: number;
  /** Status answered; 0 while unanswered (a hang stays 0). */
  status: number;
}

export interface ChatRequestBody {
  model?: string;
  messages: Array<{ role: string; content: string | null }>;
  response_format?: { type: string; json_schema?: unknown };
  max_tokens?: number;
  [key: string]: unknown;
}

/** Returns the assistant content, or undefined to let the next handler (or the default) answer. */
export type ChatHandler = (body: ChatRequestBody) => string | undefined;

export interface ProviderStubOptions {
  /** Default embedding dimension when the request does not name one (64). */
  dimensions?: number;
  /** Added before every answer, scripted or not. */
  latencyMs?: number;
  /** Model id listed by GET /v1/models (`stub-model`). */
  model?: string;
}

export interface ProviderStub {
  /** Base URL ending in `/v1`, ready for the SDK's `baseURL`. */
  readonly url: string;
  readonly calls: RecordedCall[];
  script(path: string, responses: ScriptedResponse[]): void;
  /** Handlers run newest first; returns a function that removes this one. */
  onChat(handler: ChatHandler): () => void;
  /** Forget calls, scripts and chat handlers. */
  reset(): void;
  close(): Promise<void>;
}

export const EMPTY_EXTRACTION = '{"memories":[],"entities":[],"triplets":[]}';

export async function startProviderStub(opts: ProviderStubOptions = {}): Promise<ProviderStub> {
  const defaultDims = opts.dimensions ?? 64;
  const modelId = opts.model ?? 'stub-model';
  const calls: RecordedCall[] = [];
  const scripts = new Map<string, ScriptedResponse[]>();
  let handlers: ChatHandler[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  function send(res: ServerResponse, call: RecordedCall, status: number, body: string, headers: Record<string, string> = {}) {
    call.status = status;
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body);
  }

  function answerNormally(method: string, path: string, body: any): { status: number; body: unknown } {
    if (method === 'POST' && path === '/v1/embeddings') return { status: 200, body: embeddingsAnswer(body, defaultDims) };
    if (method === 'POST' && path === '/v1/chat/completions') return { status: 200, body: chatAnswer(body, handlers) };
    if (method === 'GET' && path === '/v1/models') {
      return { status: 200, body: { object: 'list', data: [{ id: modelId, object: 'model', created: 0, owned_by: 'memloom-stub' }] } };
    }
    return { status: 404, body: errorBody(`No route ${method} ${path}`, 'invalid_request_error', 'not_found') };
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const raw = await readBody(req);
    const call: RecordedCall = { method, path, body: undefined, at: Date.now(), status: 0 };
    calls.push(call);
    if (raw.length > 0) {
      try {
        call.body = JSON.parse(raw);
      } catch {
        send(res, call, 400, JSON.stringify(errorBody('Request body is not JSON', 'invalid_request_error', 'invalid_json')));
        return;
      }
    }
    if (opts.latencyMs) await sleep(opts.latencyMs);

    const scripted = scripts.get(path)?.shift();
    if (scripted && 'hang' in scripted) return; // the socket stays open until the client gives up or close()
    if (scripted && 'delayMs' in scripted) await sleep(scripted.delayMs);
    if (scripted && 'malformed' in scripted) return send(res, call, 200, '{"object":"list","data":[{"embedd');
    if (scripted && 'json' in scripted) return send(res, call, 200, JSON.stringify(scripted.json));
    if (scripted && 'status' in scripted) {
      const headers: Record<string, string> = {};
      if (scripted.retryAfter !== undefined) headers['retry-after'] = String(scripted.retryAfter);
      if (scripted.retryAfterMs !== undefined) headers['retry-after-ms'] = String(scripted.retryAfterMs);
      const body = scripted.body ?? defaultErrorBody(scripted.status);
      return send(res, call, scripted.status, JSON.stringify(body), headers);
    }
    const answer = answerNormally(method, path, call.body);
    send(res, call, answer.status, JSON.stringify(answer.body));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      // A bug in the stub must surface in the test as a 500, not hang it.
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify(errorBody(`stub failure: ${String(err)}`, 'server_error', 'stub_failure')));
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    calls,
    script(path, responses) {
      const full = path.startsWith('/v1/') ? path : `/v1/${path.replace(/^\//, '')}`;
      scripts.set(full, [...(scripts.get(full) ?? []), ...responses]);
    },
    onChat(handler) {
      handlers = [handler, ...handlers];
      return () => {
        handlers = handlers.filter((h) => h !== handler);
      };
    },
    reset() {
      calls.length = 0;
      scripts.clear();
      handlers = [];
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      // Hung requests keep sockets open; drop them so close() cannot wait forever.
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function errorBody(message: string, type: string, code: string | null) {
  return { error: { message, type, param: null, code } };
}

function defaultErrorBody(status: number) {
  if (status === 429) return errorBody('Rate limit reached (stub)', 'requests', 'rate_limit_exceeded');
  if (status === 401) return errorBody('Incorrect API key provided (stub)', 'invalid_request_error', 'invalid_api_key');
  if (status === 403) return errorBody('Forbidden (stub)', 'invalid_request_error', 'forbidden');
  if (status >= 500) return errorBody('The server had an error (stub)', 'server_error', null);
  return errorBody(`Bad request (stub, status ${status})`, 'invalid_request_error', null);
}

const estimateTokens = (text: string) => Math.ceil(text.length / 4);

/**
 * A unit vector per text: a seeded pseudo-random part from sha256(text) (distinct texts differ) plus
 * a bag-of-words part (texts sharing words point the same way). Exported so tests can compare.
 */
export function stubEmbedding(text: string, dimensions: number): number[] {
  const noise = new Array<number>(dimensions).fill(0);
  for (let block = 0; block * 8 < dimensions; block++) {
    const h = createHash('sha256').update(`${block}:${text}`).digest();
    for (let j = 0; j < 8 && block * 8 + j < dimensions; j++) noise[block * 8 + j] = h.readUInt32BE(j * 4) / 0xffffffff - 0.5;
  }
  const words = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const h = createHash('sha256').update(word).digest();
    for (let k = 0; k < 2; k++) words[h.readUInt32BE(k * 4) % dimensions]! += h[8 + k]! & 1 ? 1 : -1;
  }
  const n = normalise(noise);
  const w = normalise(words);
  // Weighted so shared words dominate but identical word sets still give different vectors.
  return normalise(n.map((v, i) => 0.35 * v + w[i]!));
}

function normalise(v: number[]): number[] {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return norm === 0 ? v : v.map((x) => x / norm);
}

function embeddingsAnswer(body: any, defaultDims: number) {
  const input: unknown = body?.input;
  const texts = (Array.isArray(input) ? input : [input]).map((t) => (typeof t === 'string' ? t : JSON.stringify(t)));
  const dims = typeof body?.dimensions === 'number' ? body.dimensions : defaultDims;
  const base64 = body?.encoding_format === 'base64';
  const data = texts.map((text, index) => {
    const v = stubEmbedding(text, dims);
    const embedding = base64 ? Buffer.from(new Float32Array(v).buffer).toString('base64') : v;
    return { object: 'embedding', index, embedding };
  });
  const tokens = texts.reduce((s, t) => s + estimateTokens(t), 0);
  return { object: 'list', data, model: body?.model ?? 'stub-embedding', usage: { prompt_tokens: tokens, total_tokens: tokens } };
}

function chatAnswer(body: ChatRequestBody, handlers: ChatHandler[]) {
  let content: string | undefined;
  for (const h of handlers) {
    content = h(body);
    if (content !== undefined) break;
  }
  const prompt = (body.messages ?? []).map((m) => m.content ?? '').join('\n');
  if (content === undefined) {
    const wantsJson = body.response_format?.type === 'json_schema' || body.response_format?.type === 'json_object';
    if (!wantsJson) content = 'ok';
    // The triage question ("Is this worth remembering long-term?") gets a verdict, so the default
    // stub also serves the triage stage.
    else if (/worth remembering long-term\?/i.test(prompt)) content = '{"keep":true,"reason":"stub default","priority":5}';
    else content = EMPTY_EXTRACTION;
  }
  const promptTokens = estimateTokens(prompt);
  const completionTokens = estimateTokens(content);
  return {
    id: `chatcmpl-stub-${Date.now()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? 'stub-model',
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}
