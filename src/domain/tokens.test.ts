import { countTokens as reference } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { countTokens, fitsTokens } from './tokens.js';

const plain = { disallowedSpecial: new Set<string>() };

describe('countTokens', () => {
  it('counts nothing in an empty string and something in any non-empty one', () => {
    expect(countTokens('')).toBe(0);
    for (const s of ['a', ' ', '数', '😀', '\n\n']) expect(countTokens(s)).toBeGreaterThan(0);
  });

  it('matches o200k_base exactly on text whose words are short', () => {
    const text = 'Long-term memory for agents: events, chunks, recall. '.repeat(300) + '我们决定使用 PostgreSQL 作为数据库。 '.repeat(50);
    expect(text.length).toBeGreaterThan(10_000);
    expect(countTokens(text)).toBe(reference(text, plain));
  });

  it('stays within one token per 256-character cut on long whitespace-free runs', () => {
    const base = '数据库系统设计需要考虑性能和可靠性以及😀扩展性';
    const run = Array.from({ length: 1_500 }, (_, i) => base[(i * 7) % base.length]).join('');
    const exact = reference(run, plain);
    const cuts = Math.ceil(run.length / 256);
    expect(Math.abs(countTokens(run) - exact)).toBeLessThanOrEqual(cuts);
  });

  it('treats special-token markup in user text as plain text', () => {
    expect(() => countTokens('before <|endoftext|> after')).not.toThrow();
    expect(countTokens('before <|endoftext|> after')).toBeGreaterThan(3);
  });

  it('is additive over whitespace-separated halves of long text', () => {
    const a = 'alpha beta gamma delta. '.repeat(40);
    const b = 'epsilon zeta eta theta. '.repeat(40);
    // Cutting before a space never merges across the cut, so counts add up.
    expect(countTokens(`${a.trimEnd()} ${b}`)).toBe(countTokens(a.trimEnd()) + countTokens(` ${b}`));
  });

  it('fitsTokens agrees with countTokens around the limit', () => {
    const texts = ['', 'short text', 'word '.repeat(500), '数据库'.repeat(400), `${' '.repeat(3000)}x`, '='.repeat(2000)];
    for (const text of texts) {
      const n = countTokens(text);
      for (const limit of [1, 8, n - 1, n, n + 1, 64]) {
        if (limit < 1) continue;
        expect(fitsTokens(text, limit), `${text.slice(0, 10)}… limit ${limit}`).toBe(n <= limit);
      }
    }
  });
});
