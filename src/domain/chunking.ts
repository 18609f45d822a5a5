/**
 * Token-bounded chunking for embedding and recall. A text that fits the budget is one chunk (a
 * short conversational event stays whole); a longer one is cut at paragraphs, then sentences, then
 * token windows, and packed greedily. Offsets are UTF-16 indices into the input, so
 * `text.slice(chunk.start, chunk.end) === chunk.text` and provenance can point back into the event.
 */
import { isSpaceCode, paragraphs, sentences, tokenWindows, trimSpan, type Span } from './segments.js';
import { countTokens } from './tokens.js';

export interface Chunk {
  index: number;
  text: string;
  /** UTF-16 offset of the first character, inclusive. */
  start: number;
  /** UTF-16 offset after the last character, exclusive. */
  end: number;
  /** o200k_base tokens in `text`; never more than maxTokens. */
  tokens: number;
}

export interface ChunkOptions {
  /** Upper bound on a chunk's tokens (default 256). */
  maxTokens?: number;
  /** About how many tokens consecutive chunks share (default 32, at most maxTokens / 2). */
  overlapTokens?: number;
  /**
   * A last chunk smaller than this takes in the sentences before it, up to maxTokens, and absorbs
   * the chunks it then contains: a lone tail sentence embeds poorly (default 0: off).
   */
  minTokens?: number;
}

export const DEFAULT_MAX_TOKENS = 256;
export const DEFAULT_OVERLAP_TOKENS = 32;
/** Below this a single CJK character (up to 3 byte-level tokens) might not fit a window. */
const MIN_MAX_TOKENS = 8;

/** A sentence, or a token window of an over-long sentence. */
interface Unit extends Span {
  tokens: number;
  paragraph: number;
  /** A window after the first of its sentence: it already overlaps the previous unit. */
  continues: boolean;
}

interface Sized extends Span {
  tokens: number;
}

interface Packed extends Sized {
  /** Index of the chunk's first unit. */
  first: number;
}

function checkOptions(opts: ChunkOptions): { max: number; overlap: number; min: number } {
  const max = opts.maxTokens ?? DEFAULT_MAX_TOKENS;
  const overlap = opts.overlapTokens ?? DEFAULT_OVERLAP_TOKENS;
  const min = opts.minTokens ?? 0;
  if (!Number.isInteger(max) || max < MIN_MAX_TOKENS) throw new RangeError(`maxTokens must be an integer >= ${MIN_MAX_TOKENS}`);
  if (!Number.isInteger(overlap) || overlap < 0) throw new RangeError('overlapTokens must be a non-negative integer');
  if (!Number.isInteger(min) || min < 0) throw new RangeError('minTokens must be a non-negative integer');
  return { max, overlap: Math.min(overlap, Math.floor(max / 2)), min };
}

function splitUnits(text: string, max: number, overlap: number): { units: Unit[]; paragraphTokens: number[] } {
  const units: Unit[] = [];
  const paragraphTokens: number[] = [];
  paragraphs(text).forEach((para, paragraph) => {
    let total = 0;
    for (const sentence of sentences(text, para)) {
      const tokens = countTokens(text.slice(sentence.start, sentence.end));
      total += tokens;
      if (tokens <= max) {
        units.push({ ...sentence, tokens, paragraph, continues: false });
        continue;
      }
      tokenWindows(text, sentence, max, overlap).forEach((w, k) => {
        units.push({ ...w, tokens: countTokens(text.slice(w.start, w.end)), paragraph, continues: k > 0 });
      });
    }
    paragraphTokens.push(total);
  });
  return { units, paragraphTokens };
}

/** Upper estimate of the joined units' tokens: parts plus one per gap. */
function estimate(units: readonly Unit[]): number {
  let sum = units.length - 1;
  for (const u of units) sum += u.tokens;
  return sum;
}

function exactTokens(text: string, units: readonly Unit[]): number {
  const first = units[0] as Unit;
  const last = units[units.length - 1] as Unit;
  return countTokens(text.slice(first.start, last.end));
}

/** The longest strict suffix of `units` whose estimate fits the overlap budget. */
function overlapTail(units: readonly Unit[], budget: number): Unit[] {
  let n = 0;
  let sum = -1;
  while (n < units.length - 1) {
    const u = units[units.length - 1 - n] as Unit;
    if (sum + 1 + u.tokens > budget) break;
    sum += 1 + u.tokens;
    n++;
  }
  return n === 0 ? [] : units.slice(units.length - n);
}

/**
 * Greedy packing. Each chunk starts with whole trailing sentences of the previous chunk that fit
 * the overlap budget (none after a token window, which carries its own overlap), then takes new
 * units while they fit. It closes early at a paragraph start when it is at least half full and the
 * paragraph would not fit, so paragraphs tend to start chunks. Every round consumes at least one
 * new unit, so the loop ends.
 */
