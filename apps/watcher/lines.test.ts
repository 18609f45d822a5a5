import { describe, expect, it } from 'vitest';
import { completeLines } from './lines.js';

describe('completeLines', () => {
  it('takes only lines ending in \\n and leaves the rest for a later read', () => {
    const buf = Buffer.from('{"a":1}\n{"b":2}\n{"c":');
    const r = completeLines(buf, 0, 0);
    expect(r.lines.map((l) => [l.number, l.text])).toEqual([
      [1, '{"a":1}'],
      [2, '{"b":2}'],
    ]);
    expect(r.consumed).toBe(16);
    expect(r.lastLine).toBe(2);
    const rest = completeLines(Buffer.concat([buf.subarray(r.consumed), Buffer.from('3}\n')]), r.consumed, r.lastLine);
    expect(rest.lines.map((l) => [l.number, l.text])).toEqual([[3, '{"c":3}']]);
  });

  it('strips a BOM at the start of the file (and of any line: concatenated files) and CR before \\n', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    expect(completeLines(Buffer.concat([bom, Buffer.from('x\r\n')]), 0, 0).lines[0]?.text).toBe('x');
    expect(completeLines(Buffer.concat([bom, Buffer.from('x\n')]), 10, 4).lines[0]?.text).toBe('x');
  });

  it('counts blank lines without returning them, so line numbers stay true', () => {
    const r = completeLines(Buffer.from('\n  \r\n\na\n'), 0, 0);
    expect(r.lines.map((l) => l.number)).toEqual([4]);
    expect(r.lastLine).toBe(4);
  });

  it('marks invalid UTF-8 instead of storing a mangled line', () => {
    const r = completeLines(Buffer.concat([Buffer.from('ok\n'), Buffer.from([0xff, 0x41, 0x0a])]), 0, 0);
    expect(r.lines.map((l) => l.utf8)).toEqual([true, false]);
  });

  it('reports each line end relative to the buffer', () => {
    const r = completeLines(Buffer.from('ab\ncd\n'), 100, 7);
    expect(r.lines.map((l) => [l.number, l.end])).toEqual([
      [8, 3],
      [9, 6],
    ]);
  });
});
