import { describe, expect, it } from 'vitest';
import { displayText, isAboutPerson } from './briefing-text.js';
import { briefingFileName, buildBriefing, sectionOf, shortMemoryId, type BriefingItem } from './briefing.js';
import { shortHash } from './ids.js';
import { countTokens } from './tokens.js';

const now = new Date('2026-11-29T12:00:00Z');
const ago = (days: number) => new Date(now.getTime() - days * 86_400_000);
let n = 0;
const item = (over: Partial<BriefingItem> & { content: string }): BriefingItem => ({
  id: `0000${(++n).toString(16).padStart(4, '0')}-0000-4000-8000-000000000000`,
  kind: 'fact',
  importance: 5,
  isCrystal: false,
  eventTime: null,
  occurredAt: ago(1),
  accessCount: 0,
  replaced: null,
  ...over,
});
const lineOf = (md: string, text: string) => md.split('\n').find((l) => l.includes(text));

describe('buildBriefing', () => {
  it('writes the sections an agent needs, in reading order', () => {
    const items = [
      item({ kind: 'fact', content: 'The user is Dana, a backend engineer at Lumen Health.' }),
      item({ kind: 'preference', content: 'The user prefers short answers with code first.' }),
      item({ kind: 'decision', content: 'Use PostgreSQL with pgvector', occurredAt: ago(3) }),
      item({ kind: 'decision', content: 'Move the queue to Redis', occurredAt: ago(1) }),
      item({ kind: 'fact', content: 'Priya Raman is our tech lead and reviews every schema change.' }),
      item({ kind: 'plan', content: 'Migrate billing to Kubernetes next week', eventTime: new Date('2026-12-05T00:00:00Z') }),
      item({ kind: 'fact', content: 'The staging cluster runs in Dublin.', replaced: { id: 'x', content: 'The staging cluster runs in Paris.', at: ago(2) } }),
      item({ kind: 'procedure', content: 'Run the smoke tests before a deploy', importance: 8 }),
      item({ kind: 'fact', content: 'The office closes at 6pm.', importance: 7 }),
    ];
    const b = buildBriefing(items, { userId: 'dana', maxTokens: 1500, now });
    const md = b!.markdown;
    expect(md.startsWith('# Working memory — dana\n')).toBe(true);
    const order = [
      '## Who the user is',
      'Dana, a backend engineer',
      '## Preferences',
      'Prefers short answers',
      '## Current decisions',
      'Move the queue to Redis',
      'Use PostgreSQL',
      '## People',
      'Priya Raman is our tech lead',
      '## Open plans and deadlines',
      'Migrate billing',
      '## Recent changes',
      'Dublin',
      '## Key procedures',
      'Run the smoke tests',
      '## Also important',
      'office closes',
    ];
    const positions = order.map((s) => md.indexOf(s));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, c) => a - c)).toEqual(positions);
    expect(b!.tokens).toBe(countTokens(md));
    expect(b!.itemIds).toHaveLength(items.length);
  });

  it('dates every line by the time it is about and names its memory by a short id', () => {
    const deadline = item({
      kind: 'fact',
      content: 'The billing migration deadline is December 15, 2026.',
      eventTime: new Date('2026-12-15T00:00:00Z'),
      occurredAt: ago(20),
    });
    const said = item({ kind: 'preference', content: 'The user prefers dark mode.', occurredAt: new Date('2026-11-05T09:00:00Z') });
    const md = buildBriefing([deadline, said], { userId: 'u', maxTokens: 1500, now })!.markdown;
    expect(lineOf(md, 'billing migration')).toMatch(new RegExp(`_\\(due 2026-12-15 · ${shortMemoryId(deadline.id)}\\)_$`));
    expect(lineOf(md, 'dark mode')).toMatch(new RegExp(`_\\(2026-11-05 · ${shortMemoryId(said.id)}\\)_$`));
    expect(shortMemoryId('afe08397-8cbb-4340-b00e-bfa1d8a93b37')).toBe('m:afe08397');
  });

  it('marks a decision with what it replaced and since when', () => {
    const d = item({
      kind: 'decision',
      content: 'We switched the events store from PostgreSQL to ClickHouse.',
      replaced: { id: 'old', content: 'We decided to use PostgreSQL for the events store.', at: new Date('2026-11-08T09:00:00Z') },
    });
    const md = buildBriefing([d], { userId: 'u', maxTokens: 1500, now })!.markdown;
    expect(lineOf(md, 'ClickHouse')).toContain('_(replaced "We decided to use PostgreSQL for the events store.", since 2026-11-08 · m:');
    // shown among the decisions, not repeated among the recent changes
    expect(md).not.toContain('## Recent changes');
  });

  it('keeps past-due plans out and shows future deadlines soonest first', () => {
    const items = [
      item({ kind: 'plan', content: 'Ship the beta', eventTime: ago(10) }),
      item({ kind: 'plan', content: 'Launch v2', eventTime: new Date('2027-01-20T00:00:00Z') }),
      item({ kind: 'fact', content: 'The audit is due on December 3.', eventTime: new Date('2026-12-03T00:00:00Z') }),
      item({ kind: 'plan', content: 'Write the onboarding guide' }),
    ];
    const md = buildBriefing(items, { userId: 'u', maxTokens: 1500, now })!.markdown;
    expect(md).not.toContain('Ship the beta');
    const order = ['The audit is due', 'Launch v2', 'Write the onboarding guide'].map((s) => md.indexOf(s));
    expect(order.every((p) => p > md.indexOf('## Open plans and deadlines'))).toBe(true);
    expect([...order].sort((a, c) => a - c)).toEqual(order);
    expect(sectionOf(items[0]!, now)).toBeNull();
  });

  it('trims to a budget by priority: the important and recent lines of the weighty sections stay, whole lines go', () => {
    const items = [
      item({ kind: 'decision', content: 'Deploy only on Fridays', importance: 8, occurredAt: ago(2) }),
      item({ kind: 'preference', content: 'The user prefers TypeScript for services.', importance: 7 }),
      item({ kind: 'fact', content: 'An old and unimportant fact about the coffee machine on floor three.', importance: 2, occurredAt: ago(200) }),
      item({ kind: 'fact', content: 'A recent fact about the coffee machine on floor four.', importance: 2, occurredAt: ago(1) }),
      ...Array.from({ length: 30 }, (_, i) => item({ content: `Fact number ${i} about the deployment pipeline and its many stages`, importance: 3 + (i % 5) })),
    ];
    const full = buildBriefing(items, { userId: 'u', maxTokens: 100_000, now })!;
    expect(full.itemIds).toHaveLength(20);
    for (const budget of [60, 120, 250]) {
      const b = buildBriefing(items, { userId: 'u', maxTokens: budget, now })!;
      expect(b.tokens).toBeLessThanOrEqual(budget);
      expect(countTokens(b.markdown)).toBe(b.tokens);
      // a smaller budget keeps a subset of what a larger one keeps
      expect(b.itemIds.every((id) => full.itemIds.includes(id))).toBe(true);
      expect(b.markdown).toContain('Deploy only on Fridays');
      for (const l of b.markdown.split('\n').filter((x) => x.startsWith('- '))) expect(l).toMatch(/ · m:[0-9a-f]{8}\)_$/);
    }
    const small = buildBriefing(items, { userId: 'u', maxTokens: 60, now })!.markdown;
    expect(small).toContain('Prefers TypeScript');
    expect(small).not.toContain('coffee machine');
    const mid = buildBriefing(items, { userId: 'u', maxTokens: 400, now })!.markdown;
    // at equal importance the recent line outranks the old one
    if (mid.includes('floor three')) expect(mid).toContain('floor four');
  });

  it('emits nothing when there is nothing to say', () => {
    expect(buildBriefing([], { userId: 'u', maxTokens: 1500, now })).toBeNull();
    expect(buildBriefing([item({ content: '   ' })], { userId: 'u', maxTokens: 1500, now })).toBeNull();
  });
});

