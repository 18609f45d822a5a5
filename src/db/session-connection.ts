import type { Duplex } from 'node:stream';
import type { ConnectionQueue } from './pglite-session-queue.js';

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const TERMINATE = 0x58; // 'X'

/** Session-queue ids of connections. */
let nextId = -1;

/**
 * Serves one connection on the session queue: in-process (embedded.ts `connect()`) or on the
 * loopback port. The server side of PostgreSQL's wire protocol, minus what PGlite answers itself.
 *
 * pglite-socket's handler gives PGlite one protocol message per call. `pg` sends a parameterized
 * query as five (Parse, Bind, Describe, Execute, Sync), so that is five trips into PGlite, each
 * with its own turn on the queue, for one statement. Here every complete message that has arrived
 * goes to PGlite in one call, which runs them in order (SessionQueue takes the batch's last
 * message to decide when the session is free again). A statement costs one trip.
 *
 * Startup: SSL and GSSAPI encryption requests are declined ('N'), as pglite-socket does; a cancel
 * request (which `pg` sends on a connection of its own) is not supported and just closes it.
 */
export function serveConnection(queue: ConnectionQueue, socket: Duplex): void {
  const id = nextId--;
  let buffer: Buffer = Buffer.alloc(0);
  let started = false;
  let closed = false;
  let turns: Promise<void> = Promise.resolve();

  // As it is: answers come from PGlite's thread as copies of their own (pglite-thread-serve.ts),
  // which nothing else writes to while the socket delivers them on a later tick.
  const write = (data: Uint8Array): void => {
    if (!closed && socket.writable) socket.write(data);
  };
  const close = (): void => {
    if (closed) return;
    closed = true;
    // Drops what this connection still has queued and rolls back a transaction it left open.
    void queue.disconnect(id).catch(() => undefined);
    socket.destroy();
  };

  /** Hands PGlite what is complete in the buffer; the rest waits for more data. */
  const drain = async (): Promise<void> => {
    while (!closed) {
      if (!started) {
        if (buffer.length < 8) return;
        const len = buffer.readUInt32BE(0);
        const code = buffer.readUInt32BE(4);
        if (buffer.length < len) return;
        const message = buffer.subarray(0, len);
        buffer = buffer.subarray(len);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          write(Buffer.from('N'));
          continue;
        }
        if (code === CANCEL_REQUEST) return close();
        started = true;
        await queue.enqueue(id, Uint8Array.prototype.slice.call(message), write);
        continue;
      }
      let end = 0;
      let terminate = false;
      while (end + 5 <= buffer.length) {
        const len = buffer.readUInt32BE(end + 1);
        if (end + 1 + len > buffer.length) break;
        if (buffer[end] === TERMINATE) {
          terminate = true;
          break;
        }
        end += 1 + len;
      }
      if (end > 0) {
        const batch = Uint8Array.prototype.slice.call(buffer, 0, end);
        buffer = buffer.subarray(end);
        await queue.enqueue(id, batch, write);
      }
      if (terminate) return close();
      if (end === 0) return;
    }
  };

  let scheduled = false;
  socket.on('data', (chunk: Buffer) => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    if (scheduled) return;
    scheduled = true;
    // On the event loop's next turn, as pglite-socket's handler does: answers come back on
    // process.nextTick and a client's next statement follows as a microtask, so connections
    // running statement after statement would otherwise keep the loop from timers and I/O (at 50
    // events/s, HTTP requests waited up to 1.4 s behind the pipeline).
    setImmediate(() => {
      scheduled = false;
      // One turn at a time: a connection's messages reach PGlite in the order they were sent.
      turns = turns.then(drain).catch(close);
    });
  });
  socket.on('error', close);
  socket.on('close', close);
}
