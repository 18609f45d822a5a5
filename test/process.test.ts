import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REDIS_URL } from './support/memloom.js';
import { liveOwner } from '../src/db/data-dir-lock.js';
import { freePort, ROOT, spawnMemloom as spawnProcess, waitReady, type MemloomProcess } from './support/process.js';

const homes: string[] = [];
const procs: MemloomProcess[] = [];
afterAll(async () => {
  // A failed test must not leave a memloom running.
  for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  for (const h of homes) await rm(h, { recursive: true, force: true });
});

function spawnMemloom(args: string[], env: Record<string, string>): MemloomProcess {
  const p = spawnProcess(args, env);
  procs.push(p);
  return p;
}

async function env(extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'memloom-proc-'));
  homes.push(home);
  return { MEMLOOM_HOME: home, EVENTS_DIR: path.join(home, 'events'), PORT: String(await freePort()), ...extra };
}

async function postEvents(url: string, n: number, prefix: string): Promise<void> {
  const events = Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i}`, content: `event ${prefix} ${i}`, session_id: prefix }));
  const res = await fetch(`${url}/v1/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ events }) });
  expect(res.status).toBe(202);
}

async function eventCount(url: string): Promise<number> {
  const res = await fetch(`${url}/v1/stats`);
  return ((await res.json()) as { objects: { events: number } }).objects.events;
}

describe.each<[string, Record<string, string>]>([
  ['embedded (PostgreSQL queue backend)', {}],
  ['embedded database + Redis queues', { REDIS_URL }],
])('memloom start, %s', (_name, extra) => {
  it('becomes ready with no DATABASE_URL, keeps every committed row across SIGKILL, and drains on SIGTERM with exit 0', async () => {
    const e = await env({ ...extra, ...(extra.REDIS_URL ? { QUEUE_PREFIX: `proc-${Date.now()}` } : {}) });
    const first = spawnMemloom(['start'], e);
    await waitReady(first);
    await postEvents(first.url, 250, 'before-kill');
    first.child.kill('SIGKILL');
    const killed = await first.exited;
    expect(killed.signal).toBe('SIGKILL');

    const second = spawnMemloom(['start'], e);
    await waitReady(second);
    expect(await eventCount(second.url)).toBe(250);
    await postEvents(second.url, 10, 'after-restart');
    expect(await eventCount(second.url)).toBe(260);
    second.child.kill('SIGTERM');
    const stopped = await second.exited;
    expect(stopped.code).toBe(0);
    expect(second.output()).toContain('"msg":"stopped"');
  }, 240_000);
});

/** Pids whose parent is `ppid`, from /proc. */
function childrenOf(ppid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === ppid) out.push(Number(entry));
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

describe('npm start', () => {
  it('runs node in place of the script\u2019s shell: SIGTERM to the process npm started stops memloom, with MALLOC_ARENA_MAX set', async () => {
    const e = await env();
    const npm = spawn('npm', ['start', '--silent'], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn', PRETTY_LOGS: 'false', MALLOC_ARENA_MAX: '', ...e },
      stdio: 'ignore',
    });
    const npmExited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)));
    try {
      const url = `http://127.0.0.1:${e.PORT}`;
      for (let ready = false; !ready; await new Promise((r) => setTimeout(r, 200)))
        ready = (await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200;
      const owner = await liveOwner(e.MEMLOOM_HOME as string);
      expect(readFileSync(`/proc/${owner?.pid}/environ`, 'utf8').split('\0')).toContain('MALLOC_ARENA_MAX=2');
      const started = childrenOf(npm.pid as number);
      expect(started).toHaveLength(1);
      // What a supervisor or a terminal does: SIGTERM to the process npm started. A shell there
      // would die and leave memloom running as an orphan.
      process.kill(started[0] as number, 'SIGTERM');
      expect(await npmExited).toBe(0);
      expect(await liveOwner(e.MEMLOOM_HOME as string)).toBeUndefined();
      expect(await fetch(`${url}/readyz`).catch(() => 'refused')).toBe('refused');
      expect(started[0]).toBe(owner?.pid); // no shell in between
    } finally {
      const orphan = await liveOwner(e.MEMLOOM_HOME as string);
      if (orphan) process.kill(orphan.pid, 'SIGKILL');
      if (npm.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
    }
  }, 240_000);
});

describe('startup errors', () => {
  it('stops with one line naming a bad variable', async () => {
    const p = spawnMemloom(['start'], { ...(await env()), PORT: 'abc' });
    const { code } = await p.exited;
    expect(code).toBe(2);
    expect(p.output().trim()).toMatch(/^memloom: invalid PORT: expected an integer between 0 and 65535$/);
  });

  it('refuses to serve beyond loopback without API keys: invalid configuration, exit 2, before the database starts', async () => {
    const p = spawnMemloom(['api'], { ...(await env()), HOST: '0.0.0.0' });
    const { code } = await p.exited;
    expect(code).toBe(2);
    expect(p.output().trim()).toMatch(/^memloom api: invalid HOST: 0\.0\.0\.0 is not a loopback address.*set MEMLOOM_API_KEYS[^\n]*$/);
  }, 120_000);

  it('names a port in use in one line, exit 1, before the database starts', async () => {
    const e = await env();
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(Number(e.PORT), '127.0.0.1', resolve));
    try {
      const p = spawnMemloom(['start'], e);
      const { code } = await p.exited;
      expect(code).toBe(1);
      // One line, and nothing before it: no embedded database was initialized, no migration ran.
      expect(p.output().trim()).toBe(
        `memloom start: port ${e.PORT} on 127.0.0.1 is already in use (another memloom, or another program): stop it, or set PORT to a free port (PORT=0 picks one).`,
      );
      expect(existsSync(path.join(e.MEMLOOM_HOME as string, 'pgdata'))).toBe(false);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  }, 120_000);

  it.each([
    ['LLM_PROVIDER', 'LLM_API_KEY', 'start'],
    ['LLM_PROVIDER', 'LLM_API_KEY', 'worker --queues extract'],
    ['EMBEDDINGS_PROVIDER', 'EMBEDDINGS_API_KEY', 'api'],
  ])(
    '%s=openai without %s stops `memloom %s` with one line naming it, exit 2',
    async (provider, key, command) => {
      const e = await env({ [provider]: 'openai' });
      const args = command.split(' ');
      const p = spawnMemloom(args, e);
      const { code } = await p.exited;
      expect(code).toBe(2);
      expect(p.output().trim()).toMatch(new RegExp(`^memloom ${args[0]}: invalid ${key}: expected a key with ${provider}=openai[^\n]*$`));
      expect(existsSync(path.join(e.MEMLOOM_HOME as string, 'pgdata'))).toBe(false);
    },
    120_000,
  );
});
