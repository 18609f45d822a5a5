/**
 * What a process's resident memory is made of, from /proc/<pid>/smaps (Linux only): the mapped
 * binary and libraries, WebAssembly memories (single anonymous mappings larger than a malloc arena:
 * PGlite's is one mapping of its whole memory, of which the pages touched are resident), glibc's
 * malloc heaps (the main `[heap]` and the per-thread arenas, 64 MB-aligned mappings of at most
 * 64 MB), executable anonymous memory (compiled JavaScript and WebAssembly), and the rest of the
 * anonymous memory (the V8 heaps of every isolate, thread stacks).
 */
import { readFileSync } from 'node:fs';

export interface RssBreakdown {
  /** MB each. */
  total: number;
  files: number;
  wasm: number;
  mallocMain: number;
  mallocArenas: number;
  code: number;
  otherAnon: number;
}

const ARENA = 64 * 2 ** 20;

interface Mapping {
  start: number;
  end: number;
  perm: string;
  path: string;
  rssKb: number;
}

function mappings(pid: number | 'self'): Mapping[] {
  const out: Mapping[] = [];
  let cur: Mapping | undefined;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      cur = { start: parseInt(head[1]!, 16), end: parseInt(head[2]!, 16), perm: head[3]!, path: head[4]!, rssKb: 0 };
      out.push(cur);
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && cur) cur.rssKb = Number(rss[1]);
  }
  return out;
}

/** Undefined where /proc is not there (not Linux). */
export function rssBreakdown(pid: number | 'self' = 'self'): RssBreakdown | undefined {
  let maps: Mapping[];
  try {
    maps = mappings(pid);
  } catch {
    return undefined;
  }
  const kb = { files: 0, wasm: 0, mallocMain: 0, mallocArenas: 0, code: 0, otherAnon: 0 };
  // A glibc arena heap starts on a 64 MB boundary and, with its reserved (---p) tail, spans 64 MB.
  const arenaStarts = new Set<number>();
  for (let i = 0; i < maps.length; i++) {
    const m = maps[i]!;
    if (m.path !== '' || m.start % ARENA !== 0 || !m.perm.startsWith('rw')) continue;
    const next = maps[i + 1];
    const span = next && next.start === m.end && next.perm.startsWith('---') && next.path === '' ? next.end - m.start : m.end - m.start;
    if (span === ARENA) arenaStarts.add(m.start);
  }
  for (const m of maps) {
    if (m.path === '[heap]') kb.mallocMain += m.rssKb;
    else if (m.path !== '' && !m.path.startsWith('[')) kb.files += m.rssKb;
    else if (arenaStarts.has(m.start)) kb.mallocArenas += m.rssKb;
    else if (m.end - m.start > ARENA) kb.wasm += m.rssKb;
    else if (m.perm.includes('x')) kb.code += m.rssKb;
    else kb.otherAnon += m.rssKb;
  }
  const mb = (x: number) => x / 1024;
  const total = kb.files + kb.wasm + kb.mallocMain + kb.mallocArenas + kb.code + kb.otherAnon;
  return {
    total: mb(total),
    files: mb(kb.files),
    wasm: mb(kb.wasm),
    mallocMain: mb(kb.mallocMain),
    mallocArenas: mb(kb.mallocArenas),
    code: mb(kb.code),
    otherAnon: mb(kb.otherAnon),
  };
}

export function formatRssBreakdown(b: RssBreakdown): string {
  const f = (x: number) => x.toFixed(0);
  return `${f(b.total)} MB: binary+libs ${f(b.files)}, wasm ${f(b.wasm)}, malloc main ${f(b.mallocMain)} + arenas ${f(b.mallocArenas)}, compiled code ${f(b.code)}, other anon (V8 heaps, stacks) ${f(b.otherAnon)}`;
}
