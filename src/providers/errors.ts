/**
 * The one place where OpenAI-compatible provider failures become MemloomErrors (STYLE "Errors").
 * Workers decide retry/back-off from `code`, `retryable` and `retryAfterMs` alone, so every provider
 * implementation wraps its SDK calls with `translateProviderError` and never inspects SDK errors itself.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { MemloomError, type ErrorDetails } from '../errors.js';
import { PROVIDER_CODES } from './codes.js';

const MAX_MESSAGE = 500;

export { PROVIDER_CODES };

/**
 * Turns anything an SDK call threw into a MemloomError. `context` (e.g. `{ provider, model }`) is
 * merged into `details`; it must hold JSON scalars only, never prompt text.
 */
export function translateProviderError(err: unknown, context: ErrorDetails = {}): MemloomError {
  if (err instanceof MemloomError) return err;

  // Connection failures and timeouts carry no status (APIConnectionTimeoutError extends APIConnectionError).
  if (err instanceof APIConnectionError) {
    const timeout = err instanceof APIConnectionTimeoutError;
    return new MemloomError(PROVIDER_CODES.unavailable, timeout ? 'Provider request timed out' : 'Provider connection failed', {
      kind: 'upstream',
      retryable: true,
      details: { ...context, reason: timeout ? 'timeout' : 'connection' },
      cause: err,
    });
  }

  if (err instanceof APIError) {
    const status = err.status;
    const details: ErrorDetails = {
      ...context,
      status: status ?? null,
      providerCode: typeof err.code === 'string' ? err.code : null,
      providerMessage: truncate(err.message, MAX_MESSAGE),
    };
    if (err.requestID) details.requestId = err.requestID;

    if (status === 429) {
      const retryAfterMs = parseRetryAfter(err.headers);
      return new MemloomError(PROVIDER_CODES.rateLimited, 'Provider rate limit reached', {
        kind: 'rate_limited',
        retryable: true,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
        details,
        cause: err,
      });
    }
    if (status === 401 || status === 403) {
      // Our caller's request was fine; memloom's provider credentials are not. Retrying cannot help.
      return new MemloomError(PROVIDER_CODES.auth, 'Provider rejected the credentials', {
        kind: 'upstream',
        retryable: false,
        details,
        cause: err,
      });
    }
    // 408/409 are transient by OpenAI's own convention (the SDK retries them); undefined = no response.
    if (status === undefined || status >= 500 || status === 408 || status === 409) {
      return new MemloomError(PROVIDER_CODES.unavailable, 'Provider is unavailable', {
        kind: 'upstream',
        retryable: true,
        details,
        cause: err,
      });
    }
    return new MemloomError(PROVIDER_CODES.badRequest, 'Provider rejected the request', {
      kind: 'input',
      retryable: false,
      details,
      cause: err,
    });
  }

  // The SDK parses JSON bodies itself, so a garbled body surfaces as a SyntaxError.
  if (err instanceof SyntaxError) return badProviderResponse('Provider answered with malformed JSON', context, err);

  return new MemloomError(PROVIDER_CODES.unknown, 'Unexpected provider failure', {
    kind: 'internal',
    retryable: false,
    details: { ...context, error: err instanceof Error ? truncate(err.message, MAX_MESSAGE) : truncate(String(err), MAX_MESSAGE) },
    cause: err,
  });
}

/** For answers that parsed but are not what the protocol promises (wrong shape, wrong vector length). */
export function badProviderResponse(message: string, details: ErrorDetails = {}, cause?: unknown): MemloomError {
  return new MemloomError(PROVIDER_CODES.badResponse, message, {
    kind: 'upstream',
    retryable: true,
    details,
    ...(cause === undefined ? {} : { cause }),
  });
}

type HeaderSource = Headers | Record<string, string | string[] | undefined> | undefined | null;

/**
 * Milliseconds to wait from `retry-after-ms` (OpenAI), else `retry-after` as seconds or an HTTP
 * date. Undefined when absent or unparseable; never negative.
 */
export function parseRetryAfter(headers: HeaderSource, now: number = Date.now()): number | undefined {
  const ms = Number.parseFloat(header(headers, 'retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return Math.ceil(ms);

  const value = header(headers, 'retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number.parseFloat(value) * 1000);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

function header(headers: HeaderSource, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const v = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(v) ? v[0] : v;
}

function truncate(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max)}…`;
}
