import { link, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { MemloomError } from '../errors.js';

/**
 * One process owns an embedded data directory. PGlite keeps its whole database in one process's
 * memory and writes pages and WAL from there: a second PGlite on the same files (another
 * `memloom start`, `doctor`, `migrate`, a CLI command) sees a database that is changing under it
 * and its checkpoint can leave files that never open again. PGlite's own postmaster.pid holds a
 * fixed fake pid (-42), so it guards nothing; this is the check PostgreSQL makes with its
 * postmaster.pid, done by memloom.
 *
 * The lock is MEMLOOM_HOME/memloom.pid, JSON `{pid, started, url?}`: `started` is the owner's
 * start time as the kernel reports it (/proc/<pid>/stat), so a pid reused by another process
 * after a kill -9 (a container restart makes memloom pid 1 again) is not taken for the owner.
 * A lock whose process is gone, is a zombie or is another process is stale, and the next start
 * takes it over.
 */
export interface LockOwner {
  pid: number;
  /** Kernel start time of the process (clock ticks since boot), or null where /proc is absent. */
  started: number | null;
  /** The owner's HTTP API, once it listens: commands go there instead of opening the files. */
  url?: string | undefined;
}

export const LOCK_FILE = 'memloom.pid';

export function lockPath(home: string): string {
  return path.resolve(home, LOCK_FILE);
}

/**
 * What /proc/<pid>/stat says of a process: its state (field 3) and its start time (field 22,
 * clock ticks since boot), read after the parenthesised name, which may hold spaces; undefined
 * where /proc is absent or the process is gone.
 */
function procStat(pid: number): { state: string; started: number | null } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    return { state: fields[0] ?? '', started: Number.isFinite(ticks) ? ticks : null };
  } catch {
    return undefined;
  }
}

function startTimeOf(pid: number): number | null {
  return procStat(pid)?.started ?? null;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

/**
 * The process a lock names still runs and is the same process (not a reused pid). A zombie (`Z`:
 * killed, not yet reaped by a parent that does not wait, e.g. a container's init) or a dead task
 * (`X`) still answers kill(pid, 0), but the kernel has already closed its files and freed its
 * memory: nothing of it can touch the database again, so its lock is stale.
 */
export function ownerIsLive(owner: LockOwner): boolean {
  if (!Number.isInteger(owner.pid) || owner.pid <= 0 || !alive(owner.pid)) return false;
  const now = procStat(owner.pid);
  if (now !== undefined && (now.state === 'Z' || now.state === 'X')) return false;
  if (owner.started === null) return true;
  return now === undefined || now.started === null || now.started === owner.started;
}

async function readOwner(file: string): Promise<{ owner: LockOwner | undefined; raw: string } | undefined> {
  let raw: string;
  try {
    raw = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const o = JSON.parse(raw) as LockOwner;
    return { owner: typeof o.pid === 'number' ? o : undefined, raw };
  } catch {
    return { owner: undefined, raw }; // half-written by a process killed mid-write: stale
  }
}

/** The live owner of MEMLOOM_HOME's embedded database, if any (commands ask before opening it). */
export async function liveOwner(home: string): Promise<LockOwner | undefined> {
  const found = await readOwner(lockPath(home));
  return found?.owner && ownerIsLive(found.owner) ? found.owner : undefined;
}

export function inUseError(home: string, owner: LockOwner): MemloomError {
  const api = owner.url ? ` (API ${owner.url})` : ' (no API in that process)';
  return new MemloomError(
    'DATABASE_IN_USE',
    `the embedded database in ${path.resolve(home, 'pgdata')} is in use by memloom pid ${owner.pid}${api}; stop it first${owner.url ? `, or use its API (--url ${owner.url})` : ''}. A second process must never open it.`,
    { kind: 'conflict', retryable: false, details: { pid: owner.pid, url: owner.url ?? null } },
  );
}

export interface DataDirLock {
  /** Records the API URL of the owning process, for commands that route to it. */
  setUrl(url: string): Promise<void>;
  release(): Promise<void>;
}

/**
 * Takes the lock of `home` or throws DATABASE_IN_USE naming the live owner. Creation is atomic
 * (a hard link of a complete temporary file: no reader ever sees half a lock, and of two
 * starters exactly one wins). A stale lock is moved aside under a name of our own and checked to
 * be the one judged stale before the lock is created again, so two starters after a crash cannot
 * both take it.
 */
export async function acquireDataDirLock(home: string): Promise<DataDirLock> {
  const file = lockPath(home);
  const me: LockOwner = { pid: process.pid, started: startTimeOf(process.pid) };
  const write = async (owner: LockOwner, target: string, how: 'link' | 'replace'): Promise<void> => {
    const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    await writeFile(tmp, JSON.stringify(owner));
    try {
      if (how === 'link') await link(tmp, target);
      else await rename(tmp, target);
    } finally {
      if (how === 'link') await rm(tmp, { force: true });
    }
  };
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      await write(me, file, 'link');
      return {
        setUrl: async (url) => write({ ...me, url }, file, 'replace'),
        release: async () => {
          const found = await readOwner(file);
          if (found?.owner?.pid === me.pid && found.owner.started === me.started) await rm(file, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const found = await readOwner(file);
    if (!found) continue; // released meanwhile
    if (found.owner && ownerIsLive(found.owner)) throw inUseError(home, found.owner);
    const aside = `${file}.stale.${process.pid}`;
    try {
      await rename(file, aside);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    const moved = await readFile(aside, 'utf8').catch(() => '');
    // Another starter replaced the stale lock between our read and our move: put its lock back.
    if (moved !== found.raw) await link(aside, file).catch(() => undefined);
    await rm(aside, { force: true });
  }
  throw new MemloomError('DATABASE_LOCK_CONTENDED', `could not take the lock ${file}: other processes keep taking it.`, { kind: 'conflict', retryable: false });
}
