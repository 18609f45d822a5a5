/**
 * Startup time to /readyz and idle RSS of `memloom start` in embedded mode (a real child process,
 * fresh MEMLOOM_HOME for the cold run, the same home again for the warm run). Prints figures.
 * Run: npm run bench:startup
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort, spawnMemloom } from '../test/support/process.js';

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

async function run(home: string, label: string, afterWork = 0): Promise<void> {
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
  if (afterWork > 0) {
    await work(p.url, afterWork);
    worked = `   RSS after processing ${afterWork} events ${(await rssMb(p.child.pid as number)).toFixed(0)} MB`;
  }
  p.child.kill('SIGTERM');
  const { code } = await p.exited;
  console.log(`${label.padEnd(28)} ready in ${(readyMs / 1000).toFixed(2)} s   idle RSS ${rss.toFixed(0)} MB${worked}   exit ${code}`);
}

const home = await mkdtemp(path.join(os.tmpdir(), 'memloom-startup-'));
console.log(`${new Date().toISOString()}  ${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}  node ${process.version}`);
await run(home, 'cold (new MEMLOOM_HOME)');
await run(home, 'warm (existing MEMLOOM_HOME)', 500);
await rm(home, { recursive: true, force: true });
