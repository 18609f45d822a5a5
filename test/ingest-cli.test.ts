import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingest } from '../apps/cli/commands/ingest.js';
import { parseArgs } from '../apps/cli/args.js';
import { loadConfig } from '../src/config.js';
import { withTenant } from '../src/db/pool.js';
import { getOffset } from '../src/db/sql/watcher-offsets.js';
import { createLogger } from '../src/logger.js';
import { getJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

class Collect extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

/** Runs `memloom ingest …` in this process against the given memloom. */
async function runIngest(m: TestMemloom, argv: string[]) {
  const config = loadConfig({ EVENTS_DIR: m.eventsDir, LOG_LEVEL: 'silent' });
  const stdout = new Collect();
  const stderr = new Collect();
  const args = parseArgs(argv.includes('--url') ? argv : [...argv, '--url', m.url]);
  // As apps/cli/main.ts does: the command gets the positionals after its own name.
  await ingest(config, createLogger(config, stderr), { ...args, positionals: args.positionals.slice(1) }, { stdout, stderr });
  return { summary: JSON.parse(stdout.text) as Record<string, number>, stderr: stderr.text };
}

const LINES = [
  '{"content":"We picked PostgreSQL for the memory store.","type":"decision","user_id":"u-1"}',
  '{"content":"The deploy runs on Fridays.","session_id":"s-1"}',
  '{"content": broken json',
  '',
  '{"id":"explicit-1","content":"An event with its own id."}',
  '{"content":"bad type","type":"bogus"}',
  '{"content":"CRLF line ending."}\r',
  '[1,2,3]',
  '{"content":"Last line without a newline."}',
];

describe('memloom ingest', () => {
  let m: TestMemloom;
  let dir: string;
  beforeAll(async () => {
    m = await startTestMemloom({ roles: { api: true, watcher: true } });
    dir = await mkdtemp(path.join(os.tmpdir(), 'memloom-ingest-'));
  });
  afterAll(async () => {
    await m?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const events = async () => (await getJson(`${m.url}/v1/stats`)).body.objects.events as number;

  it('stores each event once when a file is imported twice, and counts bad lines as rejected', async () => {
    const file = path.join(dir, 'session.jsonl');
    await writeFile(file, LINES.join('\n'));
    const before = await events();
    const first = await runIngest(m, ['ingest', file, '--batch', '2']);
    expect(first.summary).toEqual({ files: 1, lines: 8, accepted: 5, duplicates: 0, rejected: 3 });
    expect(first.stderr).toContain('session.jsonl:3: rejected: invalid JSON');
    expect(first.stderr).toContain('session.jsonl:6: rejected: type');
    expect(first.stderr).toContain('session.jsonl:8: rejected: an event must be a JSON object');
    expect(await events()).toBe(before + 5);

    const second = await runIngest(m, ['ingest', file]);
    expect(second.summary).toEqual({ files: 1, lines: 8, accepted: 0, duplicates: 5, rejected: 3 });
    expect(await events()).toBe(before + 5);
  });

  it('imports every *.jsonl of a directory recursively', async () => {
    const root = path.join(dir, 'tree');
    await mkdir(path.join(root, 'a', 'b'), { recursive: true });
    await writeFile(path.join(root, 'one.jsonl'), '{"content":"tree one"}\n{"content":"tree two"}\n');
    await writeFile(path.join(root, 'a', 'b', 'deep.jsonl'), '{"content":"tree deep"}\n');
    await writeFile(path.join(root, 'a', 'notes.txt'), 'not events\n');
    const r = await runIngest(m, ['ingest', root]);
    expect(r.summary).toEqual({ files: 2, lines: 3, accepted: 3, duplicates: 0, rejected: 0 });
  });

  it('gives lines without id the watcher’s key: a file the watcher already read adds nothing', async () => {
    const file = path.join(m.eventsDir, 'agent', 'watched.jsonl');
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, '{"content":"watched one"}\n{"content":"watched two"}\n\n{"content":"watched three"}\n');
    const size = (await stat(file)).size;
    await waitFor(async () => (await getOffset(m.deps.db, path.join('agent', 'watched.jsonl')))?.byte_offset === size, {
      what: 'the watcher to read the file',
    });
    const before = await events();
    const r = await runIngest(m, ['ingest', file]);
    expect(r.summary).toEqual({ files: 1, lines: 3, accepted: 0, duplicates: 3, rejected: 0 });
    expect(await events()).toBe(before);
    const { rows } = await withTenant(m.deps.db, 'default', (tx) =>
      tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE content LIKE 'watched %'`),
    );
    expect(rows[0]?.n).toBe(3);
  });

  it('fails with a usage error without a path, and on an unreachable API after retries', async () => {
    await expect(runIngest(m, ['ingest'])).rejects.toThrow(/usage: memloom ingest/);
    await expect(runIngest(m, ['ingest', path.join(dir, 'session.jsonl'), '--batch', '0'])).rejects.toThrow(/invalid --batch/);
    const nowhere = createServer();
    await new Promise<void>((resolve) => nowhere.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(nowhere.address() as { port: number }).port}`;
    await new Promise<void>((resolve) => nowhere.close(() => resolve()));
    await expect(runIngest(m, ['ingest', path.join(dir, 'session.jsonl'), '--url', url])).rejects.toMatchObject({
      code: 'API_UNREACHABLE',
      message: expect.stringContaining('session.jsonl:1'),
    });
  });

  it('runs as `node bin/memloom.js ingest` and prints the summary on stdout', async () => {
    const file = path.join(dir, 'cli.jsonl');
    await writeFile(file, '{"content":"from the binary one"}\n{"content":"from the binary two"}\nnot json\n');
    const child = spawn(process.execPath, [path.join(repo, 'bin/memloom.js'), 'ingest', file, '--url', m.url], {
      cwd: repo,
      env: { ...process.env, LOG_LEVEL: 'silent', EVENTS_DIR: m.eventsDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ files: 1, lines: 3, accepted: 2, duplicates: 0, rejected: 1 });
    expect(stderr).toContain('cli.jsonl:3: rejected: invalid JSON');
  });
});
