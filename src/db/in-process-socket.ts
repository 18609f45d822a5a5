import { Duplex } from 'node:stream';

/**
 * One end of an in-process connection: the part of net.Socket that `pg` (client side) and
 * serveConnection (server side, session-connection.ts) use. Bytes written to one end are read
 * from the other on the next tick, in order; no kernel socket, no syscall per message.
 */
export class InProcessSocket extends Duplex {
  peer: InProcessSocket | undefined;
  #outgoing: Buffer[] = [];

  constructor() {
    // Ending one direction ends the connection, as a TCP close does for pg and the server side.
    super({ allowHalfOpen: false });
  }

  override _read(): void {
    // Data is pushed by the peer's writes.
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    const peer = this.peer;
    if (!peer || peer.destroyed) {
      callback(Object.assign(new Error('in-process connection closed'), { code: 'EPIPE' }));
      return;
    }
    // Delivered on the next tick, not now (a write must not run the reader's handlers inside the
    // writer's), and the writes of one tick as one chunk (pg writes each protocol message apart).
    if (this.#outgoing.push(chunk) === 1) process.nextTick(() => this.#flush(peer));
    callback();
  }

  #flush(peer: InProcessSocket): void {
    const chunks = this.#outgoing;
    this.#outgoing = [];
    if (!peer.destroyed) peer.push(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
  }

  override _final(callback: (error?: Error | null) => void): void {
    const peer = this.peer;
    // After the flush of this tick's writes (queued before it).
    process.nextTick(() => peer?.destroyed || peer?.push(null));
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const peer = this.peer;
    this.peer = undefined;
    // The other end sees the connection close, as with a reset socket.
    if (peer && !peer.destroyed) process.nextTick(() => peer.destroy());
    callback(error);
  }

  /** net.Socket's connect(): pg calls it and waits for 'connect'. The pair is already connected. */
  connect(): this {
    process.nextTick(() => this.emit('connect'));
    return this;
  }

  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  ref(): this {
    return this;
  }

  unref(): this {
    return this;
  }
}

/** Two connected ends: [client, server]. */
export function inProcessSocketPair(): [InProcessSocket, InProcessSocket] {
  const client = new InProcessSocket();
  const server = new InProcessSocket();
  client.peer = server;
  server.peer = client;
  return [client, server];
}
