import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers, type RunningWorkers } from '../src/queue/runner.js';
import { CATALOG } from '../workers/catalog.js';
import { getJson, startTestMemloom, type TestMemloom } from './support/memloom.js';
import { poisonWrites } from './support/owner-sql.js';
import { ingest, sql, TENANT, throughEmbed, waitForDeadLetter, waitForJob } from './support/pipeline.js';
import { runStage } from './support/pipeline.js';
import { triage } from '../workers/triage/handler.js';

/**
 * A job that fails for good leaves a dead letter, a failed BullMQ job (Bull Board) and failed
 * events that name the cause — the error's class, its code and its message without the values
 * it quoted — where they used to say only `JOB_FAILED "Internal error."`. The failures are
 * genuine database errors, raised by a trigger on poisoned content (nothing is mocked).
 */
describe('what a dead letter says', () => {
  let m: TestMemloom;
  let workers: RunningWorkers | undefined;
  // Content a cause must never carry: the trigger quotes it in its error message.
  const SECRET = 'Zebra-Quokka launch codes';
  beforeAll(async () => {
    m = await startTestMemloom({ env: { EXTRACT_DEBOUNCE_MS: '0' }, roles: { api: true, workers: [] } });
  });
  afterAll(async () => {
    await workers?.close();
    await m?.close();
  });

  function expectNoContent(...texts: Array<string | undefined | null>) {
    for (const t of texts) {
      expect(t ?? '').not.toContain('Zebra');
      expect(t ?? '').not.toContain('Quokka');
    }
  }

  it('a data error fails its job at once, naming class, SQLSTATE and a content-free message', async () => {
    const ids = await ingest(m.deps, [{ session_id: 'dl-data', user_id: 'u-dl', content: `We decided to use the ${SECRET} on Friday.` }]);
    await throughEmbed(m.deps, ids);
    const cure = await poisonWrites(m.deps, 'memories', 'content', 'Zebra', '22008');
    try {
      workers = startWorkers(m.deps, CATALOG, ['extract']);
      const queue = m.deps.queues.get('extract');
      await queue.add(
        'extract',
        { tenantId: TENANT, extractKey: 'session:dl-data' },
        { jobId: 'dl-data-job', attempts: 5, backoff: { type: 'fixed', delay: 10 } },
      );
      const { job, state } = await waitForJob(queue, 'dl-data-job', ['failed', 'completed']);
      expect(state).toBe('failed');
      // A retry would fail the same way: one attempt, not five.
      expect(job.attemptsMade).toBe(1);
      expect(job.failedReason).toBe('DATA_REJECTED: The database rejected the data. (DatabaseError 22008: poisoned test row: "…")');
      // Bull Board shows the stack: where it was thrown, without the message's values.
      expect(job.stacktrace?.[0]).toMatch(/^UnrecoverableError: DATA_REJECTED: .*\n\s+at /);
      const dead = await waitForDeadLetter(m.deps.db, 'extract', 'dl-data-job');
      expect(dead.code).toBe('DATA_REJECTED');
      expect(dead.message).toBe(job.failedReason);
      const [event] = await sql<{ status: string; error: string }>(m.deps.db, 'SELECT status, error FROM events WHERE id = $1', [ids[0]]);
      expect(event).toEqual({ status: 'failed', error: job.failedReason });
      const listed = await getJson(`${m.url}/v1/dead-letters`);
      expect(listed.body.dead_letters.find((d: { job_id: string }) => d.job_id === 'dl-data-job')).toMatchObject({
        code: 'DATA_REJECTED',
        message: job.failedReason,
      });
      expectNoContent(job.failedReason, ...(job.stacktrace ?? []), dead.message, JSON.stringify(listed.body));
    } finally {
      await workers?.close();
      workers = undefined;
      await cure();
    }
  });

  it('an internal error is retried, and once its attempts run out the dead letter names the cause', async () => {
    const ids = await ingest(m.deps, [{ session_id: 'dl-int', user_id: 'u-dl', content: `The ${SECRET} are in the safe.` }]);
    await runStage(m.deps, triage, { tenantId: TENANT, eventIds: ids });
    const cure = await poisonWrites(m.deps, 'chunks', 'content', 'Zebra', 'XX000');
    try {
      workers = startWorkers(m.deps, CATALOG, ['chunk']);
      const queue = m.deps.queues.get('chunk');
      await queue.add('chunk', { tenantId: TENANT, eventIds: ids }, { jobId: 'dl-int-job', attempts: 2, backoff: { type: 'fixed', delay: 10 } });
      const { job, state } = await waitForJob(queue, 'dl-int-job', ['failed', 'completed']);
      expect(state).toBe('failed');
      expect(job.attemptsMade).toBe(2);
      expect(job.failedReason).toBe('INTERNAL: Internal error. (DatabaseError XX000: poisoned test row: "…")');
      expect(job.stacktrace?.[0]).toMatch(/^JobFailure: INTERNAL: .*\n\s+at /);
      const dead = await waitForDeadLetter(m.deps.db, 'chunk', 'dl-int-job');
      expect(dead).toMatchObject({ code: 'INTERNAL', message: job.failedReason });
      expectNoContent(job.failedReason, ...(job.stacktrace ?? []), dead.message);
    } finally {
      await workers?.close();
      workers = undefined;
      await cure();
    }
  });
});