describe('displayText', () => {
  it('writes notes about the user as a person would', () => {
    expect(displayText("The user uses Neovim as the user's editor, please give the user vim keybindings.")).toBe(
      'Uses Neovim as their editor, please give them vim keybindings.',
    );
    expect(displayText('The user is Dana, a backend engineer at Lumen Health, and the user mostly writes TypeScript.')).toBe(
      'Dana, a backend engineer at Lumen Health, and mostly writes TypeScript.',
    );
    expect(displayText('We switched the events store to ClickHouse.')).toBe('We switched the events store to ClickHouse.');
  });

  it('tells people with a role from other sentences', () => {
    expect(isAboutPerson('Priya Raman is our tech lead and reviews every schema change.')).toBe(true);
    expect(isAboutPerson('The user is a backend engineer.')).toBe(false);
    expect(isAboutPerson('PostgreSQL is the database.')).toBe(false);
  });
});

describe('briefingFileName', () => {
  it('keeps safe names and makes unsafe ones safe and distinct', () => {
    expect(briefingFileName('alice', shortHash)).toBe('alice.md');
    const a = briefingFileName('../etc/passwd', shortHash);
    const b = briefingFileName('.._etc_passwd', shortHash);
    expect(a).toMatch(/^[A-Za-z0-9_][A-Za-z0-9._-]*\.md$/);
    expect(a).not.toContain('/');
    expect(a).not.toBe(b);
    expect(briefingFileName('', shortHash)).toBe('_no-user.md');
  });
});
