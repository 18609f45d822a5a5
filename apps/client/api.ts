import { answeredCode, MemloomError, type ErrorKind } from '../../src/errors.js';
import type {
  ContextAnswer,
  ContextRequest,
  EntitySummary,
  EventsAnswer,
  ExportOptions,
  FeedbackAnswer,
  FeedbackRequest,
  ForgetAnswer,
  ForgetScope,
  ImportAnswer,
  MemoryCorrection,
  MemoryDetail,
  MemoryListQuery,
  MemoryPage,
  RecallAnswer,
  RecallRequest,
  ServerStats,
} from './types.js';
import { networkReason } from './http.js';
import type { EventDefaults, MemloomEvent } from './wire.js';

export interface ApiOptions {
  /** Base URL without a trailing slash. */
  url: string;
  apiKey?: string | undefined;
  fetch: typeof fetch;
  timeoutMs: number;
  /**
   * The client's scope (createMemloom's `defaults`): events get every field they leave out; reads,
   * exports and a session's forget get `user_id` and `dataset` when they name none, so a client
   * made for one user never reads or forgets another user's memory by leaving the field out.
   */
  defaults?: EventDefaults;
}

/**
 * The request/answer side of the API. Unlike `event()`, these calls are awaited and throw a
 * MemloomError carrying the API's stable `code` (or API_UNREACHABLE / API_TIMEOUT) on failure.
 */
export interface MemloomApi {
  /** POST /v1/events, awaited: resolves once the events are durably stored (not yet processed). Fields an event leaves out come from `defaults`. */
  sendEvents(events: MemloomEvent | MemloomEvent[]): Promise<EventsAnswer>;
  /** Without `user_id` / `dataset`: those of `defaults` (none there: every user, every dataset). */
  recall(request: RecallRequest): Promise<RecallAnswer>;
  /** POST /v1/context: a token-budgeted block for a prompt. Without `user_id` / `dataset`: those of `defaults`. */
  context(request: ContextRequest): Promise<ContextAnswer>;
  memories: {
    /** Without `user_id` / `dataset`: those of `defaults`. */
    list(query?: MemoryListQuery): Promise<MemoryPage>;
    get(id: string): Promise<MemoryDetail>;
    /** A correction: a new version supersedes the memory. */
    update(id: string, correction: MemoryCorrection): Promise<Record<string, unknown>>;
    delete(id: string): Promise<ForgetAnswer>;
    restore(id: string): Promise<Record<string, unknown>>;
  };
  /**
   * `{session_id}` alone is the session of `defaults.user_id` (when set). An event, a user or a
   * dataset is forgotten as named: `{dataset}` covers every user of the dataset.
   */
  forget(scope: ForgetScope): Promise<ForgetAnswer>;
  feedback(request: FeedbackRequest): Promise<FeedbackAnswer>;
  /** The user's working memory as Markdown (default: `defaults.user_id`); null while there is none yet. */
  /** The user's working memory (Markdown), trimmed to `budgetTokens` when given; null while there is none. */
  workingMemory(userId?: string, budgetTokens?: number): Promise<string | null>;
  serverStats(): Promise<ServerStats>;
  /** The graph of one user and dataset (without `user_id` / `dataset`: those of `defaults`; none there: the tenant's). */
  graph: {
    search(q?: string, limit?: number, scope?: GraphScope): Promise<{ entities: EntitySummary[] }>;
    entity(id: string, depth?: 1 | 2 | 3, scope?: GraphScope): Promise<Record<string, unknown>>;
    schema(scope?: GraphScope): Promise<Record<string, unknown>>;
  };
  deadLetters(query?: {
    limit?: number;
    source?: 'file' | 'job' | 'http';
    before?: string;
  }): Promise<{ dead_letters: Array<Record<string, unknown>>; next_before: string | null }>;
  /** GET /v1/export as a stream of bytes (JSON lines or Markdown); without `user_id` / `dataset`: those of `defaults`. */
  exportStream(options?: ExportOptions): Promise<ReadableStream<Uint8Array>>;
  /** POST /v1/import with JSON lines (a string, bytes, or a stream of bytes). */
  importData(body: string | Uint8Array | ReadableStream<Uint8Array>): Promise<ImportAnswer>;
}

type Query = Record<string, string | number | boolean | string[] | undefined>;

