/**
 * Text normalisation and lexical tokenisation shared by duplicate detection, PostgreSQL full-text
 * search, BM25 and the hashing embedder. English and Chinese (and Japanese kanji/kana) are both
 * first-class: PostgreSQL has no Chinese parser, so Chinese is segmented here (jieba words plus
 * character bigrams) and indexed with the `simple` configuration.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Jieba } from '@node-rs/jieba';
import { stemmer } from 'stemmer';
import { dateWords, dayOfTime, resolveRelativeDates } from './dates.js';
import { isStopword } from './stopwords.js';

export { stem } from './stem.js';
export { CHINESE_STOPWORDS, ENGLISH_STOPWORDS, isStopword } from './stopwords.js';

/** Characters segmented by jieba. Hangul is not here: Korean separates words with spaces. */
const CJK = '[\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}\\u30fc\\u3005\\u3006]';
/** A letter, mark, digit or underscore that is not a CJK character. */
const WORD_CHAR = `(?:(?!${CJK})[\\p{L}\\p{M}\\p{N}_])`;
/** `v2.3`, `node.js`, `gpt-4o`, `pg_vector` stay one token; a trailing `.` or `-` is not kept. */
const WORD = `${WORD_CHAR}+(?:[.\\-]${WORD_CHAR}+)*`;
const TOKEN_RE = new RegExp(`(${CJK}+)|(${WORD})`, 'gu');
const HAS_CJK_RE = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}]/u;
const TRAILING_PUNCT_RE = /[\p{P}\s]+$/u;

const require = createRequire(import.meta.url);
/**
 * The jieba dictionary (~5 MB) is read and compiled on first use (~300 ms), then shared: it is
 * read-only, so one instance per process is safe and there is nothing for tests to reset.
 */
let jieba: Jieba | undefined;
function segmenter(): Jieba {
  if (jieba === undefined) {
    const { Jieba: JiebaClass } = require('@node-rs/jieba') as typeof import('@node-rs/jieba');
    const { dict } = require('@node-rs/jieba/dict.js') as typeof import('@node-rs/jieba/dict.js');
    jieba = JiebaClass.withDict(dict);
  }
  return jieba;
}

/** For exact-duplicate detection: NFKC, lower case, one space between words, no trailing punctuation. */
export function normalizeText(s: string): string {
  return s.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim().replace(TRAILING_PUNCT_RE, '');
}

/** SHA-256 of the UTF-8 bytes, lower-case hex. Hashes `s` as given: normalise first if wanted. */
export function contentHash(s: string): string {
  return createHash('sha256').update(s, 'utf8').digest('hex');
}

/** True when `s` contains a Chinese, Japanese or Korean character. */
export function hasCjk(s: string): boolean {
  return HAS_CJK_RE.test(s);
}

/**
 * Parts of an identifier or compound, lower-cased: `pgvector_hnsw` -> pgvector, hnsw;
 * `useState` -> use, state; `HTTPServer` -> http, server. Empty when there is only one part.
 * Pure numbers and single characters are dropped (`v2.3` gives just `v2`).
 */
export function identifierParts(word: string): string[] {
  const spaced = word.replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, '$1 $2').replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2');
  const parts = spaced.toLowerCase().split(/[\s._-]+/u);
  if (parts.length < 2) return [];
  return parts.filter((p) => p.length > 1 && !/^\p{N}+$/u.test(p));
}

interface Visitor {
  latin(word: string): void;
  cjk(run: string): void;
}

function scan(text: string, visit: Visitor): void {
  for (const m of text.normalize('NFKC').matchAll(TOKEN_RE)) {
    if (m[1] !== undefined) visit.cjk(m[1]);
    else if (m[2] !== undefined) visit.latin(m[2]);
  }
}

function cjkWords(run: string, forSearch: boolean): string[] {
  const words = forSearch ? segmenter().cutForSearch(run, true) : segmenter().cut(run, true);
  return words.filter((w) => w.trim() !== '');
}

/** Adjacent code-point pairs; a one-character run gives nothing (jieba already yields it). */
function bigrams(run: string): string[] {
  const chars = Array.from(run);
  const out: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) out.push(`${chars[i]}${chars[i + 1]}`);
  return out;
}

export interface TextTerms {
  /** Lower-case words in text order: Latin words as written (`pg_vector`, `v2.3`) and jieba words. */
  words: string[];
  /** Each run of CJK characters, as written. */
  cjkRuns: string[];
}

