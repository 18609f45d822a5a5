import { describe, expect, it } from 'vitest';
import { analyse } from './analyse.js';
import { ChineseTagger } from './chinese.js';
import { codeMentions, languageMentions } from './entities.js';
import { EntityRegistry, normaliseName } from './registry.js';

const byName = (mentions: Array<{ name: string; type: string }>) => Object.fromEntries(mentions.map((m) => [m.name, m.type]));

describe('codeMentions', () => {
  it('finds paths, versions, identifiers and URLs with their types', () => {
    const found = byName(
      codeMentions(
        'The fix is in src/queue/runner.ts and /etc/memloom/config.yaml: see `retryBackoff`, max_attempts and ' +
          'config.queue.maxAttempts (docs: https://docs.bullmq.io/guide/retries). Needs Node 20 and bullmq v5.1.0.',
      ),
    );
    expect(found).toMatchObject({
      'src/queue/runner.ts': 'file',
      '/etc/memloom/config.yaml': 'file',
      retryBackoff: 'other',
      max_attempts: 'other',
      'config.queue.maxAttempts': 'other',
      'https://docs.bullmq.io/guide/retries': 'other',
      'Node 20': 'version',
      Node: 'technology',
      bullmq: 'technology',
      'v5.1.0': 'version',
    });
  });

  it('reads common words as technology names only when written as names', () => {
    expect(byName(codeMentions('We rewrote the parser in Rust and deployed it with Docker.'))).toMatchObject({ Rust: 'technology', Docker: 'technology' });
    expect(codeMentions('Take a rest and go express yourself.')).toEqual([]);
  });
});

describe('languageMentions', () => {
  it('finds people, places, organizations and salient noun phrases', () => {
    const a = analyse('Caroline met Melanie at the LGBTQ support group in Boston before joining Google.');
    const found = byName(languageMentions(a.terms, a.text));
    expect(found).toMatchObject({ Caroline: 'person', Melanie: 'person', Boston: 'place', Google: 'organization' });
    expect(Object.keys(found)).toContain('LGBTQ support group');
    for (const name of Object.keys(found)) expect(name.split(' ').length).toBeLessThanOrEqual(4);
  });

  it('never returns pronouns, greetings or sentence-initial capitals as names', () => {
    const a = analyse('Hey Caroline, yesterday I painted it with my friends and they loved it.');
    const names = languageMentions(a.terms, a.text).map((m) => m.name.toLowerCase());
    for (const bad of ['i', 'it', 'they', 'my friends', 'hey caroline', 'hey', 'yesterday']) expect(names).not.toContain(bad);
  });
});

describe('Chinese mentions', () => {
  it('tags places, organizations and Latin technology names', () => {
    const found = byName(new ChineseTagger().mentions('我们决定使用PostgreSQL作为数据库，张伟在北京的阿里巴巴工作。'));
    expect(found).toMatchObject({ PostgreSQL: 'technology', 北京: 'place' });
    expect(Object.keys(found)).toContain('阿里巴巴');
  });
});

describe('normaliseName', () => {
  it('trims, collapses spaces and strips possessives and surrounding punctuation', () => {
    expect(normaliseName("  Caroline's ")).toBe('Caroline');
    expect(normaliseName('"Acme   Corp",')).toBe('Acme Corp');
    expect(normaliseName('the support group', { determiners: true })).toBe('support group');
    expect(normaliseName('src/a.ts.', { code: true })).toBe('src/a.ts');
  });
});

describe('EntityRegistry', () => {
  it('merges mentions case-insensitively under the most frequent surface form', () => {
    const r = new EntityRegistry([]);
    r.add('Postgres', 'technology', 0);
    r.add('postgres', 'concept', 2);
    r.add('Postgres', 'technology', 1);
    const { entities } = r.finalize();
    expect(entities).toEqual([{ name: 'Postgres', type: 'technology', description: '', sources: [0, 1, 2] }]);
  });

  it("reuses a known entity's exact name and type", () => {
    const r = new EntityRegistry([{ name: 'PostgreSQL', type: 'technology' }]);
    r.add('postgresql', 'other', 4);
    expect(r.finalize().entities).toEqual([{ name: 'PostgreSQL', type: 'technology', description: '', sources: [4] }]);
  });

  it('drops a single common noun mentioned once unless a triplet uses it', () => {
    const r = new EntityRegistry([]);
    const kept = r.add('kids', 'concept', 0, { weak: true });
    r.add('garden', 'concept', 0, { weak: true });
    r.reference(kept ?? '');
    expect(r.finalize().entities.map((e) => e.name)).toEqual(['kids']);
  });

  it('rejects pronouns and bare numbers', () => {
    const r = new EntityRegistry([]);
    expect(r.add('they', 'person', 0)).toBeNull();
    expect(r.add('8787', 'other', 0)).toBeNull();
  });
});