export function createApi(o: ApiOptions): MemloomApi {
  const call = <T>(method: string, path: string, opts: { query?: Query; body?: unknown; raw?: RawBody; accept?: 'json' | 'text' | 'stream' } = {}) =>
    request<T>(o, method, path, opts);
  const id = (v: string) => encodeURIComponent(v);
  const defaults = o.defaults ?? {};
  const scope = { user_id: defaults.user_id, dataset: defaults.dataset };
  return {
    sendEvents: (events) =>
      call('POST', '/v1/events', { body: Array.isArray(events) ? { events: events.map((e) => filled(e, defaults)) } : filled(events, defaults) }),
    recall: (r) => call('POST', '/v1/recall', { body: filled(r, scope) }),
    context: (r) => call('POST', '/v1/context', { body: filled(r, scope) }),
    memories: {
      list: (q = {}) => {
        const query = filled(q, scope);
        return call('GET', '/v1/memories', { query: { ...query, kind: Array.isArray(query.kind) ? query.kind.join(',') : query.kind } });
      },
      get: (m) => call('GET', `/v1/memories/${id(m)}`),
      update: (m, c) => call('PATCH', `/v1/memories/${id(m)}`, { body: c }),
      delete: (m) => call('DELETE', `/v1/memories/${id(m)}`),
      restore: (m) => call('POST', `/v1/memories/${id(m)}/restore`, { body: {} }),
    },
    // A session id is unique only within its user: alone, it is the client's user's session.
    forget: (s) => call('POST', '/v1/forget', { body: 'session_id' in s ? filled(s, { user_id: defaults.user_id }) : s }),
    feedback: (f) => call('POST', '/v1/feedback', { body: f }),
    async workingMemory(userId, budgetTokens) {
      try {
        return await call<string>('GET', '/v1/working-memory', { query: { user_id: userId ?? defaults.user_id, budget_tokens: budgetTokens }, accept: 'text' });
      } catch (err) {
        if (err instanceof MemloomError && err.code === 'WORKING_MEMORY_EMPTY') return null;
        throw err;
      }
    },
    serverStats: () => call('GET', '/v1/stats'),
    graph: {
      search: (q, limit, s = {}) => call('GET', '/v1/graph/entities', { query: filled({ q, limit, ...s }, scope) }),
      entity: (e, depth, s = {}) => call('GET', `/v1/graph/entities/${id(e)}`, { query: filled({ depth, ...s }, scope) }),
      schema: (s = {}) => call('GET', '/v1/schema', { query: filled({ ...s }, scope) }),
    },
    deadLetters: (q = {}) => call('GET', '/v1/dead-letters', { query: q }),
    exportStream: (x = {}) => {
      const q = filled(x, scope);
      return call('GET', '/v1/export', { query: { format: q.format, user_id: q.user_id, dataset: q.dataset, vectors: q.vectors }, accept: 'stream' });
    },
    importData: (body) => call('POST', '/v1/import', { raw: { body, type: 'application/x-ndjson' } }),
  };
}

/**
 * `value` with each field of `defaults` it leaves undefined filled in. Anything but a plain
 * object goes as it is: the API names what is wrong with it.
 */
/** Which user's and dataset's graph a graph read shows. */
export interface GraphScope {
  user_id?: string;
  dataset?: string;
}

function filled<T>(value: T, defaults: Record<string, unknown>): T {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [k, v] of Object.entries(defaults)) if (v !== undefined && out[k] === undefined) out[k] = v;
  return out as T;
}

interface RawBody {
  body: string | Uint8Array | ReadableStream<Uint8Array>;
  type: string;
}

async function request<T>(
  o: ApiOptions,
  method: string,
  path: string,
  opts: { query?: Query; body?: unknown; raw?: RawBody; accept?: 'json' | 'text' | 'stream' },
): Promise<T> {
  const url = `${o.url}${path}${queryString(opts.query)}`;
  const headers: Record<string, string> = {};
  if (o.apiKey) headers.authorization = `Bearer ${o.apiKey}`;
  let body: RequestInit['body'] | undefined;
  if (opts.raw) {
    headers['content-type'] = opts.raw.type;
    body = opts.raw.body as RequestInit['body'];
  } else if (opts.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  // A streamed body (import) or answer (export) may take long: the timeout then only bounds the wait for headers.
  const streaming = opts.accept === 'stream' || body instanceof ReadableStream;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), o.timeoutMs);
  let res: Response;
  try {
    res = await o.fetch(url, {
      method,
      headers,
      body,
      signal: controller.signal,
      ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
    } as RequestInit);
    if (streaming && res.ok) clearTimeout(timer);
    if (opts.accept === 'stream' && res.ok && res.body) return res.body as T;
    const text = await res.text();
    if (!res.ok) throw apiError(method, path, res.status, text);
    return (opts.accept === 'text' ? text : text === '' ? undefined : JSON.parse(text)) as T;
  } catch (err) {
    if (err instanceof MemloomError) throw err;
    if (controller.signal.aborted)
      throw new MemloomError('API_TIMEOUT', `${method} ${path} got no answer within ${o.timeoutMs} ms`, { kind: 'unavailable', cause: err });
    const reason = networkReason(err);
    throw new MemloomError('API_UNREACHABLE', `no memloom answers at ${o.url} (${reason}; ${method} ${path})`, {
      kind: 'unavailable',
      cause: err,
      details: { url: o.url, reason },
    });
  } finally {
    clearTimeout(timer);
  }
}

function queryString(q: Query | undefined): string {
  if (!q) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined) params.set(k, Array.isArray(v) ? v.join(',') : String(v));
  const s = params.toString();
  return s === '' ? '' : `?${s}`;
}

const KIND_OF_STATUS: Record<number, ErrorKind> = {
  400: 'input',
  401: 'unauthorized',
  404: 'not_found',
  409: 'conflict',
  413: 'too_large',
  429: 'rate_limited',
};

/** The API's `{error: {code, message, details}}` as a MemloomError (a proxy's HTML page gets HTTP_<status>). */
function apiError(method: string, path: string, status: number, text: string): MemloomError {
  let body: { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = undefined;
  }
  const code = typeof body?.error?.code === 'string' ? body.error.code : `HTTP_${status}`;
  const message = typeof body?.error?.message === 'string' ? body.error.message : `${method} ${path} answered ${status}`;
  const details = body?.error?.details;
  const err = new MemloomError(answeredCode(code), message, {
    kind: KIND_OF_STATUS[status] ?? (status >= 500 ? 'unavailable' : 'input'),
    details: { status, ...(Array.isArray(details) ? { issues: JSON.stringify(details) } : {}) },
  });
  return err;
}
