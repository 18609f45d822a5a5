import { describe, expect, it } from 'vitest';
import { chunkSections, chunkText, type Chunk, type ChunkOptions } from './chunking.js';
import { countTokens } from './tokens.js';

/** The invariants every chunking must keep, whatever the text. */
function expectValidChunks(text: string, chunks: Chunk[], opts: ChunkOptions = {}): void {
  const max = opts.maxTokens ?? 256;
  let covered = 0; // every non-whitespace char before this offset is inside some chunk
  chunks.forEach((c, i) => {
    expect(c.index).toBe(i);
    expect(c.text).toBe(text.slice(c.start, c.end));
    expect(c.text.trim()).toBe(c.text); // trimmed, so never empty or whitespace-only
    expect(c.text.length).toBeGreaterThan(0);
    expect(c.tokens).toBe(countTokens(c.text));
    expect(c.tokens).toBeLessThanOrEqual(max);
    expect(isLowSurrogate(text, c.start)).toBe(false);
    expect(isLowSurrogate(text, c.end)).toBe(false);
    const prev = chunks[i - 1];
    if (prev) {
      expect(c.start).toBeGreaterThan(prev.start);
      expect(c.end).toBeGreaterThan(prev.end);
    }
    expect(text.slice(covered, c.start).trim()).toBe('');
    covered = Math.max(covered, c.end);
  });
  expect(text.slice(covered).trim()).toBe('');
}

function isLowSurrogate(text: string, i: number): boolean {
  const code = text.charCodeAt(i);
  return code >= 0xdc00 && code <= 0xdfff;
}

/** mulberry32: a tiny seeded PRNG so the random cases are the same on every run. */
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

const englishSentences = (n: number): string =>
  Array.from({ length: n }, (_, i) => `Sentence ${i} explains how recall quality depends on chunk size and overlap.`).join(' ');

