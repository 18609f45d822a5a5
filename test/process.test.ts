import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REDIS_URL } from './support/memloom.js';
import { freePort, spawnMemloom as spawnProcess, waitReady, type MemloomProcess } from './support/process.js';

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
