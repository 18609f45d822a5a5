import { MemloomError } from '../../src/errors.js';
import type { SpillFile } from './spill.js';
import { deliver, type Delivery, type TransportOptions } from './transport.js';
import type { WireEvent } from './wire.js';

export interface SenderOptions {
  batchSize: number;
  maxBatchBytes: number;
  flushIntervalMs: number;
  maxBufferEvents: number;
  transport: TransportOptions;
  spill: SpillFile;
  report: (err: MemloomError) => void;
}

export interface ClientStats {
  /** Waiting in memory for a request. */
  buffered: number;
  /** In the request being sent (or retried) now. */
  inFlight: number;
  accepted: number;
  duplicates: number;
  /** Refused by the API (invalid, too large), reported through onError. */
  rejected: number;
  /** Refused by event() itself (no content, not an object…), reported through onError. */
  invalid: number;
  /** Written to the spill file for the watcher. */
  spilled: number;
  /** Lost: the spill file could not be written, or event() after close(). Reported through onError. */
  dropped: number;
  requests: number;
  retries: number;
}

/**
 * The buffer behind `event()`: batches by size, bytes and time, sends one request at a time (so a
 * client's events arrive in order), and spills what cannot be delivered. Every event pushed ends in
 * exactly one of accepted/duplicates, rejected, spilled or dropped.
 */
export class Sender {
  readonly #o: SenderOptions;
  #queue: WireEvent[] = [];
  #queuedBytes = 0;
  #inFlight: readonly WireEvent[] = [];
  /** Batches handed to the spill file whose write has not finished (an `exit` must still write them). */
  readonly #spilling = new Set<readonly WireEvent[]>();
  #spillChain: Promise<void> = Promise.resolve();
  #running: Promise<void> | undefined;
  /** Send everything queued, not only full batches (the interval elapsed, or someone flushes). */
  #drain = false;
  #timer: NodeJS.Timeout | undefined;
  readonly #stats = { accepted: 0, duplicates: 0, rejected: 0, invalid: 0, spilled: 0, dropped: 0, requests: 0, retries: 0 };

  constructor(opts: SenderOptions) {
    this.#o = opts;
  }

