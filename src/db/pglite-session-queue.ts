import { currentPriority, type DbPriority } from './priority.js';

/** What the queue needs of the database that runs its turns (PGlite, in its thread: pglite-thread-serve.ts). */
export interface ProtocolExecutor {
  /** Runs a batch of frontend protocol messages, handing the backend's answer to `onData` in order. */
  protocol(message: Uint8Array, onData: (data: Uint8Array) => void): Promise<void>;
  isInTransaction(): boolean;
  exec(sql: string): Promise<unknown>;
}

/** The queue as a connection sees it (session-connection.ts): here or across threads (pglite-thread.ts). */
export interface ConnectionQueue {
  /** Resolves with the answer's size once the batch has run, its answer handed to `onData`. */
  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number>;
  /** The connection closed: drop what it still has queued and roll back a transaction it left open. */
  disconnect(handlerId: number): Promise<void>;
}

interface Pending {
  handlerId: number;
  message: Uint8Array;
  onData: (data: Uint8Array) => void;
  resolve: (bytes: number) => void;
  reject: (err: unknown) => void;
  priority: DbPriority;
  /** performance.now() when it was queued. */
  at: number;
}

/**
 * A background statement that has waited this long goes next even while API statements wait: the
 * API goes first, but background work (which the API's answers depend on in the end) never starves.
 */
const BACKGROUND_MAX_WAIT_MS = 1_000;

/** How long connections held the session, per priority of the turn's first statement (a turn: first message until the session is idle again). */
export interface SessionHoldStats {
  turns: Record<DbPriority, number>;
  /** Longest turn, in ms. */
  maxMs: Record<DbPriority, number>;
  /** Turns longer than 100 ms. */
  over100Ms: Record<DbPriority, number>;
  /** Longest wait of a statement for the session, in ms. */
  maxWaitMs: Record<DbPriority, number>;
  /**
   * The five longest turns: their length, how much of it PGlite was running statements (the rest
   * the connection's owner spent between statements), and their longest statement (what held it).
   */
  slowest: Array<{ ms: number; busyMs: number; priority: DbPriority; statementMs: number; sql: string }>;
  /** Turns longer than 100 ms by the start of their longest statement: how many, and their total length in ms. */
  over100MsBy: Record<string, { turns: number; ms: number }>;
}

const zero = (): Record<DbPriority, number> => ({ api: 0, background: 0 });
const emptyStats = (): SessionHoldStats => ({ turns: zero(), maxMs: zero(), over100Ms: zero(), maxWaitMs: zero(), slowest: [], over100MsBy: {} });

const SYNC = 0x53; // 'S'
const QUERY = 0x51; // 'Q'
const PARSE = 0x50; // 'P'
const TERMINATE = 0x58; // 'X'
const NOTIFICATION = 0x41; // 'A' NotificationResponse
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL and control characters are what this expression is for
const LISTEN_RE = /\b(UN)?LISTEN\s+(?:"([^"]+)"|([^\s;\u0000]+))/gi;

/**
 * Replacement for pglite-socket's query queue. PGlite has one session, so connections must take
 * turns; pglite-socket interleaves protocol messages of different connections whenever no explicit
 * transaction is open, which breaks the extended query protocol (Parse/Bind/Execute/Sync of two
 * connections mixed: "portal does not exist", wrong results, hangs under BullMQ load). Here a
 * connection owns the session from its first message until a Sync or simple Query leaves the
 * session idle (no transaction open); only then may another connection's messages run.
 *
 * When the session is free, the next turn goes to the oldest API statement before any background
 * one (src/db/priority.ts), unless a background statement has waited BACKGROUND_MAX_WAIT_MS. A
 * turn in progress is never interrupted, which is why background work keeps its transactions short.
 */
export class SessionQueue implements ConnectionQueue {
  readonly #db: ProtocolExecutor;
  readonly #waiting: Pending[] = [];
  /** Channels each connection LISTENs to, and a way to write to its socket between its own queries. */
  readonly #listening = new Map<number, Set<string>>();
  readonly #push = new Map<number, (data: Uint8Array) => void>();
  #owner: number | null = null;
  #processing = false;
  /** The current turn: its priority and when it began. */
  #turn: { priority: DbPriority; start: number; busy: number; top: { ms: number; message: Uint8Array } | null } | null = null;
  #stats: SessionHoldStats = emptyStats();

  constructor(db: ProtocolExecutor) {
    this.#db = db;
  }

