import { describe, expect, it } from 'vitest';
import { withSynonyms } from './synonyms.js';
import { ftsQuery } from './text.js';

const added = (q: string) => Object.fromEntries(withSynonyms(ftsQuery(q)).origin);

describe('withSynonyms', () => {
  it('adds the other words of a query word’s groups, each pointing back to that word', () => {
    expect(added('When does the garbage truck come by?')).toMatchObject({ trash: 'garbag', rubbish: 'garbag' });
    expect(added('Who do we get our broadband from?')).toMatchObject({ internet: 'broadband', wifi: 'broadband' });
    const { terms } = withSynonyms(ftsQuery('How long is an iteration?'));
    expect(terms.slice(0, 2)).toEqual(ftsQuery('How long is an iteration?').slice(0, 2));
    expect(terms).toContain('sprint');
  });

  it('lets a phrase bring in its group, not its words one by one', () => {
    expect(added('How much is my monthly housing payment?')).toMatchObject({ rent: 'payment' });
    expect(added('How much do I spend on food?')).not.toHaveProperty('groceri');
  });

  it('brings in words after ">" one way only', () => {
    expect(added('Who is my boss?')).toHaveProperty('manag', 'boss');
    expect(added('which package manager do I need?')).toEqual({});
    expect(added('Where do I work part time?')).toHaveProperty('job', 'work');
    expect(added('What is my job title?')).not.toHaveProperty('work');
  });

  it('adds nothing for words of no group, and never a word the query holds', () => {
    expect(added('Which logging vendor do we pay for?')).toEqual({});
    expect(added('garbage and trash')).not.toHaveProperty('trash');
  });
});
