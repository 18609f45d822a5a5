/**
 * The package as a user installs it: `npm pack` makes a tarball of the compiled build, which installs
 * in a scratch folder without dev dependencies (no TypeScript, no tsx) and starts from the compiled
 * build: ready, an event stored and recalled, SIGTERM ends it with exit 0.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { buildIsCurrent } from '../bin/build-state.js';
import { freePort, ROOT, waitReady, type MemloomProcess } from './support/process.js';

const run = promisify(execFile);
let scratch = '';
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('installs without dev dependencies and starts from its compiled build', async () => {
    scratch = await mkdtemp(path.join(os.tmpdir(), 'memloom-pack-'));
    // npm test builds first (pretest); packing without scripts does not rebuild dist/ under the
    // other test files' running processes.
    if (!buildIsCurrent(new URL(`file://${ROOT}/`))) await run(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], { cwd: ROOT });
    const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
    const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = (info?.files ?? []).map((f) => f.path);
    expect(files).toContain('dist/server/apps/cli/main.js');
    // `memloom mcp` starts from one bundled module (scripts/build-bundle.mjs).
    expect(files).toContain('dist/server/apps/cli/mcp.bundle.js');
    expect(files).toContain('dist/server/BUILD_STAMP');
    expect(files.some((f) => f.startsWith('prisma/migrations/'))).toBe(true);
    expect(files.some((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toBe(false);
    expect(files).toContain('dist/server/apps/console/index.html');
    // A first start creates its database from this template instead of initdb + every migration.
    expect(files).toContain('dist/pgdata-template.tgz');
    expect(files).toContain('dist/pgdata-template.json');

    const app = path.join(scratch, 'app');
    await run('mkdir', ['-p', app]);
    await writeFile(path.join(app, 'package.json'), JSON.stringify({ name: 'scratch', private: true }));
    await run('npm', ['install', path.join(scratch, info?.filename ?? ''), '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: app,
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(existsSync(path.join(app, 'node_modules/tsx'))).toBe(false);
    expect(existsSync(path.join(app, 'node_modules/typescript'))).toBe(false);

    const port = await freePort();
    const child = spawn(path.join(app, 'node_modules/.bin/memloom'), ['start'], {
      cwd: app,
      env: { ...process.env, MEMLOOM_HOME: path.join(scratch, 'home'), EVENTS_DIR: path.join(scratch, 'events'), PORT: String(port), LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    const p: MemloomProcess = { child, url: `http://127.0.0.1:${port}`, output: () => out, exited };
    try {
      await waitReady(p, 180_000);
      const sent = await fetch(`${p.url}/v1/events?wait=searchable`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user_id: 'pack', content: 'The installed package keeps its notes in SQLite.' }),
      });
      expect(((await sent.json()) as { searchable: boolean }).searchable).toBe(true);
      const recall = await fetch(`${p.url}/v1/recall`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user_id: 'pack', query: 'Where does the installed package keep its notes?' }),
      });
      const body = (await recall.json()) as { results: Array<{ content: string }> };
      expect(body.results[0]?.content).toMatch(/SQLite/);
      // The console and the API reference are served from the installed files.
      const page = await fetch(`${p.url}/`);
      expect(await page.text()).toContain('/console/app.js');
      // Bodies read to the end: a response left unread holds its connection, and the drain at SIGTERM waits for it.
      for (const asset of ['/console/app.js', '/docs/static/swagger-ui-bundle.js']) {
        const res = await fetch(`${p.url}${asset}`);
        expect((await res.arrayBuffer()).byteLength, asset).toBeGreaterThan(0);
        expect(res.status, asset).toBe(200);
      }
      // `memloom mcp` from the installed bundle answers an agent's initialize, then ends with its input.
      const mcp = spawn(path.join(app, 'node_modules/.bin/memloom'), ['mcp'], { cwd: app, env: { ...process.env, MEMLOOM_URL: p.url, LOG_LEVEL: 'warn' } });
      let answer = '';
      mcp.stdout.on('data', (d: Buffer) => (answer += d.toString()));
      const mcpExited = new Promise((resolve) => mcp.on('exit', resolve));
      const params = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pack', version: '1' } };
      mcp.stdin.end(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params })}\n`);
      expect(await mcpExited).toBe(0);
      const { version } = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
      expect(JSON.parse(answer).result.serverInfo).toEqual({ name: 'memloom', version });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, out.slice(-2000)).toEqual({ code: 0, signal: null });
  }, 600_000);
});
