import { ZodError } from 'zod';
import { MemloomError } from './errors.js';

/** PostgreSQL error classes that mean "the database cannot take the work now". */
const UNAVAILABLE_PG = new Set(['57P01', '57P02', '57P03', '53300', '08000', '08003', '08006', '08001', '08004']);
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);

/**
 * SQLSTATE classes a retry cannot cure: 22 data exception (a value out of range, an invalid
 * encoding), 54 program limit exceeded (a row or statement too large). Not 23 (a foreign key can
 * fail while a concurrent forget deletes the event; the retry then finds nothing to do) nor 40
 * (deadlock, serialization: retry is the cure).
 */
const PERMANENT_PG_CLASSES = new Set(['22', '54']);

/** node-postgres's DatabaseError: a five-character SQLSTATE and a severity. */
function isPgError(err: unknown): err is { code: string; severity: string } {
  const e = err as { code?: unknown; severity?: unknown };
  return typeof e?.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && typeof e.severity === 'string';
}

/**
 * One translator from foreign errors (zod, pg, network) to MemloomError. Provider (OpenAI SDK)
 * errors have their own translator in src/providers/errors.ts because they carry HTTP semantics.
 */
export function translateError(err: unknown): MemloomError {
  if (err instanceof MemloomError) return err;
  if (err instanceof ZodError) {
    const first = err.issues[0];
    return new MemloomError('INPUT_INVALID', first ? `${first.path.join('.') || 'input'}: ${first.message}` : 'Invalid input.', {
      kind: 'input',
      retryable: false,
    });
  }
  const e = err as { code?: string; message?: string };
  if (typeof e?.code === 'string' && (UNAVAILABLE_PG.has(e.code) || NETWORK.has(e.code))) {
    return new MemloomError('DATABASE_UNAVAILABLE', 'The database cannot be reached.', { kind: 'unavailable', cause: err, details: { cause: e.code } });
  }
  if (
    typeof e?.message === 'string' &&
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(e.message)
  ) {
    return new MemloomError('DATABASE_UNAVAILABLE', 'The database cannot be reached.', { kind: 'unavailable', cause: err });
  }
  if (typeof e?.code === 'string' && e.code === '23505') {
    return new MemloomError('CONFLICT', 'A row with the same key exists.', { kind: 'conflict', retryable: false, cause: err });
  }
  // The same statement with the same data fails the same way: no retry (a job fails at once, as a
  // dead letter naming the cause, instead of after 15 attempts).
  if (isPgError(err) && PERMANENT_PG_CLASSES.has(err.code.slice(0, 2))) {
    return new MemloomError('DATA_REJECTED', 'The database rejected the data.', {
      kind: 'internal',
      retryable: false,
      cause: err,
      details: { sqlstate: err.code },
    });
  }
  return new MemloomError('INTERNAL', 'Internal error.', { kind: 'internal', retryable: true, cause: err });
}
