import { randomUUID } from 'node:crypto';
import { MemloomError } from '../../src/errors.js';
// Type-only: the client never loads zod; the server (and the watcher) are the validators.
import type { EVENT_ROLES, EVENT_TYPES } from '../../src/events/constants.js';

/** One event as an agent writes it (docs/architecture.md, "The write path"). Only `content` is required. */
export interface MemloomEvent {
  /** Idempotency key (≤ 200 chars); generated when absent so retries and spills never double an event. */
  id?: string;
  dataset?: string;
  user_id?: string;
  agent_id?: string;
  session_id?: string;
  type?: (typeof EVENT_TYPES)[number];
  role?: (typeof EVENT_ROLES)[number];
  content: string;
  occurred_at?: string | Date;
  importance?: number;
  ttl?: string;
  metadata?: Record<string, unknown>;
}

/** Fields applied to every event that does not set them itself. */
export type EventDefaults = Partial<Pick<MemloomEvent, 'dataset' | 'user_id' | 'agent_id' | 'session_id'>>;

/**
 * An event ready for the wire, serialized once: a retry, a split batch and a spill file line all
 * carry the same bytes and the same `id`, which is what makes them idempotent end to end.
 */
export interface WireEvent {
  id: string;
  /** The event as one line of JSON (never contains a raw newline). */
  json: string;
  bytes: number;
  /** Where the event came from, for messages (the CLI: `file:line`). */
  ref?: string;
}

export type WireResult = { ok: true; event: WireEvent } | { ok: false; id: string; error: MemloomError };

const MAX_ID_CHARS = 200;

/** Builds a wire event from caller input with cheap checks only; never throws (getters, cycles and BigInts included). */
export function toWireEvent(input: unknown, defaults: EventDefaults): WireResult {
  let id: string = randomUUID();
  const invalid = (reason: string): WireResult => ({
    ok: false,
    id,
    error: new MemloomError('EVENT_INVALID', `Event dropped: ${reason}`, { kind: 'input', details: { eventId: id, reason } }),
  });
  try {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) return invalid('an event must be an object');
    const e = input as Record<string, unknown>;
    if (e.id !== undefined && e.id !== null) {
      if (typeof e.id !== 'string' || e.id.trim() === '' || e.id.length > MAX_ID_CHARS)
        return invalid(`id must be a non-empty string of at most ${MAX_ID_CHARS} characters`);
      id = e.id;
    }
    if (typeof e.content !== 'string' || e.content.trim() === '') return invalid('content must be a non-empty string');
    const event: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(defaults)) if (v !== undefined) event[k] = v;
    for (const [k, v] of Object.entries(e)) if (v !== undefined) event[k] = v;
    event.id = id;
    if (event.occurred_at instanceof Date) event.occurred_at = event.occurred_at.toISOString();
    const json = JSON.stringify(event);
    return { ok: true, event: { id, json, bytes: Buffer.byteLength(json) } };
  } catch (err) {
    return invalid(`cannot serialize the event (${err instanceof Error ? err.message : String(err)})`);
  }
}

/** The request body for a batch, assembled from the pre-serialized events. */
export function batchBody(events: readonly WireEvent[]): string {
  return `{"events":[${events.map((e) => e.json).join(',')}]}`;
}

/** JSON lines as the watcher reads them: one event per line, each ending in \n. */
export function jsonLines(events: readonly WireEvent[]): string {
  return events.map((e) => `${e.json}\n`).join('');
}
