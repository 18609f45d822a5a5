import { MAX_CONTENT_BYTES } from '../../src/events/constants.js';

/** mulberry32: the same content on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * 1 MiB of UTF-8 (just under MAX_CONTENT_BYTES), the same on every call: `preferences` sentences
 * naming two made-up tools each (600: hundreds of memory units and pieces of one extraction pass;
 * 2,000: more than 5,000 entities, past one statement's vector list), then prose, code blocks,
 * long tokens and non-Latin text.
 */
export function megabyte(preferences = 600): string {
  const rand = prng(35);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)] as T;
  const syllables = ['ka', 'lo', 'mi', 'ra', 'ten', 'vos', 'bel', 'dar', 'qui', 'zen', 'po', 'lux', 'fen', 'gar'];
  const name = () => {
    let w = '';
    for (let i = 0, n = 2 + Math.floor(rand() * 3); i < n; i++) w += pick(syllables);
    return `${w[0]?.toUpperCase()}${w.slice(1)}${Math.floor(rand() * 100)}`;
  };
  const words = ['the', 'deploy', 'memory', 'queue', 'was', 'slow', 'after', 'we', 'moved', 'it', 'to', 'a', 'new', 'host', 'on', 'Friday'];
  const parts: string[] = [];
  for (let i = 0; i < preferences; i++) parts.push(`I prefer ${name()} over ${name()}. `);
  parts.push('\n\n');
  let bytes = Buffer.byteLength(parts.join(''));
  const fillers = [
    () => `${Array.from({ length: 12 }, () => pick(words)).join(' ')}.\n`,
    () => `\`\`\`ts\nconst v${Math.floor(rand() * 1e6)} = await queue.add('x', { n: ${Math.floor(rand() * 1e9)} });\n\`\`\`\n\n`,
    () => `数据库在星期五迁移到新的主机，之后队列变慢了。${'あいうえお'.repeat(4)}\n`,
    () => `${'z'.repeat(3000)}\n\n`,
  ];
  // Up to a few bytes under the limit: any part while it fits, then short prose.
  for (let misses = 0; misses < 20; ) {
    const part = pick(misses < 10 ? fillers : fillers.slice(0, 1))();
    if (bytes + Buffer.byteLength(part) > MAX_CONTENT_BYTES) misses++;
    else {
      parts.push(part);
      bytes += Buffer.byteLength(part);
    }
  }
  return parts.join('');
}
