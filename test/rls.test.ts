import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../src/db/pool.js';
import { startTestMemloom, type TestMemloom } from './support/memloom.js';
import { SERVER_MODE } from './support/server-db.js';

let m: TestMemloom;

beforeAll(async () => {
  m = await startTestMemloom({ env: { MEMLOOM_API_KEYS: 'ka:acme,kb:globex' }, roles: { api: false } });
  for (const [tenant, content] of [
    ['acme', 'acme secret plan'],
    ['globex', 'globex secret plan'],
  ] as const) {
    await withTenant(m.deps.db, tenant, (tx) =>
      tx.query(`INSERT INTO events (idem_key, content, content_hash) VALUES ($1, $2, 'h')`, [`k-${tenant}`, content]),
    );
  }
});
afterAll(async () => m?.close());

describe('row-level security', () => {
  it('runs on the database the suite asked for: embedded, or (npm run test:server) a PostgreSQL server reached as a role that is not a superuser', async () => {
    expect(m.deps.embedded === undefined).toBe(SERVER_MODE !== undefined);
    if (SERVER_MODE === undefined) return;
    const { rows } = await m.deps.db.query<{ server: string; superuser: boolean }>(
      `SELECT current_setting('server_version_num') AS server, r.rolsuper AS superuser FROM pg_roles r WHERE r.rolname = session_user`,
    );
    expect(rows[0]?.superuser).toBe(false);
    expect(Number(rows[0]?.server)).toBeGreaterThanOrEqual(150000);
  });

  it('runs the application as a non-superuser role without BYPASSRLS', async () => {
    const { rows } = await m.deps.db.query<{ role: string; superuser: boolean; bypass: boolean }>(
      `SELECT current_user AS role, r.rolsuper AS superuser, r.rolbypassrls AS bypass FROM pg_roles r WHERE r.rolname = current_user`,
    );
    expect(rows[0]).toEqual({ role: 'memloom_app', superuser: false, bypass: false });
  });

  it('forces policies on every tenant-owned table', async () => {
    const { rows } = await m.deps.db.query<{ relname: string; forced: boolean; enabled: boolean }>(
      `SELECT c.relname, c.relrowsecurity AS enabled, c.relforcerowsecurity AS forced FROM pg_class c
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tenant_id'
       WHERE c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace AND c.relname <> 'tenants'`,
    );
    expect(rows.length).toBeGreaterThanOrEqual(15);
    for (const r of rows) expect({ table: r.relname, enabled: r.enabled, forced: r.forced }).toEqual({ table: r.relname, enabled: true, forced: true });
  });

  it('a hand-written query of one tenant cannot read another tenant\u2019s rows', async () => {
    const seen = await withTenant(m.deps.db, 'acme', async (tx) =>
      (await tx.query<{ content: string }>('SELECT content FROM events')).rows.map((r) => r.content),
    );
    expect(seen).toEqual(['acme secret plan']);
    const explicit = await withTenant(m.deps.db, 'acme', async (tx) => (await tx.query(`SELECT * FROM events WHERE tenant_id = 'globex'`)).rowCount);
    expect(explicit).toBe(0);
  });

  it('cannot change or delete another tenant\u2019s rows, nor insert rows for it', async () => {
    const updated = await withTenant(
      m.deps.db,
      'acme',
      async (tx) => (await tx.query(`UPDATE events SET content = 'pwned' WHERE tenant_id = 'globex'`)).rowCount,
    );
    const deleted = await withTenant(m.deps.db, 'acme', async (tx) => (await tx.query(`DELETE FROM events WHERE tenant_id = 'globex'`)).rowCount);
    expect(updated).toBe(0);
    expect(deleted).toBe(0);
    await expect(
      withTenant(m.deps.db, 'acme', (tx) => tx.query(`INSERT INTO events (tenant_id, idem_key, content, content_hash) VALUES ('globex', 'x', 'forged', 'h')`)),
    ).rejects.toThrow(/row-level security/);
    const globex = await withTenant(m.deps.db, 'globex', async (tx) =>
      (await tx.query<{ content: string }>('SELECT content FROM events')).rows.map((r) => r.content),
    );
    expect(globex).toEqual(['globex secret plan']);
  });

  it('sees nothing at all without a tenant set', async () => {
    const { rowCount } = await m.deps.db.query('SELECT * FROM events');
    expect(rowCount).toBe(0);
  });
});
