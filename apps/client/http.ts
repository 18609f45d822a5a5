import { answeredCode, MemloomError } from '../../src/errors.js';
import { batchBody, type WireEvent } from './wire.js';

export interface HttpOptions {
  /** API base URL, without a trailing slash. */
  url: string;
  apiKey?: string | undefined;
  fetch: typeof fetch;
  /** Per request; a request that takes longer counts as a network error and is retried. */
  timeoutMs: number;
}

/** One problem with one event of a batch, as the API reports it in `error.details[]`. */
export interface Issue {
  index?: number;
  path: string;
  message: string;
}

/** What one POST /v1/events answered, reduced to what the sender must do next. */
export type Answer =
  | { kind: 'stored'; accepted: number; duplicates: number; issues: Issue[] }
  | { kind: 'invalid'; code: string; message: string; issues: Issue[] }
  | { kind: 'too_large' }
  | { kind: 'retry'; afterMs: number | undefined; error: MemloomError }
  | { kind: 'fatal'; error: MemloomError };

/**
 * Why a fetch failed, as short as the network layer says it: ECONNREFUSED, ENOTFOUND, "bad port"
 * (undici wraps the reason in `cause`; a refused connection to a name with several addresses is
 * an AggregateError whose parts carry the code).
 */
export function networkReason(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause as { code?: unknown; message?: unknown; errors?: Array<{ code?: unknown }> } | undefined;
  const code = cause?.code ?? cause?.errors?.find((e) => typeof e.code === 'string')?.code;
  if (typeof code === 'string') return code;
  if (typeof cause?.message === 'string' && cause.message !== '') return cause.message;
  return err.name === 'TimeoutError' || err.name === 'AbortError' ? 'timeout' : err.message;
}

/** Posts one batch. Never throws: network failures and timeouts come back as `retry`. */
export async function postEvents(batch: readonly WireEvent[], o: HttpOptions): Promise<Answer> {
  let res: Response;
  let text: string;
  try {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (o.apiKey) headers.authorization = `Bearer ${o.apiKey}`;
    res = await o.fetch(`${o.url}/v1/events`, { method: 'POST', headers, body: batchBody(batch), signal: AbortSignal.timeout(o.timeoutMs) });
    text = await res.text();
  } catch (err) {
    const reason = networkReason(err);
    return {
      kind: 'retry',
      afterMs: undefined,
      error: new MemloomError('API_UNREACHABLE', `no memloom answers at ${o.url} (${reason}; POST /v1/events)`, {
        kind: 'unavailable',
        cause: err,
        details: { url: o.url, reason },
      }),
    };
  }
  const body = parseJson(text);
  if (res.status >= 200 && res.status < 300) {
    return { kind: 'stored', accepted: num(body?.accepted, batch.length), duplicates: num(body?.duplicates, 0), issues: issuesOf(body) };
  }
  const code = typeof body?.error?.code === 'string' ? body.error.code : `HTTP_${res.status}`;
  const message = typeof body?.error?.message === 'string' ? body.error.message : `POST /v1/events answered ${res.status}`;
  if (res.status === 400 || res.status === 422) return { kind: 'invalid', code, message, issues: issuesOf(body) };
  if (res.status === 413) return { kind: 'too_large' };
  const error = new MemloomError(answeredCode(code), message, {
    kind: res.status === 429 ? 'rate_limited' : res.status >= 500 ? 'unavailable' : 'input',
    details: { url: o.url, status: res.status },
  });
  if (res.status === 408 || res.status === 429 || res.status >= 500) return { kind: 'retry', afterMs: retryAfterMs(res.headers.get('retry-after')), error };
  // 401/403/404…: retrying will not help, but the events are fine — the caller spills them.
  return { kind: 'fatal', error };
}

/** `Retry-After` as delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The answer body, untrusted: every field is checked where it is read. */
interface AnswerBody {
  accepted?: unknown;
  duplicates?: unknown;
  error?: { code?: unknown; message?: unknown; details?: unknown };
}

function parseJson(text: string): AnswerBody | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' ? (v as AnswerBody) : undefined;
  } catch {
    return undefined; // not JSON (a proxy's error page): the status alone decides
  }
}

function num(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

function issuesOf(body: AnswerBody | undefined): Issue[] {
  const details = body?.error?.details;
  if (!Array.isArray(details)) return [];
  return details
    .filter((d): d is Record<string, unknown> => d !== null && typeof d === 'object')
    .map((d) => ({
      ...(typeof d.index === 'number' && Number.isInteger(d.index) ? { index: d.index } : {}),
      path: typeof d.path === 'string' ? d.path : '',
      message: typeof d.message === 'string' ? d.message : 'rejected',
    }));
}
