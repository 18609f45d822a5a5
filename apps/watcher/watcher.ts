import { mkdir, readdir, stat } from 'node:fs/promises';
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
 * Files read at the same time. The database takes one write at a time (PGlite is single-threaded),
 * so more readers only add open descriptors; thousands of files created at once wait their turn.
 */
const PARALLEL_READS = 4;
const TENANT_RELIST_MS = 1_000;

/** What a file looked like when last scheduled; the rescan re-reads only files that differ. */
type Snapshot = string;
const snapshotOf = (s: { ino: number; size: number; mtimeMs: number }): Snapshot => `${s.ino}:${s.size}:${s.mtimeMs}`;

/**
 * Watches EVENTS_DIR recursively for *.jsonl files (also those created later). Each file is read
 * by one reader at a time; a change during a read schedules exactly one more read.
 */
export async function startWatcher(deps: Deps, opts: { rescanMs?: number; parallelReads?: number } = {}): Promise<RunningWatcher> {
  const root = path.resolve(deps.config.EVENTS_DIR);
  await mkdir(root, { recursive: true });
  const log = deps.log.child({ component: 'watcher' });
  const parallel = opts.parallelReads ?? PARALLEL_READS;
  const queued = new Set<string>();
  const active = new Map<string, Promise<void>>();
  const again = new Set<string>();
  const seen = new Map<string, Snapshot>();
  let idleWaiters: Array<() => void> = [];
  let tenants = new Set(await listTenants(deps.db));
  let closed = false;

  let listedAt = Date.now();
  /**
   * EVENTS_DIR/<tenant>/… belongs to that tenant when it exists. Tenants can be added while running,
   * so a miss re-lists them, at most once a second (a directory of thousands of files that is not
   * a tenant must not cost a query per file).
   */
  async function tenantOf(abs: string): Promise<string> {
    const parts = path.relative(root, abs).split(path.sep);
    if (parts.length < 2) return 'default';
    const dir = parts[0] as string;
    if (!tenants.has(dir) && Date.now() - listedAt >= TENANT_RELIST_MS) {
      tenants = new Set(await listTenants(deps.db));
      listedAt = Date.now();
    }
    return tenants.has(dir) ? dir : 'default';
  }

  function schedule(abs: string): void {
    if (closed || !abs.endsWith('.jsonl')) return;
    if (active.has(abs)) again.add(abs);
    else queued.add(abs);
    pump();
  }

  async function readOnce(abs: string): Promise<void> {
    const file = path.relative(root, abs);
    try {
      const info = await stat(abs).catch(() => undefined);
      if (!info) {
        seen.delete(abs);
        return;
      }
      seen.set(abs, snapshotOf(info));
      const r = await readEventsFile(deps, root, abs, await tenantOf(abs), { shouldStop: () => closed });
      if (r.stored > 0 || r.deadLetters > 0) log.debug({ file, ...r }, 'events file read');
    } catch (err) {
      seen.delete(abs); // the rescan tries again
      log.error({ err, file }, 'events file read failed; will retry on next change or rescan');
    }
  }

  function pump(): void {
    while (!closed && active.size < parallel && queued.size > 0) {
      const abs = queued.values().next().value as string;
      queued.delete(abs);
      const p = readOnce(abs).finally(() => {
        active.delete(abs);
        if (again.delete(abs)) queued.add(abs);
        pump();
        if (active.size === 0 && (queued.size === 0 || closed)) {
          const waiters = idleWaiters;
          idleWaiters = [];
          for (const w of waiters) w();
        }
      });
      active.set(abs, p);
    }
  }

  async function rescan(): Promise<void> {
    for (const abs of await listJsonl(root)) {
      const info = await stat(abs).catch(() => undefined);
      if (info && seen.get(abs) !== snapshotOf(info)) schedule(abs);
    }
  }

  const watcher: FSWatcher = watch(root, {
    ignored: (p, stats) => stats?.isFile() === true && !p.endsWith('.jsonl'),
    ignoreInitial: false,
    persistent: true,
  });
  watcher
    .on('add', schedule)
    .on('change', schedule)
    .on('error', (err) => log.error({ err }, 'watch error'));
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));

  const timer = setInterval(() => void rescan().catch((err: unknown) => log.warn({ err }, 'events directory rescan failed')), opts.rescanMs ?? RESCAN_MS);
  timer.unref();
  log.info({ dir: root }, 'watching events directory');

  return {
    async idle() {
      for (const f of await listJsonl(root)) schedule(f);
      while (active.size > 0 || (queued.size > 0 && !closed)) await new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
    async close() {
      closed = true;
      clearInterval(timer);
      queued.clear();
      await watcher.close();
      await Promise.all([...active.values()]);
    },
  };
}

export async function listJsonl(dir: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  for (const e of entries) if (e.isFile() && e.name.endsWith('.jsonl')) out.push(path.join(e.parentPath, e.name));
  return out;
}
