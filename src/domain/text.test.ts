import { describe, expect, it } from 'vitest';
import {
  CHINESE_STOPWORDS,
  ENGLISH_STOPWORDS,
  contentHash,
  ftsDocument,
  ftsQuery,
  hasCjk,
  identifierParts,
  normalizeText,
  stem,
  textTerms,
  tokenizeWords,
} from './text.js';

const docTokens = (text: string): Set<string> => new Set(ftsDocument(text).split(' '));

describe('normalizeText', () => {
  it('maps variants of the same sentence to one string', () => {
    const variants = ['We chose PostgreSQL.', '  we   chose\tPOSTGRESQL!! ', 'Ｗｅ ｃｈｏｓｅ ＰｏｓｔｇｒｅＳＱＬ。', 'we chose postgresql'];
    expect(new Set(variants.map(normalizeText)).size).toBe(1);
  });

  it('keeps inner punctuation and different words apart', () => {
    expect(normalizeText('v2.3 is out')).not.toBe(normalizeText('v23 is out'));
    expect(normalizeText('We chose MySQL')).not.toBe(normalizeText('We chose PostgreSQL'));
  });

  it('is idempotent', () => {
    for (const s of ['Hello,  World…', '我们决定使用PostgreSQL作为数据库。', ' a \n b ! ']) {
      expect(normalizeText(normalizeText(s))).toBe(normalizeText(s));
    }
  });
});

