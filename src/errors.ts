/**
 * One error type for everything memloom throws on purpose. `code` is stable (clients and tests match
 * on it), `kind` decides the HTTP status and whether a job retries, `details` holds JSON scalars only
 * so it is always safe to log. Every code is listed, with its meaning, in src/error-codes.ts.
 */
import type { ErrorCode } from './error-codes.js';

export type { ErrorCode } from './error-codes.js';

export type ErrorKind =
  | 'input'
  | 'not_found'
  | 'conflict'
  | 'upstream'
  | 'internal'
  | 'unavailable'
  | 'too_large'
  | 'rate_limited'
  | 'unauthorized'
  | 'forbidden';

export type ErrorDetails = Record<string, string | number | boolean | null>;

export interface MemloomErrorOptions {
  kind: ErrorKind;
  retryable?: boolean;
  retryAfterMs?: number;
  details?: ErrorDetails;
  cause?: unknown;
}

export class MemloomError extends Error {
  readonly code: ErrorCode;
  readonly kind: ErrorKind;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly details: ErrorDetails | undefined;

  constructor(code: ErrorCode, message: string, opts: MemloomErrorOptions) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'MemloomError';
    this.code = code;
    this.kind = opts.kind;
    this.retryable = opts.retryable ?? (opts.kind === 'upstream' || opts.kind === 'unavailable' || opts.kind === 'rate_limited');
    this.retryAfterMs = opts.retryAfterMs;
    this.details = opts.details;
  }
}

export const HTTP_STATUS: Record<ErrorKind, number> = {
  input: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  rate_limited: 429,
  internal: 500,
  upstream: 502,
  unavailable: 503,
};

/**
 * A code another memloom answered over HTTP (`error.code`), kept as sent: a newer server may
 * answer a code this version does not list, and the CLI and client pass it on rather than hide it.
 */
export function answeredCode(code: string): ErrorCode {
  return code as ErrorCode;
}

export function isMemloomError(err: unknown): err is MemloomError {
  return err instanceof MemloomError;
}

/** One problem in a request body: which item (in a batch), where in it (JSON path) and what. */
export interface InputIssue {
  index?: number;
  path: string;
  message: string;
}

/** Bad input with per-item details; HTTP answers it as `error.details[]`. */
export class InputError extends MemloomError {
  readonly issues: InputIssue[];
  constructor(message: string, issues: InputIssue[], code: ErrorCode = 'INPUT_INVALID') {
    super(code, message, { kind: 'input', retryable: false });
    this.issues = issues;
  }
}
