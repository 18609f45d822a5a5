import type { Queue } from 'bullmq';
import type { QueueBackend } from './backend.js';
import { QUEUE_NAMES, type QueueName } from './names.js';

/** Lazily created producers for every queue; one instance per process, carried in deps. */
export class Queues {
  readonly #backend: QueueBackend;
  readonly #queues = new Map<QueueName, Queue>();

  constructor(backend: QueueBackend) {
    this.#backend = backend;
  }

  get backend(): QueueBackend {
    return this.#backend;
  }

  get(name: QueueName): Queue {
    let q = this.#queues.get(name);
    if (!q) {
      q = this.#backend.createQueue(name);
      // A queue that cannot reach its backend reports through the caller's awaited calls.
      q.on('error', () => undefined);
      this.#queues.set(name, q);
    }
    return q;
  }

  all(): Queue[] {
    return QUEUE_NAMES.map((n) => this.get(n));
  }

  async counts(): Promise<Record<QueueName, Record<string, number>>> {
    const entries = await Promise.all(
      QUEUE_NAMES.map(async (n) => {
        const c = await this.get(n).getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized', 'waiting-children');
        const waiting = (c.waiting ?? 0) + (c.prioritized ?? 0) + (c['waiting-children'] ?? 0);
        return [n, { waiting, active: c.active ?? 0, delayed: c.delayed ?? 0, failed: c.failed ?? 0, completed: c.completed ?? 0 }] as const;
      }),
    );
    return Object.fromEntries(entries) as unknown as Record<QueueName, Record<string, number>>;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.#queues.values()].map((q) => q.close()));
    this.#queues.clear();
  }
}