  /** `priority`: who the statement is for; the caller's async context by default (the queue in PGlite's thread gets it from the main thread). */
  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void, priority: DbPriority = currentPriority()): Promise<number> {
    this.#push.set(handlerId, onData);
    this.#trackListen(handlerId, message);
    return new Promise((resolve, reject) => {
      this.#waiting.push({ handlerId, message, onData, resolve, reject, priority, at: performance.now() });
      void this.#process();
    });
  }

  /** Session hold and wait figures since start, or since the last reset (/metrics, the soak benchmark). */
  holdStats(opts: { reset?: boolean } = {}): SessionHoldStats {
    const copy = structuredClone(this.#stats);
    if (opts.reset) this.#stats = emptyStats();
    return copy;
  }

  /** The next turn when the session is free: API first, but not past a background statement waiting too long. */
  #nextIndex(): number {
    const first = this.#waiting[0];
    if (!first || first.priority === 'api') return 0;
    if (performance.now() - first.at >= BACKGROUND_MAX_WAIT_MS) return 0;
    const api = this.#waiting.findIndex((p) => p.priority === 'api');
    return api === -1 ? 0 : api;
  }

  #beginTurn(item: Pending): void {
    const now = performance.now();
    this.#turn = { priority: item.priority, start: now, busy: 0, top: null };
    this.#stats.turns[item.priority]++;
    this.#stats.maxWaitMs[item.priority] = Math.max(this.#stats.maxWaitMs[item.priority], now - item.at);
  }

  #endTurn(): void {
    const turn = this.#turn;
    this.#turn = null;
    this.#owner = null;
    if (!turn) return;
    const ms = performance.now() - turn.start;
    this.#stats.maxMs[turn.priority] = Math.max(this.#stats.maxMs[turn.priority], ms);
    if (ms <= 100) return;
    this.#stats.over100Ms[turn.priority]++;
    const by = `${turn.priority}: ${turn.top ? statementText(turn.top.message).slice(0, 60) : '(no statement)'}`;
    const tally = this.#stats.over100MsBy[by] ?? { turns: 0, ms: 0 };
    this.#stats.over100MsBy[by] = { turns: tally.turns + 1, ms: tally.ms + ms };
    const slowest = this.#stats.slowest;
    if (slowest.length < 5 || ms > (slowest[slowest.length - 1] as { ms: number }).ms) {
      const top = turn.top;
      slowest.push({
        ms: Math.round(ms),
        busyMs: Math.round(turn.busy),
        priority: turn.priority,
        statementMs: Math.round(top?.ms ?? 0),
        sql: top ? statementText(top.message) : '',
      });
      slowest.sort((a, b) => b.ms - a.ms).splice(5);
    }
  }

  async disconnect(handlerId: number): Promise<void> {
    this.clearQueueForHandler(handlerId);
    await this.clearTransactionIfNeeded(handlerId);
  }

  getQueueLength(): number {
    return this.#waiting.length;
  }

  clearQueueForHandler(handlerId: number): void {
    this.#listening.delete(handlerId);
    this.#push.delete(handlerId);
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
    this.#endTurn();
    void this.#process();
  }

  async #process(): Promise<void> {
    if (this.#processing) return;
    this.#processing = true;
    try {
      for (;;) {
        const index = this.#owner === null ? this.#nextIndex() : this.#waiting.findIndex((p) => p.handlerId === this.#owner);
        if (index === -1 || this.#waiting.length === 0) break; // the owner has not sent its next message yet
        const item = this.#waiting.splice(index, 1)[0] as Pending;
        if (this.#owner === null) this.#beginTurn(item);
        this.#owner = item.handlerId;
        let bytes = 0;
        const router = new NotificationRouter((channel, msg) => this.#notify(channel, msg));
        const began = performance.now();
        const account = () => {
          const turn = this.#turn;
          if (!turn) return;
          const ms = performance.now() - began;
          turn.busy += ms;
          if (!turn.top || ms > turn.top.ms) turn.top = { ms, message: item.message };
        };
        try {
          await this.#db.protocol(item.message, (data) => {
            bytes += data.length;
            const own = router.route(data);
            if (own.length > 0) item.onData(own);
          });
        } catch (err) {
          account();
          item.reject(err);
          if (!this.#db.isInTransaction()) this.#endTurn();
          continue;
        }
        account();
        const startup = item.message.length >= 8 && item.message[0] === 0x00;
        const type = startup ? 0x00 : lastMessageType(item.message);
        if ((type === SYNC || type === QUERY || type === TERMINATE || startup) && !this.#db.isInTransaction()) this.#endTurn();
        item.resolve(bytes);
      }
    } finally {
      this.#processing = false;
    }
  }

  /**
   * PGlite answers a NOTIFY into the stream of the connection that committed it (one session);
   * the notification belongs to the connections that LISTEN on the channel (BullMQ workers wait on
   * it), so it is taken out of that stream and written to theirs.
   */
  #notify(channel: string, msg: Uint8Array): void {
    for (const [handlerId, channels] of this.#listening) {
      if (channels.has(channel) || channels.has('*')) this.#push.get(handlerId)?.(msg);
    }
  }

  #trackListen(handlerId: number, messages: Uint8Array): void {
    // A batch may hold several messages (serveConnection); each Query or Parse may LISTEN.
    for (const m of frontendMessages(messages)) {
      if (m.type === QUERY || m.type === PARSE)
        this.#trackListenText(handlerId, Buffer.from(messages.buffer, messages.byteOffset + m.start + 5, m.end - m.start - 5).toString('utf8'));
    }
  }

  #trackListenText(handlerId: number, text: string): void {
    if (!/LISTEN/i.test(text)) return;
    for (const m of text.matchAll(LISTEN_RE)) {
      const channel = m[2] ?? m[3] ?? '';
      const set = this.#listening.get(handlerId) ?? new Set<string>();
      if (m[1]) {
        if (channel === '*') set.clear();
        else set.delete(channel);
      } else set.add(channel);
      this.#listening.set(handlerId, set);
    }
  }
}

