/**
 * Token counting with the o200k_base encoding (GPT-4o / GPT-5 family), used to size chunks and
 * prompts. Counts are for budgeting, not billing: see `countTokens` for where they may differ.
 */
import { createRequire } from 'node:module';

type Counter = (text: string, options: { disallowedSpecial: Set<string> }) => number;
let counter: Counter | undefined;

/**
 * The o200k tables take ~50 MB once loaded, so they are loaded on the first count: a process
 * running only the API or the watcher never needs them.
 */
function countO200k(text: string, options: { disallowedSpecial: Set<string> }): number {
  counter ??= (createRequire(import.meta.url)('gpt-tokenizer/encoding/o200k_base') as { countTokens: Counter }).countTokens;
  return counter(text, options);
}

/**
 * Loads the o200k tables now. Loading is synchronous and takes ~0.7 s of the thread, which on the
 * embedded database is also the database's: the chunk stage loads them when the first triage job
 * arrives, before that job opens a transaction (Stage.warm), not in the middle of the first chunk
 * job while other jobs' transactions wait (the soak showed triage transactions held 0.7-0.9 s).
 */
export function loadTokenizer(): void {
  countO200k('', AS_PLAIN_TEXT);
}

/**
 * Text is user content, not a prompt: `<|endoftext|>` and friends are counted as plain text
 * instead of throwing.
 */
const AS_PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** Whitespace-free runs longer than this are counted in pieces (see below). */
const MAX_RUN = 256;
/** Texts up to this length never contain a long run worth scanning for. */
const FAST_PATH = MAX_RUN;

function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 0xa0 || code === 0x3000 || (code >= 0x2000 && code <= 0x200a);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * Number of o200k_base tokens in `text`.
 *
 * The BPE merge is superlinear in the length of one pre-token, and o200k's pre-tokenizer keeps a
 * whitespace-free run (a Chinese paragraph, a base64 blob) as one piece: 90k repeated CJK chars
 * took 100 s in one call. So whitespace-free runs longer than MAX_RUN are counted in MAX_RUN-sized
 * pieces (never splitting a surrogate pair). That may add about one token per cut on such runs;
 * texts without such runs are counted exactly, since cuts fall only where the pre-tokenizer
 * already starts a new piece (before a whitespace run).
 */
export function countTokens(text: string): number {
  if (text.length <= FAST_PATH) return countO200k(text, AS_PLAIN_TEXT);
  let total = 0;
  let segStart = 0;
  let runStart = 0; // start of the current whitespace-free run
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (isSpace(code)) {
      runStart = i + 1;
      continue;
    }
    if (i - runStart < MAX_RUN) continue;
    // The run is too long: cut here (or one back, to keep a surrogate pair whole).
    let cut = i;
    if (isHighSurrogate(text.charCodeAt(cut - 1))) cut -= 1;
    total += countO200k(text.slice(segStart, cut), AS_PLAIN_TEXT);
    segStart = cut;
    runStart = cut;
  }
  return total + (segStart < text.length ? countO200k(text.slice(segStart), AS_PLAIN_TEXT) : 0);
}

/** Characters per token beyond which a prefix surely holds more than `limit` tokens in real text. */
const PREFIX_CHARS_PER_TOKEN = 16;

/**
 * `countTokens(text) <= limit`, without counting all of a long text: when a prefix of
 * `limit * 16` characters already exceeds the limit, the whole does too.
 */
export function fitsTokens(text: string, limit: number): boolean {
  const prefix = limit * PREFIX_CHARS_PER_TOKEN;
  if (text.length > prefix && countTokens(text.slice(0, prefix)) > limit) return false;
  return countTokens(text) <= limit;
}
