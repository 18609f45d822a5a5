import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireDataDirLock, liveOwner, lockPath } from '../src/db/data-dir-lock.js';
import { MemloomError } from '../src/errors.js';
import { freePort, ROOT, spawnMemloom, waitReady, type MemloomProcess } from './support/process.js';

/**
 * One process owns an embedded data directory (issue 19): a second memloom, migrate or another
 * command on the same MEMLOOM_HOME is refused or routed to the owner's API (forget, retry, doctor), and never
 * opens the live files; a lock left by kill -9 does not block the next start.
 */
const homes: string[] = [];
const procs: MemloomProcess[] = [];
const parents: ChildProcess[] = [];
afterAll(async () => {
  // Killing a parent that never waits hands its zombie to init, which reaps it.
  for (const p of parents) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
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

/** State of a process from /proc/<pid>/stat (R, S, Z…), or undefined once it is gone. */
function procState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Runs `command` under a parent that never reaps: sh starts it in the background, writes its pid
 * to a file, then becomes `sleep`, which never calls wait(), so once killed it stays a zombie.
 */
async function underNonReapingParent(command: string, dir: string, env: Record<string, string>): Promise<number> {
  const pidFile = path.join(dir, `child-${parents.length}.pid`);
  const parent = spawn('sh', ['-c', `${command} & echo $! > "${pidFile}"; exec sleep 600`], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: 'ignore',
  });
  parents.push(parent);
  return until('the child pid', async () => {
    const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
    return pid > 0 ? pid : undefined;
  });
}

async function killToZombie(pid: number): Promise<void> {
  process.kill(pid, 'SIGKILL');
  await until(`pid ${pid} to be a zombie`, () => (procState(pid) === 'Z' ? true : undefined), 30_000);
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

  it('takes over a lock whose process is a zombie: killed, its parent not (yet) reaping it', async () => {
    const h = await home();
    const pid = await underNonReapingParent('sleep 600', h, {});
    const stat = await until('the sleeper', () => {
      try {
        return readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        return undefined;
      }
    });
    const started = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    await writeFile(lockPath(h), JSON.stringify({ pid, started }));
    expect((await liveOwner(h))?.pid).toBe(pid);
    await killToZombie(pid);
    process.kill(pid, 0); // a zombie still answers: this alone cannot tell it from a live owner
    expect(await liveOwner(h)).toBeUndefined();
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

  it('starts at once after kill -9 while the killed memloom is still an unreaped zombie', async () => {
    const h = await home();
    const env = { MEMLOOM_HOME: h, EVENTS_DIR: path.join(h, 'events'), LOG_LEVEL: 'warn', PRETTY_LOGS: 'false' };
    // PORT=0: the first memloom listens where the kernel says and advertises that in its lock, so
    // no other process can take a port picked in advance before it binds.
    const log = path.join(h, 'first.log');
    const pid = await underNonReapingParent(`"${process.execPath}" bin/memloom.js start > "${log}" 2>&1`, h, { ...env, PORT: '0' });
    // Beside six busy loops this whole test (two starts) took 71-81 s here; a CI run can be slower.
    await until(
      'the first memloom to be ready',
      async () => {
        const state = procState(pid);
        if (state === undefined || state === 'Z')
          throw new Error(`the first memloom exited before it was ready:\n${(await readFile(log, 'utf8').catch(() => '')).slice(-3000)}`);
        const url = (await liveOwner(h))?.url;
        const res = url ? await fetch(`${url}/readyz`).catch(() => undefined) : undefined;
        return res?.status === 200 ? true : undefined;
      },
      180_000,
    ).catch(async (e: Error) => {
      throw new Error(`${e.message}\nits log:\n${(await readFile(log, 'utf8').catch(() => '')).slice(-3000)}`);
    });
    expect(JSON.parse(await readFile(lockPath(h), 'utf8')).pid).toBe(pid);
    await killToZombie(pid);

    // Right away, on the same MEMLOOM_HOME: the lock still names the zombie's pid.
    const next = spawnMemloom(['start'], { ...env, PORT: String(await freePort()) });
    procs.push(next);
    await waitReady(next, 180_000);
    expect(procState(pid)).toBe('Z'); // the zombie was there all along
    expect(next.output()).not.toContain('DATABASE_IN_USE');
    next.child.kill('SIGTERM');
    expect((await next.exited).code).toBe(0);
  }, 300_000);
});
