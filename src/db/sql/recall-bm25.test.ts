import { describe, expect, it } from 'vitest';
import { SESSION_WEIGHT } from '../../domain/scoring.js';
import { keywordSql, type TermWeight } from './recall-bm25.js';
import type { RecallScope } from './recall-filters.js';

/**
 * The keyword statement as it runs, one file per preselection branch (__snapshots__/recall-bm25/),
 * so a reader sees the SQL and a change to it shows up in review. Term statistics are made up to
 * reach each branch; a recall of `limit` 10 asks for k = 10, so 200 rows are scored exactly.
 */

/** Query terms as termWeights returns them: `spec` maps a lexeme to its idf and document frequency in a scope of `n` documents. */
function termsOf(n: number, avgdl: number, spec: Record<string, [w: number, df: number]>): TermWeight[] {
  return Object.entries(spec).map(([term, [w, df]]) => ({ term, w, df, avgdl, n }));
}

type Shape = 'whole' | 'preselected' | 'rare first' | 'rare first, no rare term' | 'rare first, no term left out';

interface Branch {
  name: string;
  table: 'chunks' | 'memories';
  terms: TermWeight[];
  candidates?: 'all';
  shape: Shape;
}

const alice: RecallScope = { userId: 'alice' };
const k = 10;

const BRANCHES: Branch[] = [
  // A LoCoMo conversation: ~400 chunks.
  { name: 'chunks-whole', table: 'chunks', shape: 'whole', terms: termsOf(150, 31.4, { research: [3.1, 6], caroline: [0.4, 100] }) },
  {
    name: 'chunks-preselected',
    table: 'chunks',
    shape: 'preselected',
    terms: termsOf(1200, 31.4, { research: [3.9, 20], caroline: [0.5, 800] }),
  },
  {
    name: 'chunks-all-candidates',
    table: 'chunks',
    candidates: 'all',
    shape: 'preselected',
    terms: termsOf(17820, 35.2, { billing: [0.64, 9400], kubernet: [6.1, 40], servic: [0.58, 10000] }),
  },
  // The soak user's 17,820 chunks: one rare term, two common ones.
  {
    name: 'chunks-rare-first',
    table: 'chunks',
    shape: 'rare first',
    terms: termsOf(17820, 35.2, { billing: [0.64, 9400], kubernet: [6.1, 40], servic: [0.58, 10000] }),
  },
  {
    name: 'chunks-rare-first-no-rare-term',
    table: 'chunks',
    shape: 'rare first, no rare term',
    terms: termsOf(17820, 35.2, { billing: [0.64, 9400], servic: [0.58, 10000] }),
  },
  {
    name: 'chunks-rare-first-every-term-rare',
    table: 'chunks',
    shape: 'rare first, no term left out',
    terms: termsOf(17820, 35.2, { kubernet: [6.1, 40], grafana: [5.8, 55] }),
  },
  { name: 'memories-whole', table: 'memories', shape: 'whole', terms: termsOf(120, 9.6, { coffe: [2.2, 12], prefer: [1.1, 40] }) },
  {
    name: 'memories-preselected',
    table: 'memories',
    shape: 'preselected',
    terms: termsOf(2053, 9.6, { coffe: [0.9, 900], prefer: [0.8, 1000] }),
  },
  {
    name: 'memories-rare-first',
    table: 'memories',
    shape: 'rare first',
    terms: termsOf(100000, 9.6, { espresso: [5.2, 300], coffe: [1.6, 20000], prefer: [1.2, 30000] }),
  },
];

function shapeOf(text: string, values: unknown[]): Shape {
  if (text.includes('rare AS MATERIALIZED')) {
    if (text.includes('WHERE false')) return 'rare first, no rare term';
    return values.includes(Number.MAX_VALUE) ? 'rare first, no term left out' : 'rare first';
  }
  const pre = text.split('\n').find((l) => l.trim().startsWith('pre AS MATERIALIZED')) ?? '';
  return pre.includes('ORDER BY') ? 'preselected' : 'whole';
}

/** The statement, then its parameters as SQL comments. */
function render(b: Branch, text: string, values: unknown[]): string {
  const call = `keywordSql('${b.table}', ${JSON.stringify(alice)}, terms, ${k}, ${b.table === 'chunks' ? SESSION_WEIGHT : 0}, ${b.candidates ?? 'undefined'})`;
  const terms = b.terms.map((t) => `--   ${t.term}: idf ${t.w}, in ${t.df} of ${t.n} documents`);
  const params = values.map((v, i) => `-- $${i + 1} = ${JSON.stringify(v)}`);
  return [`-- ${b.name}: ${b.shape}`, `-- ${call}`, '-- terms:', ...terms, text, '', ...params, ''].join('\n');
}

describe('the keyword statement (keywordSql)', () => {
  for (const b of BRANCHES) {
    it(`${b.name}: ${b.shape}`, async () => {
      const { text, values } = keywordSql(b.table, alice, b.terms, k, b.table === 'chunks' ? SESSION_WEIGHT : 0, b.candidates);
      expect(shapeOf(text, values)).toBe(b.shape);
      // Every parameter is used, and only those given.
      const used = new Set([...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
      expect([...used].sort((x, y) => x - y)).toEqual(values.map((_, i) => i + 1));
      await expect(render(b, text, values)).toMatchFileSnapshot(`./__snapshots__/recall-bm25/${b.name}.sql`);
    });
  }
});