  push(event: WireEvent): void {
    this.#queue.push(event);
    this.#queuedBytes += event.bytes;
    if (this.#queue.length > this.#o.maxBufferEvents) {
      // The API is slow or down and the agent keeps writing: the oldest events go to disk, not away.
      const over = this.#take(Math.max(this.#o.batchSize, this.#queue.length - this.#o.maxBufferEvents), Infinity);
      this.#spill(over, new MemloomError('BUFFER_FULL', `More than ${this.#o.maxBufferEvents} events buffered.`, { kind: 'unavailable' }));
    }
    if (this.#fullBatchQueued()) this.#kick(false);
    else this.#arm();
  }

  countInvalid(): void {
    this.#stats.invalid++;
  }

  countDropped(n: number): void {
    this.#stats.dropped += n;
  }

  /** True while anything is buffered, in flight or being spilled. */
  busy(): boolean {
    return this.#queue.length > 0 || this.#running !== undefined || this.#spilling.size > 0;
  }

  /** Resolves when everything pushed before (and during) the call is acknowledged, rejected or spilled. */
  async flush(): Promise<void> {
    for (;;) {
      if (this.#queue.length > 0 || this.#running) {
        this.#kick(true);
        await this.#running;
        continue;
      }
      const chain = this.#spillChain;
      await chain;
      if (chain === this.#spillChain && this.#queue.length === 0 && !this.#running) return;
    }
  }

  /**
   * Synchronously writes everything not yet acknowledged to the spill file: for `exit` and signal
   * handlers, where no promise will ever settle. The in-flight batch is included: it may also have
   * been stored, and its ids make the second copy a duplicate.
   */
  spillNowSync(): void {
    const seen = new Set<WireEvent>();
    for (const e of [...this.#inFlight, ...[...this.#spilling].flat(), ...this.#queue]) seen.add(e);
    this.#queue = [];
    this.#queuedBytes = 0;
    this.#spilling.clear();
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (seen.size === 0) return;
    try {
      this.#o.spill.appendSync([...seen]);
      this.#stats.spilled += seen.size;
    } catch (err) {
      this.#stats.dropped += seen.size;
      this.#o.report(
        new MemloomError('SPILL_FAILED', 'Could not write the spill file at exit; events were lost.', {
          kind: 'internal',
          cause: err,
          details: { events: seen.size, dir: this.#o.spill.dir },
        }),
      );
    }
  }

  stats(): ClientStats {
    return { buffered: this.#queue.length, inFlight: this.#inFlight.length, ...this.#stats };
  }

  #fullBatchQueued(): boolean {
    return this.#queue.length >= this.#o.batchSize || this.#queuedBytes >= this.#o.maxBatchBytes;
  }

  /** Sends a partial batch after `flushIntervalMs`. Unref'd: an idle client never keeps a process alive. */
  #arm(): void {
    if (this.#timer || this.#running || this.#queue.length === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#kick(true);
    }, this.#o.flushIntervalMs);
    this.#timer.unref();
  }

  #kick(drain: boolean): void {
    if (drain) this.#drain = true;
    if (this.#running) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#running = this.#pump().finally(() => {
      this.#running = undefined;
      this.#arm();
    });
  }

  async #pump(): Promise<void> {
    while (this.#fullBatchQueued() || (this.#drain && this.#queue.length > 0)) {
      const batch = this.#take(this.#o.batchSize, this.#o.maxBatchBytes);
      this.#inFlight = batch;
      let d: Delivery;
      try {
        d = await deliver(batch, this.#o.transport);
      } catch (err) {
        // deliver() does not throw by contract; if it ever does, the events still go to disk.
        d = {
          accepted: 0,
          duplicates: 0,
          rejected: [],
          undelivered: [...batch],
          error: new MemloomError('CLIENT_BUG', 'Delivery failed unexpectedly.', { kind: 'internal', cause: err }),
          requests: 0,
          retries: 0,
        };
      }
      this.#inFlight = [];
      this.#record(d);
      if (d.undelivered.length > 0) this.#spill(d.undelivered, d.error);
    }
    this.#drain = false;
  }

  #record(d: Delivery): void {
    this.#stats.accepted += d.accepted;
    this.#stats.duplicates += d.duplicates;
    this.#stats.rejected += d.rejected.length;
    this.#stats.requests += d.requests;
    this.#stats.retries += d.retries;
    for (const r of d.rejected) {
      const first = r.issues[0];
      this.#o.report(
        new MemloomError(r.code, `Event ${r.event.id} rejected by the API: ${r.issues.map((i) => `${i.path || 'event'}: ${i.message}`).join('; ')}`, {
          kind: r.code === 'EVENT_TOO_LARGE' ? 'too_large' : 'input',
          details: { eventId: r.event.id, path: first?.path ?? '', message: first?.message ?? '' },
        }),
      );
    }
  }

  /** Takes the oldest events: at most `max`, and at most `maxBytes` unless that leaves the batch empty. */
  #take(max: number, maxBytes: number): WireEvent[] {
    let n = 0;
    let bytes = 0;
    for (const e of this.#queue) {
      if (n >= max || (n > 0 && bytes + e.bytes > maxBytes)) break;
      n++;
      bytes += e.bytes;
    }
    this.#queuedBytes -= bytes;
    return this.#queue.splice(0, n);
  }

  #spill(events: readonly WireEvent[], cause: MemloomError | undefined): void {
    this.#spilling.add(events);
    this.#spillChain = this.#spillChain.then(async () => {
      if (!this.#spilling.has(events)) return; // already written synchronously by an exit handler
      try {
        const file = await this.#o.spill.append(events);
        this.#stats.spilled += events.length;
        this.#o.report(
          new MemloomError(
            'EVENTS_SPILLED',
            `${events.length} event(s) written to ${file} for the watcher: ${cause?.message ?? 'the API could not take them'}`,
            {
              kind: 'unavailable',
              retryable: false,
              cause,
              details: { events: events.length, file, reason: cause?.code ?? 'unknown' },
            },
          ),
        );
      } catch (err) {
        this.#stats.dropped += events.length;
        this.#o.report(
          new MemloomError('SPILL_FAILED', 'Could not write the spill file; events were lost.', {
            kind: 'internal',
            cause: err,
            details: { events: events.length, dir: this.#o.spill.dir },
          }),
        );
      } finally {
        this.#spilling.delete(events);
      }
    });
  }
}
