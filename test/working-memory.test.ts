import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens } from '../src/domain/tokens.js';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';
import { apiStats, postEvents } from './support/pipeline.js';

/**
 * Issue 32: a coding assistant's user, five sessions over two weeks, through HTTP with the default
 * briefing configuration. The working memory must be served within 10 s of `pending_events`
 * reaching 0 and change within 10 s of a correction, a forget and a deletion. These are functional
 * deadlines (polls with a 10 s timeout), not performance figures.
 */
let m: TestMemloom;
const DAY = 86_400_000;
const SETTLED = 10_000;
const start = Date.now() - 14 * DAY;
const due = new Date(Date.now() + 20 * DAY);
const dueWords = due.toLocaleDateString('en-US', { month: 'long', day: 'numeric', year: 'numeric', timeZone: 'UTC' });

const turn = (session: number, minute: number, role: 'user' | 'assistant', content: string) => ({
  user_id: 'dana',
  session_id: `dana-${session}`,
  role,
  content,
  occurred_at: new Date(start + (session - 1) * 3 * DAY + minute * 60_000).toISOString(),
});

const SESSIONS = [
  turn(1, 0, 'user', 'Hi! The weather is awful today, raining all morning.'),
  turn(1, 1, 'user', "I'm Dana, a backend engineer at Lumen Health, and I mostly write TypeScript."),
  turn(1, 2, 'user', 'I use Neovim as my editor, please give me vim keybindings.'),
  turn(1, 3, 'assistant', 'Got it, I will use Neovim-friendly examples.'),
  turn(2, 0, 'user', 'We decided to use PostgreSQL for the events store.'),
  turn(2, 1, 'user', 'Priya Raman is our tech lead and reviews every schema change.'),
  turn(2, 2, 'assistant', 'Noted. I will keep schema changes small for Priya.'),
  turn(3, 0, 'user', 'We switched the events store from PostgreSQL to ClickHouse.'),
  turn(3, 1, 'user', `The billing migration deadline is ${dueWords}.`),
  turn(4, 0, 'user', 'I prefer short answers with code first.'),
  turn(4, 1, 'user', 'Thanks, that helped!'),
  turn(5, 0, 'user', 'We plan to move CI to GitHub Actions after the billing migration.'),
  turn(5, 1, 'assistant', 'Sounds good, I will remember that.'),
];

async function workingMemory(query = ''): Promise<{ status: number; text: string }> {
  const res = await fetch(`${m.url}/v1/working-memory?user_id=dana${query}`);
  return { status: res.status, text: await res.text() };
}

/** Polls the working memory until `ok` holds, for at most 10 s. */
const settled = (what: string, ok: (md: string) => boolean) =>
  waitFor(
    async () => {
      const wm = await workingMemory();
      return wm.status === 200 && ok(wm.text) ? wm.text : undefined;
    },
    { timeoutMs: SETTLED, intervalMs: 100, what },
  );

const items = (md: string) => md.split('\n').filter((l) => l.startsWith('- '));
const shortId = (md: string, text: string) => /· (m:[0-9a-f]{8})\)_$/.exec(items(md).find((l) => l.includes(text)) ?? '')?.[1];

beforeAll(async () => {
  m = await startTestMemloom({ roles: { workers: QUEUE_NAMES } });
  expect(m.config.BRIEFING_DEBOUNCE_MS).toBeLessThanOrEqual(5_000);
}, 300_000);
afterAll(async () => m?.close());

