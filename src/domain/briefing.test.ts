import { describe, expect, it } from 'vitest';
import { briefingFileName, buildBriefing, type BriefingItem } from './briefing.js';
import { shortHash } from './ids.js';
import { countTokens } from './tokens.js';

const now = new Date('2026-11-29T12:00:00Z');
const ago = (days: number) => new Date(now.getTime() - days * 86_400_000);
let n = 0;
const item = (over: Partial<BriefingItem> & { content: string }): BriefingItem => ({
  id: `i${++n}`,
  kind: 'fact',
  importance: 5,
  isCrystal: false,
  at: ago(1),
  accessCount: 0,
  ...over,
});

describe('buildBriefing', () => {
  it('lists recent decisions, open plans and important procedures first, then the top of the rest', () => {
    const items = [
      item({ kind: 'decision', content: 'Use PostgreSQL with pgvector', at: ago(3) }),
      item({ kind: 'decision', content: 'Move the queue to Redis', at: ago(1) }),
      item({ kind: 'plan', content: 'Migrate billing to Kubernetes next week' }),
      item({ kind: 'procedure', content: 'Run the smoke tests before a deploy', importance: 8 }),
      item({ kind: 'procedure', content: 'Rotate logs by hand', importance: 4 }),
      item({ kind: 'preference', content: 'Prefers TypeScript for services', importance: 7 }),
    ];
    const b = buildBriefing(items, { userId: 'alice', maxTokens: 1500, now });
    expect(b).not.toBeNull();
    const md = b!.markdown;
    expect(md.startsWith('# Working memory — alice\n')).toBe(true);
    const order = [
      '## Recent decisions',
      'Move the queue to Redis',
      'Use PostgreSQL',
      '## Open plans',
      'Migrate billing',
      '## Key procedures',
      'Run the smoke tests',
      '## Also important',
      'Prefers TypeScript',
    ];
    const positions = order.map((s) => md.indexOf(s));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, c) => a - c)).toEqual(positions);
    // the low-importance procedure is not a key procedure, but may appear among the rest
    expect(md.indexOf('Rotate logs')).toBeGreaterThan(md.indexOf('## Also important'));
    expect(b!.tokens).toBe(countTokens(md));
  });

  it('holds the token cap and the item limit, dropping the lowest-priority lines', () => {
    const items = Array.from({ length: 60 }, (_, i) =>
      item({ content: `Fact number ${i} says something moderately long about the deployment pipeline and its many stages`, importance: 1 + (i % 10) }),
    );
    const capped = buildBriefing(items, { userId: 'u', maxTokens: 150, now });
    expect(capped!.tokens).toBeLessThanOrEqual(150);
    expect(countTokens(capped!.markdown)).toBeLessThanOrEqual(150);
    expect(capped!.itemIds.length).toBeGreaterThan(0);
    const roomy = buildBriefing(items, { userId: 'u', maxTokens: 100_000, now });
    expect(roomy!.itemIds).toHaveLength(20);
    expect(roomy!.itemIds.slice(0, capped!.itemIds.length)).toEqual(capped!.itemIds);
  });

  it('emits nothing when there is nothing to say', () => {
    expect(buildBriefing([], { userId: 'u', maxTokens: 1500, now })).toBeNull();
    expect(buildBriefing([item({ content: '   ' })], { userId: 'u', maxTokens: 1500, now })).toBeNull();
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
