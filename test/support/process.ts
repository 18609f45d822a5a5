import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

export interface MemloomProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `node bin/memloom.js <args>` as a real child process. */
export function spawnMemloom(args: string[], env: Record<string, string>): MemloomProcess {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/memloom.js'), ...args], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', PRETTY_LOGS: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, url: `http://127.0.0.1:${env.PORT}`, output: () => out, exited };
}

export async function waitReady(p: MemloomProcess, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void p.exited.then(() => (exited = true));
  while (Date.now() < deadline && !exited) {
    try {
      const res = await fetch(`${p.url}/readyz`);
      if (res.status === 200) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`memloom did not become ready:\n${p.output().slice(-3000)}`);
}