describe('the working memory of a multi-session user', () => {
  let md = '';

  it('is served within 10 s of pending_events reaching 0, with the default configuration', async () => {
    await postEvents(m.url, SESSIONS, 4);
    await waitFor(
      async () => {
        const s = await apiStats(m.url);
        return s.pending_events === 0 && s.objects.events === SESSIONS.length;
      },
      { timeoutMs: 120_000, intervalMs: 100, what: 'pending_events to reach 0' },
    );
    md = await settled('the working memory after the sessions settled', (text) => text.includes('ClickHouse') && text.includes('GitHub Actions'));
  }, 180_000);

  it('holds the current decisions and marks the one they replaced', () => {
    const decisions = md.slice(md.indexOf('## Current decisions'));
    expect(md).toContain('## Current decisions');
    const clickhouse = items(decisions).find((l) => l.includes('ClickHouse'));
    expect(clickhouse).toMatch(/replaced "We decided to use PostgreSQL for the events store\.", since \d{4}-\d{2}-\d{2} · m:[0-9a-f]{8}\)_$/);
    // the replaced decision is no current line of its own
    expect(items(md).some((l) => l.startsWith('- We decided to use PostgreSQL'))).toBe(false);
  });

  it('has who the user is, preferences, people and the deadline, each line dated and traceable', async () => {
    const section = (title: string) => {
      const at = md.indexOf(`## ${title}\n`);
      expect(at, title).toBeGreaterThanOrEqual(0);
      const end = md.indexOf('\n## ', at + 1);
      return md.slice(at, end === -1 ? undefined : end);
    };
    expect(section('Who the user is')).toContain('Dana, a backend engineer at Lumen Health');
    expect(section('Preferences')).toMatch(/Neovim/);
    expect(section('People')).toContain('Priya Raman is our tech lead');
    expect(section('Open plans and deadlines')).toContain(`due ${due.toISOString().slice(0, 10)}`);
    for (const l of items(md)) expect(l).toMatch(/_\((?:.+ · )?m:[0-9a-f]{8}\)_$/);
    // readable: no mechanical "the user" in the lines
    expect(md).not.toMatch(/the user's|give the user/i);
    const id = shortId(md, 'Priya Raman');
    const memory = await getJson(`${m.url}/v1/memories/${id}`);
    expect(memory.status).toBe(200);
    expect(memory.body.content).toContain('Priya Raman');
  });

  it('has no chit-chat and no assistant acknowledgements', () => {
    expect(md).not.toMatch(/weather|raining|thanks|that helped|hi!/i);
    expect(md).not.toMatch(/assistant|got it|noted|sounds good|\bI will\b|I'll/i);
  });

  it('trims to budget_tokens by priority', async () => {
    const full = countTokens(md);
    const small = await workingMemory('&budget_tokens=90');
    expect(small.status).toBe(200);
    expect(countTokens(small.text)).toBeLessThanOrEqual(90);
    expect(countTokens(small.text)).toBeLessThan(full);
    expect(items(small.text).length).toBeGreaterThan(0);
    expect((await workingMemory(`&budget_tokens=${full + 100}`)).text).toBe(md);
    expect((await workingMemory('&budget_tokens=abc')).status).toBe(400);
    const none = await workingMemory('&budget_tokens=5');
    expect(none.status).toBe(400);
    expect(JSON.parse(none.text).error.code).toBe('WORKING_MEMORY_BUDGET_TOO_SMALL');
  });

  it('changes within 10 s of a correction, a forget and a deletion', async () => {
    const list = await getJson(`${m.url}/v1/memories?user_id=dana&limit=100`);
    const pref = (list.body.memories as Array<{ id: string; content: string }>).find((x) => x.content.includes('short answers'));
    expect(pref).toBeDefined();
    const patched = await fetch(`${m.url}/v1/memories/${pref!.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'The user prefers detailed answers with diagrams.' }),
    });
    expect(patched.status).toBe(200);
    md = await settled('the corrected preference', (text) => text.includes('detailed answers with diagrams'));
    // the old text is only named as what the correction replaced
    expect(items(md).find((l) => l.includes('short answers'))).toMatch(
      /^- Prefers detailed answers with diagrams\. _\(replaced "Prefers short answers with code first\."/,
    );

    expect((await postJson(`${m.url}/v1/forget`, { session_id: 'dana-5', user_id: 'dana' })).status).toBe(200);
    md = await settled('the forgotten session gone', (text) => !text.includes('GitHub Actions'));

    const priya = (list.body.memories as Array<{ id: string; content: string }>).find((x) => x.content.includes('Priya Raman'));
    expect((await fetch(`${m.url}/v1/memories/${priya!.id}`, { method: 'DELETE' })).status).toBe(200);
    md = await settled('the deleted memory gone', (text) => !text.includes('Priya Raman'));
    expect(md).toContain('ClickHouse');
  }, 60_000);
});
