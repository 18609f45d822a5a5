import { setTimeout as sleep } from 'node:timers/promises';
import type { MemloomError } from '../../src/errors.js';
import { postEvents, type HttpOptions, type Issue } from './http.js';
import type { WireEvent } from './wire.js';

export interface TransportOptions extends HttpOptions {
  /** Retries per batch after the first request (network errors, 408, 429, 5xx) before giving up. */
  maxRetries: number;
  backoffBaseMs: number;
  backoffCapMs: number;
  /** Longest `Retry-After` honoured; a longer one is clamped so a batch is never parked for hours. */
  maxRetryAfterMs: number;
  /** Called before each wait, for stats and tests. */
  onRetry?: (info: { attempt: number; delayMs: number; error: MemloomError }) => void;
}

/** An event the API refused for what it is (never retried, never spilled). */
export interface Rejection {
  event: WireEvent;
  code: 'EVENT_REJECTED' | 'EVENT_TOO_LARGE';
  issues: Issue[];
}

export interface Delivery {
  accepted: number;
  duplicates: number;
  rejected: Rejection[];
  /** Events the API could not take (unreachable, retries exhausted, 401…): the caller spills or reports them. */
  undelivered: WireEvent[];
  /** Why `undelivered` is not empty. */
  error: MemloomError | undefined;
  requests: number;
  retries: number;
}

/** Full jitter (AWS architecture blog, "Exponential Backoff and Jitter"): uniform in [0, min(cap, base·2^attempt)]. */
export function backoffMs(attempt: number, baseMs: number, capMs: number, random: () => number = Math.random): number {
  return Math.floor(random() * Math.min(capMs, baseMs * 2 ** attempt));
}

/**
 * Delivers one batch through POST /v1/events, in order, one request at a time:
 * - 202 → done; rejected indexes (a partial batch) are reported, the rest were stored;
 * - 400 with details → only the named events are dropped, the rest is sent again;
 * - 413 → the batch is split in half (a single event too large is rejected);
 * - network error, 408, 429, 5xx → retried after `Retry-After` or a jittered backoff;
 * - anything else, or retries exhausted → `undelivered`.
 * Never throws. Every event ends in exactly one of accepted/duplicates, rejected or undelivered.
 */
export async function deliver(batch: readonly WireEvent[], t: TransportOptions): Promise<Delivery> {
  const out: Delivery = { accepted: 0, duplicates: 0, rejected: [], undelivered: [], error: undefined, requests: 0, retries: 0 };
  await deliverInto(batch, t, out);
  return out;
}

async function deliverInto(batch: readonly WireEvent[], t: TransportOptions, out: Delivery): Promise<void> {
  let pending = batch;
  let attempt = 0;
  while (pending.length > 0) {
    const answer = await postEvents(pending, t);
    out.requests++;
    switch (answer.kind) {
      case 'stored':
        out.accepted += answer.accepted;
        out.duplicates += answer.duplicates;
        out.rejected.push(...rejectionsOf(pending, answer.issues).rejected);
        return;
      case 'invalid': {
        const { rejected, rest } = rejectionsOf(pending, answer.issues);
        if (rejected.length === 0) {
          // No usable index (e.g. the body as a whole was refused): nothing in this batch can be stored.
          out.rejected.push(
            ...pending.map((event) => ({ event, code: 'EVENT_REJECTED' as const, issues: [{ path: '', message: `${answer.code}: ${answer.message}` }] })),
          );
          return;
        }
        out.rejected.push(...rejected);
        pending = rest;
        continue;
      }
      case 'too_large': {
        const [only] = pending;
        if (pending.length === 1 && only) {
          out.rejected.push({
            event: only,
            code: 'EVENT_TOO_LARGE',
            issues: [{ path: '', message: `the event (${only.bytes} bytes as JSON) is over the API's size limit` }],
          });
          return;
        }
        const mid = Math.ceil(pending.length / 2);
        const before = out.undelivered.length;
        await deliverInto(pending.slice(0, mid), t, out);
        // The first half could not get through (API down): do not spend another round of retries on the second.
        if (out.undelivered.length > before) out.undelivered.push(...pending.slice(mid));
        else await deliverInto(pending.slice(mid), t, out);
        return;
      }
      case 'retry': {
        if (attempt >= t.maxRetries) {
          out.undelivered.push(...pending);
          out.error = answer.error;
          return;
        }
        const delayMs = answer.afterMs !== undefined ? Math.min(answer.afterMs, t.maxRetryAfterMs) : backoffMs(attempt, t.backoffBaseMs, t.backoffCapMs);
        attempt++;
        out.retries++;
        t.onRetry?.({ attempt, delayMs, error: answer.error });
        await sleep(delayMs);
        continue;
      }
      case 'fatal':
        out.undelivered.push(...pending);
        out.error = answer.error;
        return;
    }
  }
}

/** Splits a batch by the indexes named in `error.details[]`: one rejection per event (all its issues), and the rest. */
function rejectionsOf(batch: readonly WireEvent[], issues: Issue[]): { rejected: Rejection[]; rest: WireEvent[] } {
  const byIndex = new Map<number, Issue[]>();
  for (const issue of issues) {
    if (issue.index === undefined || issue.index < 0 || issue.index >= batch.length) continue;
    const list = byIndex.get(issue.index) ?? [];
    list.push(issue);
    byIndex.set(issue.index, list);
  }
  const rejected: Rejection[] = [];
  const rest: WireEvent[] = [];
  batch.forEach((event, index) => {
    const found = byIndex.get(index);
    if (found) rejected.push({ event, code: 'EVENT_REJECTED', issues: found });
    else rest.push(event);
  });
  return { rejected, rest };
}
