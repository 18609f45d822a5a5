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

async function run(home: string, label: string): Promise<void> {
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
  p.child.kill('SIGTERM');
  const { code } = await p.exited;
  console.log(`${label.padEnd(28)} ready in ${(readyMs / 1000).toFixed(2)} s   idle RSS ${rss.toFixed(0)} MB   exit ${code}`);
}

const home = await mkdtemp(path.join(os.tmpdir(), 'memloom-startup-'));
console.log(`${new Date().toISOString()}  ${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}  node ${process.version}`);
await run(home, 'cold (new MEMLOOM_HOME)');
await run(home, 'warm (existing MEMLOOM_HOME)');
await rm(home, { recursive: true, force: true });
