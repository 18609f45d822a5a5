import { MemloomError } from './errors.js';

/*
 * What went wrong, in words safe to keep where operators look (dead letters, Bull Board's failed
 * jobs, an event's `error`, logs): the error's class, its code (PostgreSQL's SQLSTATE, a Node
 * system error code, a MemloomError code) and its message with every quoted value removed, so no
 * event text, prompt or vector travels with it. A bare "Internal error." named no cause.
 */

/** Words before a double-quoted name in PostgreSQL's messages: the name is the schema's, not data. */
const NAMED =
  /\b(?:constraint|relation|column|table|index|function|type|schema|encoding|role|sequence|trigger|operator|extension|database|view|parameter)\s+$/i;
const MAX = 300;

/**
 * A message without values: double-quoted strings become "…" unless a schema word names them
 * (`constraint "events_pkey"`), single-quoted ones longer than a code identifier too, and what
 * follows `: ` at the end of a data error (PostgreSQL writes the offending value there) is cut.
 * The first line only, at most 300 characters.
 */
export function contentFree(message: string): string {
  let s = (message.split('\n')[0] ?? '').trim();
  s = s.replace(/"(?:[^"\\]|\\.)*"/g, (quoted, offset: number) => (NAMED.test(s.slice(0, offset)) && quoted.length <= 66 ? quoted : '"…"'));
  s = s.replace(/'(?:[^'\\]|\\.)*'/g, (quoted) => (/^'[A-Za-z_$][\w$.]{0,40}'$/.test(quoted) ? quoted : "'…'"));
  s = s.replace(/\b(?:0x[0-9a-f]{2}\s?)+$/i, '…');
  return s.length > MAX ? `${s.slice(0, MAX - 1)}…` : s;
}

/** `Class code: message` of one error (no cause), content-free. */
function describeOne(err: unknown): string {
  if (err instanceof MemloomError) return `${err.code}: ${contentFree(err.message)}`;
  if (err instanceof Error || (typeof err === 'object' && err !== null)) {
    const e = err as { name?: unknown; constructor?: { name?: unknown }; code?: unknown; message?: unknown };
    const cls = typeof e.constructor?.name === 'string' && e.constructor.name !== 'Object' ? e.constructor.name : typeof e.name === 'string' ? e.name : 'Error';
    const code = typeof e.code === 'string' || typeof e.code === 'number' ? ` ${e.code}` : '';
    return `${cls}${code}: ${contentFree(typeof e.message === 'string' ? e.message : '')}`;
  }
  return `${typeof err}: ${contentFree(String(err))}`;
}

/**
 * The reason a job failed, as BullMQ's failedReason and the dead letter keep it:
 * `CODE: message (Class code: cause message)`, each cause of the chain in turn (at most three).
 * Starts with the MemloomError's code, which insertJobDeadLetter takes as the dead letter's code.
 */
export function failureReason(e: MemloomError): string {
  const causes: string[] = [];
  let cause: unknown = e.cause;
  for (let depth = 0; cause !== undefined && cause !== null && depth < 3; depth++) {
    causes.push(describeOne(cause));
    cause = (cause as { cause?: unknown }).cause;
  }
  return `${e.code}: ${contentFree(e.message)}${causes.length > 0 ? ` (${causes.join('; ')})` : ''}`;
}

/**
 * A stack for the failure: its reason, then the frames of the deepest cause that has any (where
 * the problem was thrown: file, line and function names only, never its message).
 */
export function failureStack(name: string, reason: string, e: MemloomError): string {
  let frames: string[] = [];
  for (let err: unknown = e, depth = 0; err !== undefined && err !== null && depth < 4; depth++) {
    const stack = (err as { stack?: unknown }).stack;
    const own = typeof stack === 'string' ? stack.split('\n').filter((l) => /^\s+at /.test(l)) : [];
    if (own.length > 0) frames = own;
    err = (err as { cause?: unknown }).cause;
  }
  return [`${name}: ${reason}`, ...frames.slice(0, 20)].join('\n');
}
