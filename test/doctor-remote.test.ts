import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, spawnMemloom, waitReady, type MemloomProcess } from './support/process.js';

/**
 * `memloom doctor` while an embedded memloom runs on the same MEMLOOM_HOME: the running process
 * owns the database files, so doctor asks it (GET /admin/doctor, at the URL its data-directory
 * lock names) instead of refusing; the route is an operator surface (admin key once keys are set).
 */
describe('memloom doctor through a running embedded memloom', () => {
  const ADMIN = 'doctor-admin-key';
  const TENANT_KEY = 'doctor-tenant-key';
  let home: string;
  let owner: MemloomProcess;
  let env: Record<string, string>;
  const procs: MemloomProcess[] = [];

  beforeAll(async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'memloom-doctor-'));
    env = { MEMLOOM_HOME: home, EVENTS_DIR: path.join(home, 'events'), MEMLOOM_API_KEYS: `${TENANT_KEY}:acme`, MEMLOOM_ADMIN_KEYS: ADMIN };
    owner = spawnMemloom(['start'], { ...env, PORT: String(await freePort()) });
    procs.push(owner);
    await waitReady(owner);
  }, 120_000);
  afterAll(async () => {
    for (const p of procs)
      if (p.child.exitCode === null && p.child.signalCode === null) {
        p.child.kill('SIGKILL');
        await p.exited;
      }
    await rm(home, { recursive: true, force: true });
  });

  async function run(args: string[], extra: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; output: string }> {
    // Another PORT: only the data directory's lock can tell doctor where the owner listens.
    const p = spawnMemloom(args, { ...env, PORT: String(await freePort()), LOG_LEVEL: 'silent', ...extra });
    procs.push(p);
    const { code } = await p.exited;
    const output = p.output();
    return { code, stdout: output.slice(output.indexOf('{')), output };
  }

  it('answers its checks over HTTP to an admin key only', async () => {
    const post = await fetch(`${owner.url}/v1/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TENANT_KEY}` },
      body: JSON.stringify({ user_id: 'u-doc', session_id: 's-doc', content: 'We decided to use PostgreSQL for memory.' }),
    });
    expect(post.status).toBe(202);
    expect((await fetch(`${owner.url}/admin/doctor`)).status).toBe(401);
    expect((await fetch(`${owner.url}/admin/doctor`, { headers: { authorization: `Bearer ${TENANT_KEY}` } })).status).toBe(403);
    const res = await fetch(`${owner.url}/admin/doctor`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { tenants: Record<string, Record<string, number>>; violations: number };
    expect(Object.keys(body.tenants).sort()).toEqual(['acme', 'default']);
    expect(body.tenants.acme).toMatchObject({ memories_without_provenance: 0, chunks_without_event: 0 });
    expect(body.violations).toBe(0);
    const one = await fetch(`${owner.url}/admin/doctor?tenant=acme`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(Object.keys(((await one.json()) as { tenants: object }).tenants)).toEqual(['acme']);
    expect((await fetch(`${owner.url}/admin/doctor?tenant=a%00b`, { headers: { authorization: `Bearer ${ADMIN}` } })).status).toBe(400);
    expect((await fetch(`${owner.url}/admin/doctor?nope=1`, { headers: { authorization: `Bearer ${ADMIN}` } })).status).toBe(400);
  });

  it('is run by `memloom doctor` on the same MEMLOOM_HOME through the owner the lock names, with the configured admin key', async () => {
    const r = await run(['doctor']);
    expect(r.code, r.output).toBe(0);
    const tenants = JSON.parse(r.stdout) as Record<string, Record<string, number>>;
    expect(Object.keys(tenants).sort()).toEqual(['acme', 'default']);
    expect(Object.values(tenants.acme ?? {}).length).toBeGreaterThan(5);

    const one = await run(['doctor', '--tenant', 'acme']);
    expect(one.code, one.output).toBe(0);
    expect(Object.keys(JSON.parse(one.stdout))).toEqual(['acme']);

    // --url reaches it too; a tenant's key is refused, naming what the doctor needs.
    const refused = await run(['doctor', '--url', owner.url, '--api-key', TENANT_KEY]);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('MEMLOOM_ADMIN_KEYS');
    const byUrl = await run(['doctor', '--url', owner.url], { MEMLOOM_HOME: path.join(home, 'elsewhere') });
    expect(byUrl.code, byUrl.output).toBe(0);

    // The owner kept running and serving throughout.
    expect((await fetch(`${owner.url}/readyz`)).status).toBe(200);
  }, 120_000);
});