function pack(text: string, units: readonly Unit[], paragraphTokens: readonly number[], max: number, overlap: number): Packed[] {
  const out: Packed[] = [];
  let carry: Unit[] = [];
  let i = 0;
  while (i < units.length) {
    const first = units[i] as Unit;
    const cur: Unit[] = first.continues ? [] : [...carry];
    while (cur.length > 0 && estimate(cur) + 1 + first.tokens > max) cur.shift();
    let fresh = cur.length; // index of the first unit not carried over
    cur.push(first);
    i++;
    let est = estimate(cur);
    while (i < units.length) {
      const next = units[i] as Unit;
      if (next.continues || est + 1 + next.tokens > max) break;
      const prev = cur[cur.length - 1] as Unit;
      const newParagraph = next.paragraph !== prev.paragraph;
      if (newParagraph && est >= max / 2 && (paragraphTokens[next.paragraph] ?? 0) > max - est - 1) break;
      cur.push(next);
      est += 1 + next.tokens;
      i++;
    }
    // The estimate is an upper bound in practice; the exact count decides.
    let tokens = exactTokens(text, cur);
    while (tokens > max && cur.length - fresh > 1) {
      cur.pop();
      i--;
      tokens = exactTokens(text, cur);
    }
    while (tokens > max && fresh > 0) {
      cur.shift();
      fresh--;
      tokens = exactTokens(text, cur);
    }
    out.push({ start: (cur[0] as Unit).start, end: (cur[cur.length - 1] as Unit).end, tokens, first: i - cur.length });
    carry = overlap > 0 ? overlapTail(cur, overlap) : [];
  }
  return out;
}

function growShortTail(text: string, units: readonly Unit[], chunks: Packed[], min: number, max: number): Packed[] {
  const last = chunks[chunks.length - 1];
  if (last === undefined || last.tokens >= min) return chunks;
  let { first, start, tokens } = last;
  while (tokens < min && first > 0) {
    const before = units[first - 1] as Unit;
    const grown = countTokens(text.slice(before.start, last.end));
    if (grown > max) break;
    first--;
    start = before.start;
    tokens = grown;
  }
  const kept = chunks.slice(0, -1).filter((c) => c.start < start); // drop chunks the tail now contains
  return [...kept, { start, end: last.end, tokens, first }];
}

/** Split `text` into ordered, non-empty chunks of at most `maxTokens` tokens (see module doc). */
export function chunkText(text: string, opts: ChunkOptions = {}): Chunk[] {
  const { max, overlap, min } = checkOptions(opts);
  const whole = trimSpan(text, 0, text.length);
  if (whole === null) return [];
  const wholeTokens = countTokens(text.slice(whole.start, whole.end));
  let spans: Sized[];
  if (wholeTokens <= max) {
    spans = [{ ...whole, tokens: wholeTokens }];
  } else {
    const { units, paragraphTokens } = splitUnits(text, max, overlap);
    const packed = pack(text, units, paragraphTokens, max, overlap);
    spans = min > 0 ? growShortTail(text, units, packed, min, max) : packed;
  }
  return spans.map((s, index) => ({ index, text: text.slice(s.start, s.end), start: s.start, end: s.end, tokens: s.tokens }));
}

/**
 * Characters of a text chunked in one synchronous step by chunkSections. A 1 MiB event chunked
 * whole held the thread (the API's, in one process) ~1 s; the tokenizer's first sight of rare
 * words costs up to ~10 µs per character (32,000 characters of made-up names took 240 ms).
 */
export const SECTION_CHARS = 8_000;

/**
 * Where to cut `text` at or before `limit` (> from): after the last paragraph break, else line
 * break, else whitespace in the second half of [from, limit), else at `limit` itself (never inside
 * a surrogate pair).
 */
function sectionEnd(text: string, from: number, limit: number): number {
  if (limit >= text.length) return text.length;
  const half = from + Math.floor((limit - from) / 2);
  for (const sep of ['\n\n', '\n']) {
    const at = text.lastIndexOf(sep, limit - sep.length);
    if (at >= half) return at + sep.length;
  }
  for (let i = limit; i > half; i--) if (isSpaceCode(text.charCodeAt(i - 1))) return i;
  const hi = text.charCodeAt(limit - 1);
  return hi >= 0xd800 && hi <= 0xdbff ? limit - 1 : limit;
}

/**
 * chunkText in sections of at most `sectionChars` characters, cut at paragraph, line or word
 * boundaries, one section per step: the caller can give the thread back between steps. Indexes
 * and offsets are those of the whole text, so `text.slice(c.start, c.end) === c.text` still holds;
 * a text within one section gives exactly chunkText's chunks. Chunks never span a section cut and
 * carry no overlap across it.
 */
export function* chunkSections(text: string, opts: ChunkOptions = {}, sectionChars = SECTION_CHARS): Generator<Chunk[]> {
  let index = 0;
  for (const { start, end } of sections(text, sectionChars)) {
    const chunks = chunkText(text.slice(start, end), opts).map((c) => ({ ...c, index: index++, start: c.start + start, end: c.end + start }));
    if (chunks.length > 0) yield chunks;
  }
}

/** Consecutive spans of at most `sectionChars` covering `text`, cut at paragraph, line or word boundaries where there is one. */
export function* sections(text: string, sectionChars = SECTION_CHARS): Generator<Span> {
  for (let from = 0; from < text.length; ) {
    const end = sectionEnd(text, from, from + sectionChars);
    yield { start: from, end };
    from = end;
  }
}
