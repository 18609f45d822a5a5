import { describe, expect, it } from 'vitest';
import { metadataProblem, validateEvents } from './schema.js';

function nested(levels: number): Record<string, unknown> {
  let v: unknown = 'leaf';
  for (let i = 0; i < levels; i++) v = { d: v };
  return v as Record<string, unknown>;
}

describe('event validation', () => {
  it('allows metadata 8 containers deep and rejects 9', () => {
    expect(metadataProblem(nested(8))).toBeUndefined();
    expect(metadataProblem(nested(9))).toMatch(/nest/);
  });

  it('checks 100,000 levels of nesting without recursion', () => {
    let v: unknown = 1;
    for (let i = 0; i < 100_000; i++) v = [v];
    expect(metadataProblem({ a: v })).toMatch(/nest/);
  });

  it('rejects metadata over 64 KiB, wide or long', () => {
    expect(metadataProblem({ a: Array.from({ length: 100_000 }, () => 0) })).toMatch(/64 KiB/);
    expect(metadataProblem({ a: 'x'.repeat(70_000) })).toMatch(/64 KiB/);
  });

  it('validates each item on its own and names unknown fields one by one', () => {
    const r = validateEvents([{ content: 'ok' }, { content: 'x', a: 1, b: 2 }, 7]);
    expect(r.valid.map((v) => v.index)).toEqual([0]);
    expect(r.issues).toEqual([
      { index: 1, path: 'a', message: 'unknown field' },
      { index: 1, path: 'b', message: 'unknown field' },
      { index: 2, path: '', message: 'an event must be a JSON object' },
    ]);
  });

  it('fills the documented defaults and trims ids', () => {
    const [v] = validateEvents([{ content: 'hi', id: '  key-1 ' }]).valid;
    expect(v?.event).toMatchObject({ content: 'hi', id: 'key-1', type: 'message', dataset: 'default' });
  });

  it('counts content size in UTF-8 bytes, not characters', () => {
    const r = validateEvents([{ content: '€'.repeat(349_526) }, { content: 'a'.repeat(1024 * 1024) }]);
    expect(r.tooLarge).toEqual([0]);
    expect(r.valid.map((v) => v.index)).toEqual([1]);
  });
});
