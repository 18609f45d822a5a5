import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REDIS_URL } from './support/memloom.js';
import { freePort, spawnMemloom, waitReady } from './support/process.js';

const homes: string[] = [];
afterAll(async () => {
  for (const h of homes) await rm(h, { recursive: true, force: true });
});

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

  it('refuses to serve beyond loopback without API keys', async () => {
    const p = spawnMemloom(['api'], { ...(await env()), HOST: '0.0.0.0' });
    const { code } = await p.exited;
    expect(code).toBe(1);
    expect(p.output()).toMatch(/set MEMLOOM_API_KEYS/);
  }, 120_000);
});
