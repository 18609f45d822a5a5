import type { Job } from 'bullmq';
import { listTenants, withTenant } from '../../src/db/pool.js';
import { findUnfinished, stillUnfinished, type UnfinishedEvent } from '../../src/db/sql/lost-work.js';
import type { Deps } from '../../src/deps.js';
import { enqueueAll } from '../../src/queue/enqueue.js';
import { EVENT_QUEUES, FLOW, statusesBefore } from '../../src/queue/flow.js';
import type { NextJob } from '../../src/queue/stage.js';
import { TRIAGE_BATCH } from '../../src/queue/triage-jobs.js';
import { chunkJob, chunkKey } from '../chunk/schema.js';
import { embedJob, embedKey } from '../embed/schema.js';
import { extractJob, extractKey, extractLeaseMs } from '../extract/schema.js';

// Queues are read in flow order (EVENT_QUEUES), and the states in the order a job moves through them: a job that moves on while one state is read is seen in
// a later one. A failed job counts as holding its events: it is dead-lettered and waits for a
// retry (POST /v1/jobs/retry); queueing its events again would only fail again every tick.
const LIVE_STATES = ['delayed', 'prioritized', 'waiting', 'waiting-children', 'active', 'failed'] as const;
/** Jobs read per queue and state; a deeper backlog is taken as covering everything (see below). */
const SCAN_LIMIT = 20_000;
/** Unfinished events looked at per tenant and tick. */
const BATCH = 5_000;

interface Coverage {
  events: Set<string>;
  keys: Set<string>;
  /** A queue had more live jobs than were read: nothing can be called lost this tick. */
  truncated: boolean;
}

/**
 * Every event or extraction key some live job of the pipeline still holds. Read in flow order,
 * after the unfinished events were read: a job that moves an event on enqueues the next stage's
 * job before it completes, so an event in flight is seen in its current queue or a later one,
 * unless it went through the last stage meanwhile (the caller re-reads the events afterwards).
 * Reads are not atomic (a retry moves a job back from active to delayed), so the caller reads
 * twice and calls lost only what neither read saw.
 */
async function liveCoverage(deps: Deps, cover: Coverage = { events: new Set(), keys: new Set(), truncated: false }): Promise<Coverage> {
  for (const name of EVENT_QUEUES) {
    const queue = deps.queues.get(name);
    for (const state of LIVE_STATES) {
      const jobs: Array<Job | undefined> = await queue.getJobs([state], 0, SCAN_LIMIT - 1);
      if (jobs.length >= SCAN_LIMIT) cover.truncated = true;
      for (const job of jobs) {
        const d = job?.data as { tenantId?: unknown; eventIds?: unknown; extractKey?: unknown } | undefined;
        if (!d || typeof d.tenantId !== 'string') continue;
        if (Array.isArray(d.eventIds)) for (const id of d.eventIds) if (typeof id === 'string') cover.events.add(id);
        if (typeof d.extractKey === 'string') cover.keys.add(`${d.tenantId}\u0000${d.extractKey}`);
      }
    }
  }
  return cover;
}

/** Events that extraction holds by key (waiting for it or claimed by it), not by id. */
const byKey = (e: UnfinishedEvent) => statusesBefore('extract').includes(e.status);

/** A job id of its own per tick: a completed job that kept the stage's usual id would swallow the add. */
const tick = () => `r${Date.now().toString(36)}`;

/** The jobs that carry unfinished events no live job holds on to the stage each one needs next. */
function jobsFor(deps: Deps, tenantId: string, lost: UnfinishedEvent[]): Array<NextJob & { jobId: string }> {
  const jobs: Array<NextJob & { jobId: string }> = [];
  const t = tick();
  const byStatus = (s: UnfinishedEvent['status']) => lost.filter((e) => e.status === s).map((e) => e.id);
  const slices = (ids: string[], size: number) => Array.from({ length: Math.ceil(ids.length / size) }, (_, i) => ids.slice(i * size, (i + 1) * size));
  for (const eventIds of slices(byStatus(FLOW.triage.waits), TRIAGE_BATCH)) {
    jobs.push({ stage: 'triage', input: { tenantId, eventIds }, jobId: `triage-${tenantId}-${t}-${jobs.length}` });
  }
  for (const ids of slices(byStatus(FLOW.chunk.waits), 1000)) {
    const j = chunkJob(tenantId, ids);
    jobs.push({ ...j, jobId: `${chunkKey({ tenantId, eventIds: ids })}-${t}` });
  }
  for (const ids of slices(byStatus(FLOW.embed.waits), 1000)) {
    const j = embedJob(tenantId, ids);
    jobs.push({ ...j, jobId: `${embedKey({ tenantId, eventIds: ids })}-${t}` });
  }
  const oldestByKey = new Map<string, Date>();
  for (const e of lost) {
    if (!byKey(e) || e.extract_key === null) continue;
    const seen = oldestByKey.get(e.extract_key);
    if (!seen || e.received_at < seen) oldestByKey.set(e.extract_key, e.received_at);
  }
  for (const [key, oldest] of oldestByKey) {
    const j = extractJob(deps.config, tenantId, key, oldest);
    jobs.push({ ...j, jobId: extractKey({ tenantId, extractKey: key }) });
  }
  return jobs;
}

/**
 * The queue is not the source of truth: after a queue loss (Redis restarted without persistence,
 * flushed, failed over to a replica that missed writes) stored events sit half-way with no job to
 * move them. This finds unfinished events older than `graceMs` that no live job holds and queues
 * the stage each one needs next. Safe to run at any time: every stage acts on stored state only
 * (triage claims `received` events, chunk takes `triaged` ones, embed finds chunks without
 * vectors, extract claims by key), so a job added for an event another job also carries does no
 * work twice.
 */
export async function requeueLostWork(deps: Deps, graceMs: number): Promise<{ requeued: number; jobs: number; truncated: boolean }> {
  const unfinished: Array<[string, UnfinishedEvent[]]> = [];
  for (const tenantId of await listTenants(deps.db)) {
    const rows = await withTenant(deps.db, tenantId, (tx) => findUnfinished(tx, graceMs, extractLeaseMs(deps.config), BATCH));
    if (rows.length > 0) unfinished.push([tenantId, rows]);
  }
  if (unfinished.length === 0) return { requeued: 0, jobs: 0, truncated: false };
  const cover = await liveCoverage(deps, await liveCoverage(deps));
  // A backlog deeper than the scan may hold any event: wait for it to shrink rather than double it.
  if (cover.truncated) return { requeued: 0, jobs: 0, truncated: true };
  let requeued = 0;
  let jobs = 0;
  for (const [tenantId, rows] of unfinished) {
    const uncovered = rows.filter((e) => (byKey(e) ? e.extract_key !== null && !cover.keys.has(`${tenantId}\u0000${e.extract_key}`) : !cover.events.has(e.id)));
    // an event read before the queues may have gone through every stage since: not lost, finished
    const lost = await withTenant(deps.db, tenantId, (tx) => stillUnfinished(tx, uncovered));
    if (lost.length === 0) continue;
    const next = jobsFor(deps, tenantId, lost);
    await enqueueAll(deps.queues, next);
    requeued += lost.length;
    jobs += next.length;
  }
  return { requeued, jobs, truncated: false };
}