/** Words and CJK runs of `text`; stopwords are removed from `words` unless `keepStopwords`. */
export function textTerms(text: string, opts: { keepStopwords?: boolean } = {}): TextTerms {
  const keep = (w: string): boolean => opts.keepStopwords === true || !isStopword(w);
  const words: string[] = [];
  const cjkRuns: string[] = [];
  scan(text, {
    latin(word) {
      const lower = word.toLowerCase();
      if (keep(lower)) words.push(lower);
    },
    cjk(run) {
      cjkRuns.push(run);
      for (const w of cjkWords(run, false)) if (keep(w)) words.push(w);
    },
  });
  return { words, cjkRuns };
}

/** Lower-case word tokens (Latin words and jieba words), stopwords removed: the BM25/IDF vocabulary. */
export function tokenizeWords(text: string): string[] {
  return textTerms(text).words;
}

/**
 * The version of the full-text keys: of ftsTokens' output and of what a chunk's key holds
 * (memloom_refresh_chunk_keys). Changing either changes it, and startup rewrites every stored key
 * written by another version (src/db/fts-upgrade.ts). 2: Porter's stems, and a chunk's key holds
 * its second previous turn. 3: a chunk's
 * time words hold the day of the month and its text's relative dates resolved (src/domain/dates.ts), and
 * its speaker is speakerOf's (a `Name:` prefix, `metadata.name` or the role when `metadata.speaker` is absent).
 */
export const FTS_KEYS_VERSION = '3';

/** Plain lower-case English words of 3+ letters get Porter's stem; anything else is kept as written. */
const PORTER_RE = /^[a-z]{3,}$/;

/**
 * Full-text form of a Latin word: Porter's stem ("painting", "painted", "paints" → "paint";
 * "supportive" → "support") for plain English words, else the word itself (`v2.3`, `café`).
 * One token per word, so BM25 counts an inflected word once, as it counts any other.
 */
export function ftsStem(word: string): string {
  return PORTER_RE.test(word) ? stemmer(word) : word;
}

/**
 * Tokens for full-text search, in text order, repeats kept (they count as term frequency).
 * Latin words give their ftsStem, and identifier parts theirs. CJK runs give jieba's
 * search-mode words plus every character bigram not already among them, so text segmented
 * differently on the query side still matches.
 */
function ftsTokens(text: string): string[] {
  const out: string[] = [];
  const pushWord = (w: string): void => {
    if (isStopword(w)) return;
    out.push(ftsStem(w));
  };
  scan(text, {
    latin(word) {
      const lower = word.toLowerCase();
      pushWord(lower);
      for (const part of identifierParts(word)) if (part !== lower) pushWord(part);
    },
    cjk(run) {
      const seen = new Set<string>();
      for (const w of cjkWords(run, true)) {
        seen.add(w);
        if (!isStopword(w)) out.push(w);
      }
      for (const b of bigrams(run)) {
        if (!seen.has(b) && !isStopword(b)) out.push(b);
        seen.add(b);
      }
    },
  });
  return out;
}

/**
 * A document for `to_tsvector('simple', …)`: space-separated lower-case tokens (see ftsTokens).
 * PostgreSQL's parser re-splits some tokens (`pg_vector` into `pg` and `vector`), so build the
 * query from ftsQuery's tokens through the same parser (`to_tsquery('simple', …)` or
 * `plainto_tsquery('simple', …)` per token), never by casting them to tsquery.
 */
export function ftsDocument(text: string): string {
  return ftsTokens(text).join(' ');
}

/**
 * The time and speaker words of a chunk's key (docs/recall.md "Index keys"): the day of the month,
 * month name, year and weekday of its event time (UTC), the same words of each relative date its
 * text names resolved against that time ("yesterday" said on 4 October 2023 adds 3 october 2023
 * tuesday; src/domain/dates.ts), and its speaker (speakerOf), as an ftsDocument, so they meet the
 * query's tokens ("Monday", "Caroline", "October 3" → their stems).
 */
export function metaDocument(occurredAt: Date, speaker: string | null | undefined, text = ''): string {
  const dates = [dayOfTime(occurredAt), ...resolveRelativeDates(text, occurredAt)].map(dateWords);
  return ftsDocument(`${dates.join(' ')} ${speaker ?? ''}`);
}

/** The distinct ftsDocument tokens of a query, in first-seen order; the caller ORs them. */
export function ftsQuery(text: string): string[] {
  return [...new Set(ftsTokens(text))];
}
