import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { postJson, startTestMemloom, waitFor, getJson, type TestMemloom } from './support/memloom.js';
import { ROOT } from './support/process.js';

/** `memloom recall | stats | export | import` as a user runs them: real processes against a running memloom over HTTP. */
const A = 'k-cli-a';
const B = 'k-cli-b';
let m: TestMemloom;
let dir: string;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function memloom(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, 'bin/memloom.js'), ...args],
      {
        cwd: ROOT,
        timeout: 120_000,
        maxBuffer: 64 * 1024 * 1024,
        // No DATABASE_URL and a MEMLOOM_HOME of its own: the commands must not need (nor open) a database.
        env: {
          PATH: process.env.PATH ?? '',
          HOME: dir,
          MEMLOOM_HOME: path.join(dir, 'home'),
          MEMLOOM_URL: m.url,
          MEMLOOM_API_KEY: A,
          LOG_LEVEL: 'warn',
          ...env,
        },
      },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'memloom-cli-'));
  m = await startTestMemloom({ roles: { api: true, workers: QUEUE_NAMES }, env: { MEMLOOM_API_KEYS: `${A}:alpha,${B}:beta` } });
  const events = [
    'We decided to use PostgreSQL with pgvector for the memory store.',
    'Alice works at Acme Corp in Berlin.',
    'To deploy the API, run npm run build and then kubectl apply -f infra/k8s.',
  ].map((content, i) => ({ id: `cli-${i}`, user_id: 'u-cli', session_id: 'cli-s', content }));
  expect((await postJson(`${m.url}/v1/events`, { events }, { authorization: `Bearer ${A}` })).status).toBe(202);
  await waitFor(async () => (await getJson(`${m.url}/v1/stats`, { authorization: `Bearer ${A}` })).body.pending_events === 0, {
    timeoutMs: 60_000,
    what: 'processing',
  });
});
afterAll(async () => {
  await m?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('memloom CLI against a running instance', () => {
  it('recall prints ranked results, or the JSON answer with --json', async () => {
    const r = await memloom(['recall', 'which database did we choose', '--user', 'u-cli', '--limit', '3', '--mode', 'memories']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ 1\. \d\.\d{3} {2}\[decision\] We decided to use PostgreSQL/);
    const j = await memloom(['recall', 'Acme', '--mode', 'chunks', '--json']);
    expect(JSON.parse(j.stdout).results.some((x: { content: string }) => x.content.includes('Acme Corp'))).toBe(true);
  });

  it('context prints the block on stdout and what it cost on stderr, or the JSON answer with --json', async () => {
    const r = await memloom(['context', 'which database did we choose', '--user', 'u-cli', '--budget', '200']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^## Current facts\n- \d{4}-\d{2}-\d{2}: We decided to use PostgreSQL.* \(memory [0-9a-f-]{36}\)\n/);
    expect(r.stderr).toMatch(/^\(match (strong|weak); \d+ of 200 tokens, \d+ items; recall /);
    const j = JSON.parse((await memloom(['context', 'which database did we choose', '--user', 'u-cli', '--json'])).stdout);
    expect(j).toMatchObject({ budget_tokens: 1000, match: expect.stringMatching(/strong|weak/) });
    expect(j.tokens).toBeLessThanOrEqual(1000);
    const none = await memloom(['context', 'Who is Priya Raman?', '--user', 'u-cli']);
    expect(none).toMatchObject({ code: 0, stdout: '' });
    expect(none.stderr).toMatch(/^nothing is stored about that \(match: none/);
    const bad = await memloom(['context', 'x', '--budget', '10']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid --budget');
  });

  it('stats prints the tenant\u2019s counts', async () => {
    const r = await memloom(['stats', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ objects: { events: 3 }, pending_events: 0 });
    const human = await memloom(['stats']);
    expect(human.stdout).toMatch(/events +3/);
    expect(human.stdout).toContain('pending events: 0');
  });

  it('export writes a complete file with progress on stderr; import loads it into another tenant', async () => {
    const file = path.join(dir, 'alpha.jsonl');
    const e = await memloom(['export', '--out', file]);
    expect(e.code, e.stderr).toBe(0);
    expect(e.stdout).toBe('');
    expect(e.stderr).toMatch(/export: .* lines/);
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    expect(JSON.parse(lines[lines.length - 1] as string).record).toBe('end');
    await expect(stat(`${file}.partial`)).rejects.toThrow();

    const i = await memloom(['import', file], { MEMLOOM_API_KEY: B });
    expect(i.code, i.stderr).toBe(0);
    expect(i.stderr).toMatch(/import: 100% of/);
    const result = JSON.parse(i.stdout);
    expect(result).toMatchObject({ rejected: 0, complete: true, imported: { event: 3 } });
    const beta = await memloom(['stats', '--json'], { MEMLOOM_API_KEY: B });
    expect(JSON.parse(beta.stdout).objects.events).toBe(3);

    const md = await memloom(['export', '--format', 'markdown', '--user', 'u-cli']);
    expect(md.stdout).toMatch(/^# memloom export/);
  });

  it('each command has its own --help; an unknown flag is an error naming it', async () => {
    for (const cmd of ['recall', 'context', 'stats', 'export', 'import', 'mcp', 'ingest', 'forget']) {
      const h = await memloom([cmd, '--help']);
      expect(h.code).toBe(0);
      expect(h.stdout).toMatch(new RegExp(`^Usage: memloom ${cmd}`));
    }
    const bad = await memloom(['stats', '--jsonn']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^memloom stats: unknown option --jsonn/);
    const badMode = await memloom(['recall', 'x', '--mode', 'everything']);
    expect(badMode.code).toBe(2);
    expect(badMode.stderr).toContain('invalid --mode');
  });

  it('runs as `npx memloom` from the clone', async () => {
    const r = await new Promise<Run>((resolve) => {
      execFile(
        'npx',
        ['--no-install', 'memloom', 'stats', '--help'],
        { cwd: ROOT, timeout: 120_000, env: { PATH: process.env.PATH ?? '', HOME: dir } },
        (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Usage: memloom stats/);
  });

  it('says in one line which URL did not answer and what to do', async () => {
    // A port nothing listens on: taken from the system, then let go.
    const nowhere = createServer();
    await new Promise<void>((resolve) => nowhere.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(nowhere.address() as { port: number }).port}`;
    await new Promise<void>((resolve) => nowhere.close(() => resolve()));
    const hint = 'Start memloom (npm start, or memloom start), or point --url or MEMLOOM_URL at the one that runs.';
    for (const [args, call] of [
      [['stats'], '; GET /v1/stats'],
      [['recall', 'anything'], '; POST /v1/recall'],
      [['forget', '--user', 'u', '--url', url], ''],
    ] as const) {
      const r = await memloom([...args], { MEMLOOM_URL: url });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toBe(`memloom ${args[0]}: no memloom answers at ${url} (ECONNREFUSED${call}). ${hint}\n`);
    }
    // A port fetch refuses to call at all: the reason is still named.
    const bad = await memloom(['stats'], { MEMLOOM_URL: 'http://127.0.0.1:9' });
    expect(bad.stderr).toBe(`memloom stats: no memloom answers at http://127.0.0.1:9 (bad port; GET /v1/stats). ${hint}\n`);
  });
});