/** The complete frontend messages of a batch (type byte, int32 length including itself, body). */
function* frontendMessages(messages: Uint8Array): Generator<{ type: number; start: number; end: number }> {
  for (let pos = 0; pos + 5 <= messages.length; ) {
    const len = ((messages[pos + 1]! << 24) | (messages[pos + 2]! << 16) | (messages[pos + 3]! << 8) | messages[pos + 4]!) >>> 0;
    const end = pos + 1 + len;
    if (len < 4 || end > messages.length) return;
    yield { type: messages[pos] as number, start: pos, end };
    pos = end;
  }
}

/** The start of the first Query or Parse text of a batch (for the slowest-turn figures). */
function statementText(messages: Uint8Array): string {
  for (const m of frontendMessages(messages)) {
    if (m.type !== QUERY && m.type !== PARSE) continue;
    const body = Buffer.from(messages.buffer, messages.byteOffset + m.start + 5, m.end - m.start - 5);
    // Parse: statement name, NUL, query text; Query: the text.
    const text = m.type === PARSE ? body.subarray(body.indexOf(0) + 1) : body;
    return (
      text
        .toString('utf8', 0, Math.min(text.length, 160))
        // biome-ignore lint/suspicious/noControlCharactersInRegex: a C string ends at its NUL
        .replace(/\u0000.*$/su, '')
        .replace(/\s+/g, ' ')
        .trim()
    );
  }
  return '';
}

function lastMessageType(messages: Uint8Array): number | undefined {
  let type: number | undefined;
  for (const m of frontendMessages(messages)) type = m.type;
  return type;
}

/** Splits a backend message stream, diverting NotificationResponse messages to `onNotification`. */
class NotificationRouter {
  #carry: Buffer = Buffer.alloc(0);
  readonly #onNotification: (channel: string, msg: Uint8Array) => void;

  constructor(onNotification: (channel: string, msg: Uint8Array) => void) {
    this.#onNotification = onNotification;
  }

  /** Returns the bytes that stay on the executing connection's stream. */
  route(data: Uint8Array): Uint8Array {
    const buf = this.#carry.length > 0 ? Buffer.concat([this.#carry, data]) : Buffer.from(data.buffer, data.byteOffset, data.length);
    const keep: Buffer[] = [];
    let pos = 0;
    let runStart = 0;
    while (pos + 5 <= buf.length) {
      const len = buf.readInt32BE(pos + 1);
      if (pos + 1 + len > buf.length) break;
      if (buf[pos] === NOTIFICATION) {
        if (pos > runStart) keep.push(buf.subarray(runStart, pos));
        const msg = buf.subarray(pos, pos + 1 + len);
        const channelEnd = msg.indexOf(0, 9);
        this.#onNotification(msg.toString('utf8', 9, channelEnd), new Uint8Array(msg));
        runStart = pos + 1 + len;
      }
      pos += 1 + len;
    }
    if (pos > runStart) keep.push(buf.subarray(runStart, pos));
    this.#carry = Buffer.from(buf.subarray(pos));
    return keep.length === 1 ? (keep[0] as Buffer) : Buffer.concat(keep);
  }
}
