import { describe, expect, it } from 'vitest';
import { fullNameOf, isEntityName, isFullName, isNamePart, isRolePhrase, isSpeakerWord } from './entity-names.js';

describe('isEntityName', () => {
  it('rejects code fragments and punctuation', () => {
    for (const bad of [
      'retryWithBackoff(fn',
      'retryWithBackoff(fn, 3)',
      'a[i]',
      'x => y',
      '===',
      'foo::bar',
      'if (x) {',
      '`code`',
      '"quoted',
      '...',
      '--',
      'a && b',
      '*ptr',
      '<div>',
    ]) {
      expect(isEntityName(bad), bad).toBe(false);
    }
  });

  it('keeps names, technologies, paths and versions', () => {
    for (const good of [
      'Priya Raman',
      'Postgres',
      'C++',
      'C#',
      'Node.js',
      "O'Brien",
      'src/util/retry.ts',
      'v1.2.0',
      'retryWithBackoff',
      'max_attempts',
      '北京',
    ]) {
      expect(isEntityName(good), good).toBe(true);
    }
  });
});

describe('isSpeakerWord', () => {
  it('knows the user, the assistant and the pronouns for them', () => {
    for (const w of ['user', 'User', 'assistant', 'the assistant', 'I', 'me', 'you', 'we']) expect(isSpeakerWord(w), w).toBe(true);
    for (const w of ['Priya', 'users guide', 'Postgres']) expect(isSpeakerWord(w), w).toBe(false);
  });
});

describe('person names', () => {
  it('joins a first name or surname to the one full name that has it', () => {
    expect(fullNameOf('Priya', ['Priya Raman'])).toBe('Priya Raman');
    expect(fullNameOf('Raman', ['Priya Raman', 'Tom Hardy'])).toBe('Priya Raman');
    expect(fullNameOf('priya', ['Priya Raman'])).toBe('Priya Raman');
  });

  it('keeps apart two people who share a first name', () => {
    expect(fullNameOf('Priya', ['Priya Raman', 'Priya Shah'])).toBeUndefined();
    expect(fullNameOf('Raman', ['Priya Raman', 'Priya Shah'])).toBe('Priya Raman');
    expect(fullNameOf('Ram', ['Priya Raman'])).toBeUndefined();
  });

  it('tells full names, name parts and roles', () => {
    expect(isFullName('Priya Raman')).toBe(true);
    expect(isFullName('Mary-Jane Watson Parker')).toBe(true);
    expect(isFullName('tech lead')).toBe(false);
    expect(isFullName('Priya')).toBe(false);
    expect(isNamePart('Priya')).toBe(true);
    expect(isNamePart('priya')).toBe(false);
    expect(isRolePhrase('tech lead')).toBe(true);
    expect(isRolePhrase('new product manager')).toBe(true);
    expect(isRolePhrase('database')).toBe(false);
  });
});
