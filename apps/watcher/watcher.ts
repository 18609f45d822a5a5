import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { Deps } from '../../src/deps.js';
import { listTenants } from '../../src/db/pool.js';
import { readEventsFile } from './file-reader.js';

export interface RunningWatcher {
  /** Resolves when every file seen so far has been read to its last complete line. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** A safety net beside file-system notifications, which can be missed (network mounts, bursts). */
const RESCAN_MS = 5_000;

/**
 * Watches EVENTS_DIR recursively for *.jsonl files (also those created later). Each file is read
 * by one reader at a time; a change during a read schedules exactly one more read.
 */
export async function startWatcher(deps: Deps, opts: { rescanMs?: number } = {}): Promise<RunningWatcher> {
  const root = path.resolve(deps.config.EVENTS_DIR);
  await mkdir(root, { recursive: true });
  const log = deps.log.child({ component: 'watcher' });
  const running = new Map<string, Promise<void>>();
  const again = new Set<string>();
  let tenants = new Set(await listTenants(deps.db));
  let closed = false;

  async function tenantOf(abs: string): Promise<string> {
    const parts = path.relative(root, abs).split(path.sep);
    if (parts.length < 2) return 'default';
    const dir = parts[0] as string;
    if (!tenants.has(dir)) tenants = new Set(await listTenants(deps.db));
    return tenants.has(dir) ? dir : 'default';
  }

  function schedule(abs: string): void {
    if (closed || !abs.endsWith('.jsonl')) return;
    if (running.has(abs)) {
      again.add(abs);
      return;
    }
    const p = (async () => {
      do {
        again.delete(abs);
        try {
          const r = await readEventsFile(deps, root, abs, await tenantOf(abs));
          if (r.stored > 0 || r.deadLetters > 0) log.debug({ file: path.relative(root, abs), ...r }, 'events file read');
        } catch (err) {
          log.error({ err, file: path.relative(root, abs) }, 'events file read failed; will retry on next change or rescan');
        }
      } while (again.has(abs) && !closed);
    })().finally(() => running.delete(abs));
    running.set(abs, p);
  }

  const watcher: FSWatcher = watch(root, {
    ignored: (p, stats) => stats?.isFile() === true && !p.endsWith('.jsonl'),
    ignoreInitial: false,
    persistent: true,
  });
  watcher.on('add', schedule).on('change', schedule).on('error', (err) => log.error({ err }, 'watch error'));
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));

  const rescan = setInterval(() => void listJsonl(root).then((files) => files.forEach(schedule), () => undefined), opts.rescanMs ?? RESCAN_MS);
  rescan.unref();
  log.info({ dir: root }, 'watching events directory');

  return {
    async idle() {
      for (const f of await listJsonl(root)) schedule(f);
      while (running.size > 0) await Promise.all([...running.values()]);
    },
    async close() {
      closed = true;
      clearInterval(rescan);
      await watcher.close();
      await Promise.all([...running.values()]);
    },
  };
}

export async function listJsonl(dir: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  for (const e of entries) if (e.isFile() && e.name.endsWith('.jsonl')) out.push(path.join(e.parentPath, e.name));
  return out;
}
