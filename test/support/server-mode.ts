import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { freePort, ROOT } from './process.js';

/**
 * Server mode for tests that break things: a redis-server of the test's own on a random port (so
 * killing or flushing it touches no one else's queues) and a fresh database with a random name on
 * the local PostgreSQL (dropped afterwards). Kept in one file so it can join a general server-mode
 * harness later.
 */
export const PG_ADMIN_URL = process.env.TEST_PLAIN_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

export class OwnRedis {
  child: ChildProcess | undefined;
  private constructor(readonly port: number) {}

  static async start(): Promise<OwnRedis> {
    const r = new OwnRedis(await freePort());
    await r.start();
    return r;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts empty: nothing is kept on disk, as a Redis without persistence restarts. */
  async start(): Promise<void> {
    this.child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const deadline = Date.now() + 10_000;
    while (!(await redisPing(this.port))) {
      if (Date.now() > deadline) throw new Error(`redis-server on port ${this.port} did not answer`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** SIGKILL: no shutdown save, no goodbye to clients. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    this.child = undefined;
  }

  /** FLUSHALL on this test's own server only. */
  async flush(): Promise<void> {
    const reply = await redisCommand(this.port, 'FLUSHALL');
    if (!reply.startsWith('+OK')) throw new Error(`FLUSHALL answered ${reply}`);
  }
}

function redisCommand(port: number, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('error', reject);
    socket.once('connect', () => socket.write(`${command}\r\n`));
    socket.once('data', (d) => {
      socket.destroy();
      resolve(d.toString());
    });
  });
}

async function redisPing(port: number): Promise<boolean> {
  return redisCommand(port, 'PING').then(
    (r) => r.startsWith('+PONG'),
    () => false,
  );
}

export interface ScratchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** A new database on the local PostgreSQL, with pgvector built and installed first if it is missing. */
export async function createScratchDatabase(prefix = 'memloom_chaos'): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    const { rows } = await admin.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`);
    if (rows.length === 0) {
      const r = spawnSync('bash', [path.join(ROOT, 'scripts/install-pgvector.sh')], { stdio: 'inherit' });
      if (r.status !== 0) throw new Error('pgvector is not installed and scripts/install-pgvector.sh failed');
    }
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/**
 * A TCP proxy in front of PostgreSQL that a test can cut (every connection dropped, new ones
 * refused, as when the database host goes away) and restore on the same port.
 */
export class CuttableProxy {
  private server: import('node:net').Server | undefined;
  private readonly sockets = new Set<import('node:net').Socket>();
  private constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  static async start(target: { host: string; port: number }): Promise<CuttableProxy> {
    const p = new CuttableProxy(await freePort(), target);
    await p.restore();
    return p;
  }

  async restore(): Promise<void> {
    if (this.server) return; // already serving
    const { createServer, connect: dial } = await import('node:net');
    this.server = createServer((client) => {
      const upstream = dial(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.once('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      this.server?.once('error', reject);
      this.server?.listen(this.port, '127.0.0.1', resolve);
    });
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The URL of `url`'s database through this proxy. */
  urlFor(url: string): string {
    const u = new URL(url);
    u.host = `127.0.0.1:${this.port}`;
    return u.toString();
  }
}
