import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * CPU time of this process by pipeline stage and part, always on and cheap (one `process.cpuUsage()`
 * at each job start and end and at each part boundary: a system call, no sampling, no timers).
 *
 * Jobs of several stages overlap in one process, and Node cannot say which of them a CPU
 * microsecond went to, so the process CPU between two boundaries is shared equally among the parts
 * running then; CPU while no job runs goes to `outside` (the API, queue polling, scheduled
 * timers). `process.cpuUsage()` counts every thread of the process: the embedded database's
 * statements (PGlite) are charged to the job parts that wait on them, a separate server's are not.
 * The figures are therefore an attribution, exact when one job runs at a time, and their sum is
 * the process's CPU time.
 */
export class StageCpu {
  /** Microseconds per `stage.part` (`outside` for time with no job running). */
  private readonly totals = new Map<string, number>();
  private readonly running = new Set<Frame>();
  private readonly current = new AsyncLocalStorage<Frame>();
  private last = process.cpuUsage();

  /** Runs `fn` as one job of `stage`; its CPU goes to `stage.handle` unless a part names it otherwise. */
  job<T>(stage: string, fn: () => Promise<T>): Promise<T> {
    return this.enter({ label: `${stage}.handle`, stage }, fn);
  }

  /** Runs `fn` as part `part` of the current job (outside a job: as `other.part`). */
  part<T>(part: string, fn: () => Promise<T>): Promise<T> {
    const parent = this.current.getStore();
    return this.enter({ label: `${parent?.stage ?? 'other'}.${part}`, stage: parent?.stage ?? 'other' }, fn, parent);
  }

  /** Seconds of CPU by `stage.part`, settled up to now. */
  snapshot(): Record<string, number> {
    this.settle();
    const out: Record<string, number> = {};
    for (const [k, us] of this.totals) out[k] = us / 1e6;
    return out;
  }

  private async enter<T>(frame: Frame, fn: () => Promise<T>, parent?: Frame): Promise<T> {
    this.settle();
    // A part suspends its job's own frame, so the job's time is not counted twice.
    if (parent) this.running.delete(parent);
    this.running.add(frame);
    try {
      return await this.current.run(frame, fn);
    } finally {
      this.settle();
      this.running.delete(frame);
      if (parent) this.running.add(parent);
    }
  }

  private settle(): void {
    const now = process.cpuUsage();
    const us = now.user - this.last.user + (now.system - this.last.system);
    this.last = now;
    if (us <= 0) return;
    if (this.running.size === 0) {
      this.totals.set('outside', (this.totals.get('outside') ?? 0) + us);
      return;
    }
    const share = us / this.running.size;
    for (const f of this.running) this.totals.set(f.label, (this.totals.get(f.label) ?? 0) + share);
  }
}

interface Frame {
  label: string;
  stage: string;
}
