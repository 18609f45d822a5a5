import type { PGlite } from '@electric-sql/pglite';

interface Pending {
  handlerId: number;
  message: Uint8Array;
  onData: (data: Uint8Array) => void;
  resolve: (bytes: number) => void;
  reject: (err: unknown) => void;
}

const SYNC = 0x53; // 'S'
const QUERY = 0x51; // 'Q'
const TERMINATE = 0x58; // 'X'

/**
 * Replacement for pglite-socket's query queue. PGlite has one session, so connections must take
 * turns; pglite-socket interleaves protocol messages of different connections whenever no explicit
 * transaction is open, which breaks the extended query protocol (Parse/Bind/Execute/Sync of two
 * connections mixed: "portal does not exist", wrong results, hangs under BullMQ load). Here a
 * connection owns the session from its first message until a Sync or simple Query leaves the
 * session idle (no transaction open); only then may another connection's messages run.
 */
export class SessionQueue {
  readonly #db: PGlite;
  readonly #waiting: Pending[] = [];
  #owner: number | null = null;
  #processing = false;

  constructor(db: PGlite) {
    this.#db = db;
  }

  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ handlerId, message, onData, resolve, reject });
      void this.#process();
    });
  }

  getQueueLength(): number {
    return this.#waiting.length;
  }

  clearQueueForHandler(handlerId: number): void {
    for (let i = this.#waiting.length - 1; i >= 0; i--) {
      const p = this.#waiting[i] as Pending;
      if (p.handlerId === handlerId) {
        this.#waiting.splice(i, 1);
        p.reject(new Error('Handler disconnected'));
      }
    }
  }

  /** A connection that dies while owning the session must not leave it locked or mid-transaction. */
  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.#owner !== handlerId) return;
    if (this.#db.isInTransaction()) await this.#db.exec('ROLLBACK');
    this.#owner = null;
    void this.#process();
  }

  async #process(): Promise<void> {
    if (this.#processing) return;
    this.#processing = true;
    try {
      for (;;) {
        const index = this.#owner === null ? 0 : this.#waiting.findIndex((p) => p.handlerId === this.#owner);
        if (index === -1 || this.#waiting.length === 0) break; // the owner has not sent its next message yet
        const item = this.#waiting.splice(index, 1)[0] as Pending;
        this.#owner = item.handlerId;
        let bytes = 0;
        try {
          await this.#db.runExclusive(() =>
            this.#db.execProtocolRawStream(item.message, {
              onRawData: (data: Uint8Array) => {
                bytes += data.length;
                item.onData(data);
              },
            }),
          );
        } catch (err) {
          item.reject(err);
          if (!this.#db.isInTransaction()) this.#owner = null;
          continue;
        }
        const type = item.message[0];
        const startup = item.message.length >= 8 && type === 0x00;
        if ((type === SYNC || type === QUERY || type === TERMINATE || startup) && !this.#db.isInTransaction()) this.#owner = null;
        item.resolve(bytes);
      }
    } finally {
      this.#processing = false;
    }
  }
}
