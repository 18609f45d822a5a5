/**
 * The event flow, written once: for each queue, the status an event waits in before that stage,
 * the status the stage holds it in while it works, the statuses it moves it to, and the providers
 * the stage calls. Everything else that knows the flow reads it from here (the test
 * `src/queue/flow.test.ts` lists where), and the database refuses any other status (CHECK
 * constraint `events_status_check`, migration 20261209000000_event_status_check).
 *
 * Adding a stage: its folder under `workers/`, its name in `names.ts`, and one entry below.
 * No I/O.
 */
import { isQueueName, QUEUE_NAMES, type QueueName } from './names.js';

/**
 * Every status an event can have, in flow order: `received → triaged → chunked → embedded →
 * extracting → done`, or `skipped` (triage, with a `skip_reason`), or `failed` (its job was
 * dead-lettered; a retry puts it back where its stage waits for it).
 */
export const EVENT_STATUSES = ['received', 'triaged', 'chunked', 'embedded', 'extracting', 'done', 'skipped', 'failed'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

/** The status a stored event starts in (the column's default). */
export const FIRST_STATUS = 'received' satisfies EventStatus;
/** Statuses no stage waits for: `pending_events` counts every other one (events_pending_idx). */
export const FINISHED_STATUSES = ['done', 'skipped', 'failed'] as const satisfies readonly EventStatus[];
export type FinishedStatus = (typeof FINISHED_STATUSES)[number];
export type UnfinishedStatus = Exclude<EventStatus, FinishedStatus>;
export const isFinished = (status: string): status is FinishedStatus => (FINISHED_STATUSES as readonly string[]).includes(status);
/** A dead-lettered job's events (src/db/sql/failed-events.ts). */
export const FAILED_STATUS = 'failed' satisfies FinishedStatus;

export type ProviderName = 'embeddings' | 'llm';

export interface StageFlow {
  /** The status an event waits in for this stage (what its claim selects); null: its jobs carry no events. */
  waits: EventStatus | null;
  /** The status the stage holds its events in while it works (a claim that expires), if any. */
  holds: EventStatus | null;
  /** The statuses the stage moves its events to. */
  sets: readonly EventStatus[];
  /** Which providers the stage calls (a paid one is checked before its worker consumes; src/queue/readiness.ts). */
  providers: readonly ProviderName[];
}

/** Typed by QueueName: a queue without an entry (or an entry without a queue) does not compile. */
export const FLOW = {
  triage: { waits: 'received', holds: null, sets: ['triaged', 'skipped'], providers: [] },
  chunk: { waits: 'triaged', holds: null, sets: ['chunked'], providers: [] },
  // to `embedded` when extraction is pending (triage's extract_pending), else `done`
  embed: { waits: 'chunked', holds: null, sets: ['embedded', 'done'], providers: ['embeddings'] },
  extract: { waits: 'embedded', holds: 'extracting', sets: ['done'], providers: ['llm', 'embeddings'] },
  dream: { waits: null, holds: null, sets: [], providers: ['llm', 'embeddings'] },
  briefing: { waits: null, holds: null, sets: [], providers: ['llm'] },
  maintenance: { waits: null, holds: null, sets: [], providers: [] },
} as const satisfies Readonly<Record<QueueName, StageFlow>>;

/** One stage's entry, typed as the interface (FLOW's own type keeps the literals). */
export const flowOf = (queue: QueueName): StageFlow => FLOW[queue];

/** Queues whose jobs carry events (`eventIds`) or an extraction key, in flow order. */
export const EVENT_QUEUES: readonly QueueName[] = QUEUE_NAMES.filter((q) => flowOf(q).waits !== null);

/** The statuses an event is in while `queue`'s stage still has to act on it (waiting or held); empty for queues without events. */
export function statusesBefore(queue: string): EventStatus[] {
  const flow = isQueueName(queue) ? flowOf(queue) : undefined;
  if (!flow?.waits) return [];
  return flow.holds ? [flow.waits, flow.holds] : [flow.waits];
}

/** Statuses of an event whose chunks or vectors are not all stored yet: it waits for triage, chunk or embed. */
export const UNEMBEDDED_STATUSES = [FLOW.triage.waits, FLOW.chunk.waits, FLOW.embed.waits] as const;

/**
 * A list of statuses as SQL literals (`'done', 'skipped', 'failed'`), for a query whose predicate
 * must stay literal: the planner uses a partial index (events_pending_idx) only when it can prove
 * the index's predicate from the query text, which a bound parameter does not allow.
 */
export function sqlStatuses(statuses: readonly EventStatus[]): string {
  return statuses.map((s) => `'${s}'`).join(', ');
}
