import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireDataDirLock, liveOwner, lockPath } from '../src/db/data-dir-lock.js';
import { MemloomError } from '../src/errors.js';
import { freePort, spawnMemloom, waitReady, type MemloomProcess } from './support/process.js';

/**
 * One process owns an embedded data directory (issue 19): a second memloom, migrate or another
 * command on the same MEMLOOM_HOME is refused or routed to the owner's API (forget, retry, doctor), and never
 * opens the live files; a lock left by kill -9 does not block the next start.
 */
const homes: string[] = [];
const procs: MemloomProcess[] = [];
afterAll(async () => {
  for (const p of procs)
    if (p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill('SIGKILL');
      await p.exited;
    }
  for (const h of homes) await rm(h, { recursive: true, force: true });
});

async function home(): Promise<string> {
  const h = await mkdtemp(path.join(os.tmpdir(), 'memloom-lock-'));
  homes.push(h);
  return h;
}

async function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const p = spawnMemloom(args, { LOG_LEVEL: 'silent', ...env });
  procs.push(p);
  const { code } = await p.exited;
  return { code, output: p.output() };
}

describe('the data directory lock', () => {
  it('refuses a lock whose process is alive, and takes over one whose pid now names another process', async () => {
    const h = await home();
    const held = await acquireDataDirLock(h);
    const second = await acquireDataDirLock(h).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(second).toBeInstanceOf(MemloomError);
    expect((second as MemloomError).code).toBe('DATABASE_IN_USE');
    await held.setUrl('http://127.0.0.1:1');
    expect((await liveOwner(h))?.url).toBe('http://127.0.0.1:1');
    await held.release();
    expect(await liveOwner(h)).toBeUndefined();

    // A pid reused after a crash: alive, but not the process that wrote the lock.
    await writeFile(lockPath(h), JSON.stringify({ pid: process.pid, started: 1 }));
    expect(await liveOwner(h)).toBeUndefined();
    const taken = await acquireDataDirLock(h);
    expect(JSON.parse(await readFile(lockPath(h), 'utf8')).started).not.toBe(1);
    await taken.release();
    // Half a file (killed mid-write) is stale too.
    await writeFile(lockPath(h), '{"pid": 12');
    await (await acquireDataDirLock(h)).release();
  });

  it('a second memloom and migrate are refused, forget and doctor go to the owner\u2019s API, and kill -9 leaves no lock that blocks', async () => {
    const h = await home();
    const env = { MEMLOOM_HOME: h, EVENTS_DIR: path.join(h, 'events') };
    const owner = spawnMemloom(['start'], { ...env, PORT: String(await freePort()) });
    procs.push(owner);
    await waitReady(owner);
    const pid = String(owner.child.pid);
    // The commands run with another PORT: only the lock can tell them the database is in use.
    const other = { ...env, PORT: String(await freePort()) };

    for (const args of [['start'], ['migrate']]) {
      const r = await run(args, other);
      expect(r.code, `${args[0]}: ${r.output}`).toBe(1);
      expect(r.output).toContain(`in use by memloom pid ${pid} (API ${owner.url})`);
    }
    const forgot = await run(['forget', '--session', 'nobody-s', '--user', 'nobody'], other);
    expect(forgot.code, forgot.output).toBe(0);
    expect(JSON.parse(forgot.output.trim()).nothing_to_forget).toBe(true);
    const checked = await run(['doctor'], other);
    expect(checked.code, checked.output).toBe(0);
    expect(Object.keys(JSON.parse(checked.output.trim()))).toEqual(['default']);
    expect((await fetch(`${owner.url}/readyz`)).status).toBe(200);

    const post = await fetch(`${owner.url}/v1/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'kept across kill -9' }),
    });
    expect(post.status).toBe(202);
    owner.child.kill('SIGKILL');
    await owner.exited;
    // The lock names a dead process: doctor opens the database, and a new memloom starts on it.
    const doctor = await run(['doctor'], other);
    expect(doctor.code, doctor.output).toBe(0);
    const next = spawnMemloom(['start'], other);
    procs.push(next);
    await waitReady(next);
    const stats = (await (await fetch(`${next.url}/v1/stats`)).json()) as { objects: { events: number } };
    expect(stats.objects.events).toBe(1);
    next.child.kill('SIGTERM');
    expect((await next.exited).code).toBe(0);
    expect(await liveOwner(h)).toBeUndefined();
  }, 300_000);
});
