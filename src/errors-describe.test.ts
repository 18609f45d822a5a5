import { describe, expect, it } from 'vitest';
import { contentFree, failureReason } from './errors-describe.js';
import { MemloomError } from './errors.js';

describe('failure reasons without content', () => {
  it.each([
    ['invalid input syntax for type timestamp with time zone: "+010000-01-01T00:00:00.000Z"', 'invalid input syntax for type timestamp with time zone: "…"'],
    ['duplicate key value violates unique constraint "events_pkey"', 'duplicate key value violates unique constraint "events_pkey"'],
    ['column "contnet" does not exist', 'column "contnet" does not exist'],
    ['value too long for type character varying(200)', 'value too long for type character varying(200)'],
    ['invalid byte sequence for encoding "UTF8": 0x00', 'invalid byte sequence for encoding "UTF8": …'],
    [`Unexpected token 'W', "We decided to use Redis" is not valid JSON`, `Unexpected token 'W', "…" is not valid JSON`],
    [`Cannot read properties of undefined (reading 'id')`, `Cannot read properties of undefined (reading 'id')`],
    [`Unexpected token 'our secret plan is here'`, `Unexpected token '…'`],
    ['vectorList: 12000 vectors in one statement (at most 5000)', 'vectorList: 12000 vectors in one statement (at most 5000)'],
    ['first line\nsecond line with "content"', 'first line'],
  ])('%s', (message, expected) => {
    expect(contentFree(message)).toBe(expected);
  });

  it('names each cause of the chain: class, code, message', () => {
    const pg = Object.assign(new Error('timestamp out of range: "294277-01-01"'), { code: '22008', severity: 'ERROR' });
    Object.defineProperty(pg, 'constructor', { value: { name: 'DatabaseError' } });
    const e = new MemloomError('DATA_REJECTED', 'The database rejected the data.', { kind: 'internal', cause: pg });
    expect(failureReason(e)).toBe('DATA_REJECTED: The database rejected the data. (DatabaseError 22008: timestamp out of range: "…")');
    expect(failureReason(new MemloomError('INPUT_INVALID', 'eventIds: too small', { kind: 'input' }))).toBe('INPUT_INVALID: eventIds: too small');
    const wrapped = new MemloomError('EXTRACTOR_CRASHED', 'the thread exited', { kind: 'internal', cause: new TypeError('x is not a function') });
    expect(failureReason(wrapped)).toBe('EXTRACTOR_CRASHED: the thread exited (TypeError: x is not a function)');
  });
});
