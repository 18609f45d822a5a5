/**
 * Startup time to /readyz and idle RSS of `memloom start` in embedded mode (a real child process,
 * fresh MEMLOOM_HOME for the cold run, the same home again for the warm run), then, against that
 * warm instance, how long `memloom mcp` takes to answer `initialize` over stdio and how long one run
 * of the agent hook (bin/memloom-hook.js) takes. Prints figures; `--runs N` repeats the cold and
 * warm starts N times (a new home each time) and the mcp and hook timings 5 × N times.
 * Run: npm run bench:startup [-- --runs 3]
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort, ROOT, spawnMemloom, type MemloomProcess } from '../test/support/process.js';

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** POSTs `n` short conversational events and waits until none is pending. */
async function work(url: string, n: number): Promise<void> {
  const events = Array.from({ length: n }, (_, i) => ({
    type: 'message',
    session_id: `s${i % 10}`,
    user_id: 'bench',
    role: i % 2 ? 'assistant' : 'user',
    content: `Turn ${i}: I moved to Lisbon in ${2000 + (i % 20)} and I work on the ${['Atlas', 'Borealis', 'Cirrus'][i % 3]} project with Maria.`,
  }));
  const res = await fetch(`${url}/v1/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ events }) });
  if (res.status !== 202) throw new Error(`batch: ${res.status} ${await res.text()}`);
  for (;;) {
    const stats = (await (await fetch(`${url}/v1/stats`)).json()) as { pending_events?: number };
    if (stats.pending_events === 0) return;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Milliseconds from spawning `node <script> <args>` until `done(stdout)` holds, or until it exits. */
async function timeChild(args: string[], env: Record<string, string>, input: string, done?: (out: string) => boolean): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'ignore'] });
  let out = '';
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const answered = new Promise<void>((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (done?.(out)) resolve();
    });
  });
  child.stdin.write(input);
  if (!done) child.stdin.end();
  await (done ? Promise.race([answered, exited]) : exited);
  const ms = performance.now() - started;
  child.kill('SIGTERM');
  await exited;
  return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? Number.NaN;
const range = (xs: number[]) => `median ${median(xs).toFixed(0)} ms (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}, ${xs.length} runs)`;

/** `memloom mcp` and the hook against the running instance `p`. */
async function clients(p: MemloomProcess, times: number): Promise<void> {
  const initialize = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } })}\n`;
  const env = { MEMLOOM_URL: p.url, LOG_LEVEL: 'warn', MEMLOOM_USER_ID: 'bench' };
  const hook = (event: object) => JSON.stringify({ session_id: 'bench-hook', cwd: ROOT, ...event });
  const runs = { mcp: [] as number[], start: [] as number[], prompt: [] as number[] };
  for (let i = 0; i < times; i++) {
    runs.mcp.push(await timeChild([path.join(ROOT, 'bin/memloom.js'), 'mcp'], env, initialize, (out) => out.includes('"id":1')));
    runs.start.push(await timeChild([path.join(ROOT, 'bin/memloom-hook.js')], env, hook({ hook_event_name: 'SessionStart', source: 'startup' })));
    // EVENTS_DIR unset: the prompt goes to the API (the hook's slower path: context block, then the event).
    runs.prompt.push(
      await timeChild(
        [path.join(ROOT, 'bin/memloom-hook.js')],
        { ...env, EVENTS_DIR: '' },
        hook({ hook_event_name: 'UserPromptSubmit', prompt: 'Where did I move?' }),
      ),
    );
  }
  console.log(`memloom mcp answers initialize (stdio)   ${range(runs.mcp)}`);
  console.log(`hook, SessionStart (working memory)       ${range(runs.start)}`);
  console.log(`hook, UserPromptSubmit (context + event)  ${range(runs.prompt)}`);
}

async function run(home: string, label: string, opts: { afterWork?: number; clients?: number } = {}): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const p = spawnMemloom(['start'], { MEMLOOM_HOME: home, EVENTS_DIR: path.join(home, 'events'), PORT: String(port), LOG_LEVEL: 'warn' });
  for (;;) {
    try {
      if ((await fetch(`${p.url}/readyz`)).status === 200) break;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const readyMs = performance.now() - started;
  await new Promise((r) => setTimeout(r, 10_000)); // idle: schedulers tick, nothing to process
  const rss = await rssMb(p.child.pid as number);
  let worked = '';
  if (opts.afterWork) {
    await work(p.url, opts.afterWork);
    worked = `   RSS after processing ${opts.afterWork} events ${(await rssMb(p.child.pid as number)).toFixed(0)} MB`;
  }
  if (opts.clients) await clients(p, opts.clients);
  p.child.kill('SIGTERM');
  const { code } = await p.exited;
  console.log(`${label.padEnd(28)} ready in ${(readyMs / 1000).toFixed(2)} s   idle RSS ${rss.toFixed(0)} MB${worked}   exit ${code}`);
  return readyMs;
}

const runsFlag = process.argv.indexOf('--runs');
const runs = runsFlag >= 0 ? Number(process.argv[runsFlag + 1]) : 1;
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs takes a whole number ≥ 1');
console.log(
  `${new Date().toISOString()}  ${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}  node ${process.version}  load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
const cold: number[] = [];
const warm: number[] = [];
for (let i = 0; i < runs; i++) {
  const home = await mkdtemp(path.join(os.tmpdir(), 'memloom-startup-'));
  cold.push(await run(home, 'cold (new MEMLOOM_HOME)'));
  warm.push(await run(home, 'warm (existing MEMLOOM_HOME)', { afterWork: i === 0 ? 500 : 0, clients: 5 }));
  await rm(home, { recursive: true, force: true });
}
if (runs > 1) console.log(`cold ${range(cold)}; warm ${range(warm)}`);
console.log(
  `load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