describe('contentHash', () => {
  it('is SHA-256 in lower-case hex', () => {
    // FIPS 180-2 test vector for "abc".
    expect(contentHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('hashes UTF-8 text and separates different inputs', () => {
    expect(contentHash('数据库')).toMatch(/^[0-9a-f]{64}$/);
    expect(contentHash('数据库')).toBe(contentHash('数据库'));
    expect(contentHash('数据库')).not.toBe(contentHash('数据'));
  });
});

describe('hasCjk', () => {
  it('detects Chinese, Japanese and Korean but not Latin, Cyrillic or CJK punctuation alone', () => {
    expect(['中文', 'mixed 数据 text', 'ひらがな', 'カタカナ', '한국어'].every(hasCjk)).toBe(true);
    expect(['English only', 'Привет', '。！？', ''].some(hasCjk)).toBe(false);
  });
});

describe('identifierParts', () => {
  it('splits snake_case, camelCase, acronyms, dots and hyphens', () => {
    expect(identifierParts('pgvector_hnsw')).toEqual(['pgvector', 'hnsw']);
    expect(identifierParts('useState')).toEqual(['use', 'state']);
    expect(identifierParts('HTTPServer')).toEqual(['http', 'server']);
    expect(identifierParts('node.js')).toEqual(['node', 'js']);
    expect(identifierParts('plain')).toEqual([]);
  });
});

describe('stem', () => {
  it('gives inflections of a word one stem', () => {
    const groups = [
      ['decide', 'decides', 'decided', 'deciding'],
      ['make', 'makes', 'making'],
      ['run', 'runs', 'running'],
      ['study', 'studies', 'studied'],
      ['class', 'classes'],
      ['index', 'indexes'],
      ['use', 'uses', 'used'],
    ];
    for (const g of groups) expect(new Set(g.map(stem)).size, g.join(',')).toBe(1);
  });

  it('keeps different words apart and leaves non-ASCII and short words alone', () => {
    expect(stem('status')).not.toBe(stem('state'));
    expect(stem('need')).toBe('need');
    for (const w of ['go', 'v2', 'café', 'pg_vector', '数据库']) expect(stem(w)).toBe(w);
  });
});

describe('ftsDocument and ftsQuery', () => {
  const zh = '我们决定使用PostgreSQL作为数据库';

  it('indexes Chinese words, their character bigrams and embedded Latin words', () => {
    const tokens = docTokens(zh);
    for (const t of ['决定', '数据库', 'postgresql', '数据', '据库', '定使']) expect(tokens.has(t), t).toBe(true);
    // Every adjacent pair of the CJK runs is present, whatever jieba decided.
    for (const run of ['我们决定使用', '作为数据库']) {
      const chars = Array.from(run);
      for (let i = 0; i + 1 < chars.length; i++) {
        const bigram = `${chars[i]}${chars[i + 1]}`;
        if (!CHINESE_STOPWORDS.has(bigram)) expect(tokens.has(bigram), bigram).toBe(true);
      }
    }
  });

  it('matches a Chinese query segmented differently from the document', () => {
    const tokens = docTokens(zh);
    for (const q of ['数据库', '使用数据库', '决定用什么数据库', '据库']) {
      expect(
        ftsQuery(q).some((t) => tokens.has(t)),
        q,
      ).toBe(true);
    }
    expect(ftsQuery('数据库').every((t) => tokens.has(t))).toBe(true);
  });

  it('keeps identifiers whole and adds their parts; plain English words give their Porter stem only', () => {
    const tokens = docTokens('We tuned pgvector_hnsw and useState in v2.3 of node.js; indexes decided.');
    for (const t of ['pgvector_hnsw', 'pgvector', 'hnsw', 'state', 'v2.3', 'node.js', 'node', 'js', 'index', 'decid', 'tune']) {
      expect(tokens.has(t), t).toBe(true);
    }
    // One token per word: BM25 counts an inflected word once, as any other.
    for (const t of ['indexes', 'decided', 'tuned']) expect(tokens.has(t), t).toBe(false);
    // Inflections and derivations meet on one token, query side and document side.
    const doc = docTokens('She painted sunsets; her paintings are supportive.');
    for (const q of ['painting', 'paints', 'sunset', 'support'])
      expect(
        ftsQuery(q).every((t) => doc.has(t)),
        q,
      ).toBe(true);
  });

  it('drops English and Chinese stopwords', () => {
    const tokens = [...docTokens('The cat and the dog were in a house, 我的猫和你的狗都在房子里')];
    for (const t of tokens) {
      expect(ENGLISH_STOPWORDS.has(t), t).toBe(false);
      expect(CHINESE_STOPWORDS.has(t), t).toBe(false);
    }
    expect(tokens).toContain('cat');
    expect(tokens).toContain('房子');
  });

  it('emits only lower-case, space-free tokens, and a query gets each token once', () => {
    const text = 'PostgreSQL PostgreSQL 数据库 数据库 HTTPServer';
    for (const t of ftsDocument(text).split(' ')) {
      expect(t).toBe(t.toLowerCase());
      expect(t).not.toMatch(/\s/);
      expect(t.length).toBeGreaterThan(0);
    }
    const q = ftsQuery(text);
    expect(new Set(q).size).toBe(q.length);
    expect(
      ftsDocument(text)
        .split(' ')
        .filter((t) => t === 'postgresql'),
    ).toHaveLength(2);
  });

  it('gives nothing for empty, punctuation-only or stopword-only text', () => {
    expect(ftsDocument('')).toBe('');
    expect(ftsQuery('?! ... 。')).toEqual([]);
    expect(ftsQuery('the of and 的 了')).toEqual([]);
  });
});

describe('tokenizeWords', () => {
  it('returns Latin and jieba words in order, lower-cased, stopwords removed', () => {
    const words = tokenizeWords('The user DECIDED: 我们决定使用PostgreSQL作为数据库!');
    expect(words).toEqual(expect.arrayContaining(['user', 'decided', '决定', 'postgresql', '数据库']));
    expect(words.indexOf('决定')).toBeLessThan(words.indexOf('postgresql'));
    expect(words.indexOf('postgresql')).toBeLessThan(words.indexOf('数据库'));
    for (const w of words) expect(ENGLISH_STOPWORDS.has(w) || CHINESE_STOPWORDS.has(w)).toBe(false);
  });

  it('keeps stopwords when asked, and reports CJK runs', () => {
    const terms = textTerms('to be or not to be, 这是数据库', { keepStopwords: true });
    expect(terms.words.slice(0, 6)).toEqual(['to', 'be', 'or', 'not', 'to', 'be']);
    expect(terms.cjkRuns).toEqual(['这是数据库']);
  });
});