describe('chunkText', () => {
  it('returns nothing for empty or whitespace-only text', () => {
    expect(chunkText('')).toEqual([]);
    expect(chunkText(' \n\t\u3000 ')).toEqual([]);
  });

  it('keeps a text that fits as exactly one trimmed chunk', () => {
    const text = '  user: can you remind me to renew the TLS certificate on Friday?\n\n';
    const chunks = chunkText(text);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.text).toBe(text.trim());
    expectValidChunks(text, chunks);
  });

  it('splits English prose at sentence ends and overlaps consecutive chunks', () => {
    const text = englishSentences(60);
    const opts = { maxTokens: 64, overlapTokens: 20 };
    const chunks = chunkText(text, opts);
    expectValidChunks(text, chunks, opts);
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) {
      expect(c.text.startsWith('Sentence ')).toBe(true);
      expect(c.text.endsWith('.')).toBe(true);
    }
    for (let i = 1; i < chunks.length; i++) {
      const prev = chunks[i - 1] as Chunk;
      const cur = chunks[i] as Chunk;
      expect(cur.start).toBeLessThan(prev.end);
      expect(countTokens(text.slice(cur.start, prev.end))).toBeLessThanOrEqual(opts.overlapTokens);
    }
  });

  it('does not overlap when overlapTokens is 0', () => {
    const text = englishSentences(40);
    const opts = { maxTokens: 50, overlapTokens: 0 };
    const chunks = chunkText(text, opts);
    expectValidChunks(text, chunks, opts);
    for (let i = 1; i < chunks.length; i++) expect(chunks[i]?.start).toBeGreaterThanOrEqual(chunks[i - 1]?.end ?? 0);
  });

  it('starts chunks at paragraph starts when paragraphs fit', () => {
    const paragraphs = Array.from({ length: 8 }, (_, p) => englishSentences(2).replaceAll('Sentence', `Para${p} sentence`));
    const text = paragraphs.join('\n\n');
    const opts = { maxTokens: 60, overlapTokens: 0 };
    const chunks = chunkText(text, opts);
    expectValidChunks(text, chunks, opts);
    const starts = new Set(paragraphs.map((_, p) => text.indexOf(`Para${p} `)));
    for (const c of chunks) expect(starts.has(c.start), c.text.slice(0, 20)).toBe(true);
  });

  it('splits Chinese after 。！？； without spaces', () => {
    const text = `${'我们决定使用PostgreSQL作为数据库。'.repeat(20) + '今天天气很好！明天呢？'.repeat(10)}备份策略已经确定；`;
    const opts = { maxTokens: 40, overlapTokens: 10 };
    const chunks = chunkText(text, opts);
    expectValidChunks(text, chunks, opts);
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) expect(c.text).toMatch(/[。！？；]$/u);
  });

  it('handles mixed English and Chinese paragraphs', () => {
    const text = `${englishSentences(10)}\n\n${'系统需要在重启后恢复所有记忆，并保证幂等。'.repeat(12)}\n\nThe end.`;
    const opts = { maxTokens: 48, overlapTokens: 12 };
    expectValidChunks(text, chunkText(text, opts), opts);
  });

  it('cuts a long text without punctuation into word-aligned token windows', () => {
    const rand = prng(7);
    const words = Array.from({ length: 1_500 }, () => `word${Math.floor(rand() * 500)}`);
    const text = words.join(' ');
    const opts = { maxTokens: 100, overlapTokens: 20 };
    const chunks = chunkText(text, opts);
    expectValidChunks(text, chunks, opts);
    for (const c of chunks) {
      expect(c.end === text.length || text[c.end] === ' ').toBe(true);
      expect(c.start === 0 || text[c.start - 1] === ' ').toBe(true);
    }
    for (let i = 1; i < chunks.length; i++) expect(chunks[i]?.start).toBeLessThan(chunks[i - 1]?.end ?? 0);
  });

  it('never cuts a surrogate pair in a long run of CJK and emoji', () => {
    const text = '数据库😀系统🚀设计𠀀需要'.repeat(300);
    const opts = { maxTokens: 64, overlapTokens: 16 };
    expectValidChunks(text, chunkText(text, opts), opts);
  });

  it('is deterministic', () => {
    const text = `${englishSentences(30)}\n\n${'数据库'.repeat(200)}`;
    expect(chunkText(text, { maxTokens: 40 })).toEqual(chunkText(text, { maxTokens: 40 }));
  });

  it('grows a short last chunk backwards over whole sentences', () => {
    const text = `${englishSentences(8)} Tail.`;
    const opts = { maxTokens: 60, overlapTokens: 0 };
    const plain = chunkText(text, opts);
    const last = plain[plain.length - 1] as Chunk;
    expect(last.text).toBe('Tail.'); // the setup: a lone tail sentence

    const grown = chunkText(text, { ...opts, minTokens: 16 });
    expectValidChunks(text, grown, opts);
    const tail = grown[grown.length - 1] as Chunk;
    expect(tail.end).toBe(text.length);
    expect(tail.tokens).toBeGreaterThanOrEqual(16);
    expect(tail.text.startsWith('Sentence ')).toBe(true);
    // Chunks before the tail are the plain ones, minus any the tail now contains.
    expect(grown.slice(0, -1).map((c) => c.text)).toEqual(plain.filter((c) => c.start < tail.start).map((c) => c.text));
  });

  it('rejects options that cannot work', () => {
    expect(() => chunkText('x', { maxTokens: 0 })).toThrow(RangeError);
    expect(() => chunkText('x', { overlapTokens: -1 })).toThrow(RangeError);
    expect(() => chunkText('x', { maxTokens: 1.5 })).toThrow(RangeError);
  });

  it('keeps the invariants on a few hundred random texts', () => {
    const rand = prng(20240611);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
    const latin = ['memory', 'agent', 'recall', 'pgvector', 'v2.3', 'e.g.', 'don’t', 'HTTPServer', 'x', '42', 'supercalifragilistic'];
    const cjk = ['数据库', '我们', '决定', '使用', '系统', 'カタカナ', 'ひらがな', '한국어', '𠀀', '😀', '👩‍💻'];
    const seps = [' ', ' ', ' ', '', '. ', '! ', '? ', '。', '！', '；', ', ', '，', '\n', '\n\n', '\n \n', '\t', '  ', '...'];
    for (let n = 0; n < 300; n++) {
      const parts: string[] = [];
      const len = Math.floor(rand() * 400);
      const noSpaces = rand() < 0.15;
      for (let i = 0; i < len; i++) {
        parts.push(rand() < 0.6 ? pick(latin) : pick(cjk));
        parts.push(noSpaces ? '' : pick(seps));
      }
      const text = (rand() < 0.3 ? '  \n' : '') + parts.join('');
      const opts: ChunkOptions = {
        maxTokens: 8 + Math.floor(rand() * 120),
        overlapTokens: Math.floor(rand() * 40),
        ...(rand() < 0.3 ? { minTokens: Math.floor(rand() * 20) } : {}),
      };
      const chunks = chunkText(text, opts);
      expectValidChunks(text, chunks, opts);
      if (text.trim() !== '' && countTokens(text.trim()) <= (opts.maxTokens ?? 256)) expect(chunks).toHaveLength(1);
      const last = chunks[chunks.length - 1];
      const prev = chunks[chunks.length - 2];
      if (opts.minTokens && last && prev && last.tokens < opts.minTokens) {
        expect(countTokens(text.slice(prev.start, last.end))).toBeGreaterThan(opts.maxTokens ?? 256);
      }
    }
  });
});

describe('chunkSections', () => {
  it("gives chunkText's chunks for a text within one section", () => {
    const text = englishSentences(200);
    expect([...chunkSections(text, { maxTokens: 64 }, text.length)].flat()).toEqual(chunkText(text, { maxTokens: 64 }));
  });

  it('keeps every chunking invariant across section cuts, with whole-text offsets and indexes', () => {
    const rand = prng(77);
    const words = ['memory', 'agent', '数据库', '😀', 'x', 'supercalifragilistic', '42'];
    const seps = [' ', ' ', '. ', '\n', '\n\n', '', '。'];
    for (let n = 0; n < 60; n++) {
      const parts: string[] = [];
      for (let i = 0; i < 50 + Math.floor(rand() * 1500); i++)
        parts.push(words[Math.floor(rand() * words.length)] as string, seps[Math.floor(rand() * seps.length)] as string);
      const text = parts.join('');
      const opts: ChunkOptions = { maxTokens: 16 + Math.floor(rand() * 100), overlapTokens: Math.floor(rand() * 16) };
      const sections = [...chunkSections(text, opts, 200 + Math.floor(rand() * 2000))];
      expectValidChunks(text, sections.flat(), opts);
      if (text.length > 4000) expect(sections.length).toBeGreaterThan(1);
    }
  });
});
