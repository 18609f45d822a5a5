/**
 * POST /v1/context through HTTP with the offline providers (embedded PGlite here, PostgreSQL in
 * the server suite): the block never exceeds its budget, lists current facts before evidence and
 * never presents a replaced fact as current, repeats no text, and is empty with match "none" for
 * a question about something never said.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens } from '../src/domain/tokens.js';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';

let m: TestMemloom;
const day = (d: number, h = 10) => new Date(Date.UTC(2026, 2, d, h)).toISOString();

interface Item {
  type: 'memory' | 'chunk';
  id: string;
  event_id?: string;
  event_ids?: string[];
  text: string;
  date: string;
  current: boolean;
  replaced_by?: { id: string; text?: string; date?: string };
}
interface Answer {
  context?: string;
  tokens: number;
  budget_tokens: number;
  match: string;
  items: Item[];
  recall_id: string;
}

async function context(body: Record<string, unknown>): Promise<Answer> {
  const r = await postJson(`${m.url}/v1/context`, body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}
async function send(events: Array<Record<string, unknown>>): Promise<void> {
  expect((await postJson(`${m.url}/v1/events`, { events })).status).toBe(202);
  await waitFor(async () => (await getJson(`${m.url}/v1/stats`)).body.pending_events === 0, { timeoutMs: 120_000, what: 'pipeline idle' });
}
const msg = (session: string, at: string, content: string, extra: Record<string, unknown> = {}) => ({
  user_id: 'dana',
  session_id: session,
  occurred_at: at,
  role: 'user',
  content,
  ...extra,
});

beforeAll(async () => {
  m = await startTestMemloom({ roles: { workers: QUEUE_NAMES } });
  await send([
    msg('d1', day(2, 11), 'For the desktop app we use Postgres as the local database.'),
    msg('d1', day(2, 12), 'The desktop app database migrations run at startup, before the window opens.'),
    msg('d1', day(2, 13), 'I prefer dark mode in every editor and terminal.'),
    { ...msg('d1', day(2, 14), 'We will write the API docs in Markdown.'), type: 'decision' },
    msg('d1', day(3), 'The desktop app ships for Windows and macOS; Linux comes later.'),
    msg('d1', day(4), 'Backups of the desktop app database go to the user folder every night.'),
    msg(
      'd3',
      day(5),
      `Long notes about the desktop app. ${Array.from({ length: 40 }, (_, i) => `Point ${i + 1}: the desktop app database keeps its settings table small and indexed.`).join(' ')}`,
      { type: 'document' },
    ),
  ]);
  const noa = (at: string, content: string) => ({ ...msg('n1', at, content), user_id: 'noa' });
  await send([
    msg('d2', day(9), 'We moved the desktop client from Postgres to SQLite, the installer was too big.'),
    noa(day(3, 9), 'Priya Raman is our tech lead and reviews every schema change.'),
    noa(day(3, 10), 'I prefer short answers with code first.'),
    noa(day(3, 11), 'Our retry helper is retryWithBackoff in utils.ts.'),
    noa(day(3, 12), 'Priya said we should test everything with pytest.'),
  ]);
}, 400_000);
afterAll(async () => m?.close());

describe('POST /v1/context', () => {
  it('never exceeds the budget, headings included', async () => {
    for (const budget of [100, 300, 1000]) {
      const a = await context({ user_id: 'dana', query: 'Which database does the desktop app use?', budget_tokens: budget });
      expect(a.match).not.toBe('none');
      expect(a.budget_tokens).toBe(budget);
      expect(a.items.length, `budget ${budget}`).toBeGreaterThan(0);
      expect(countTokens(a.context as string)).toBe(a.tokens);
      expect(a.tokens, `budget ${budget}`).toBeLessThanOrEqual(budget);
    }
    const small = await context({ user_id: 'dana', query: 'Which database does the desktop app use?', budget_tokens: 100 });
    const large = await context({ user_id: 'dana', query: 'Which database does the desktop app use?', budget_tokens: 1000 });
    expect(large.items.length).toBeGreaterThan(small.items.length);
  });

  it('lists the current facts first and never presents a replaced fact as current', async () => {
    const a = await context({ user_id: 'dana', query: 'Which database does the desktop app use?' });
    const md = a.context as string;
    expect(md.startsWith('## Current facts\n')).toBe(true);
    expect(a.items[0]).toMatchObject({ type: 'memory', current: true });
    expect(a.items[0]?.text).toMatch(/SQLite/);
    const facts = md.slice(0, md.indexOf('## Evidence') === -1 ? undefined : md.indexOf('## Evidence'));
    expect(facts).not.toMatch(/Postgres as the local database/);
    // Facts (memories) come before every piece of evidence.
    const firstEvidence = a.items.findIndex((i) => i.type === 'chunk' || !i.current);
    expect(a.items.slice(firstEvidence).every((i) => i.type === 'chunk' || !i.current)).toBe(true);
    const stale = a.items.find((i) => /Postgres as the local database/.test(i.text));
    if (stale) {
      expect(stale.current).toBe(false);
      expect(stale.replaced_by?.date).toBe('2026-03-09');
      const line = md.split('\n').find((l) => l.includes('Postgres as the local database')) as string;
      expect(line).toMatch(/\(replaced by .* on 2026-03-09\)/);
    }
    // Each line is dated and names its source.
    for (const i of a.items) {
      const line = md.split('\n').find((l) => l.includes(i.type === 'memory' ? `(memory ${i.id})` : `(event ${i.event_id})`));
      expect(line, i.text).toMatch(/^- \d{4}-\d{2}-\d{2}: /);
    }
  });

  it('with as_of lists what held then as the current fact', async () => {
    const a = await context({ user_id: 'dana', query: 'Which database does the desktop app use?', as_of: day(5) });
    expect(a.match).not.toBe('none');
    expect(a.items[0]).toMatchObject({ type: 'memory', current: true });
    expect(a.items[0]?.text).toMatch(/Postgres as the local database/);
    expect(a.items.some((i) => /SQLite/.test(i.text))).toBe(false);
    expect(a.context).not.toContain('replaced by');
  });

  it('repeats no text: a chunk of a listed fact’s event, a near-identical line and overlapping chunks appear once', async () => {
    const a = await context({ user_id: 'dana', query: 'desktop app database settings table', budget_tokens: 2000 });
    const norm = (s: string) => s.toLowerCase().replace(/\W+/g, ' ').trim();
    const texts = a.items.map((i) => norm(i.text));
    expect(new Set(texts).size).toBe(texts.length);
    const factEvents = new Set(a.items.filter((i) => i.type === 'memory').flatMap((i) => i.event_ids ?? []));
    const chunkEvents = a.items.filter((i) => i.type === 'chunk').map((i) => i.event_id);
    expect(chunkEvents.filter((e) => factEvents.has(e as string))).toEqual([]);
    expect(new Set(chunkEvents).size).toBe(chunkEvents.length);
    // The long document was cut into overlapping chunks: its line holds no sentence twice.
    const doc = a.items.find((i) => i.type === 'chunk' && i.text.includes('Point '));
    expect(doc).toBeDefined();
    const points = (doc?.text.match(/Point \d+:/g) ?? []) as string[];
    expect(new Set(points).size).toBe(points.length);
  });

  it('leaves out what only shares a session with the answer, however much budget is left', async () => {
    const a = await context({ user_id: 'noa', query: 'Who is Priya?', budget_tokens: 2000 });
    expect(a.context).toMatch(/Priya Raman is our tech lead/);
    expect(a.context).not.toMatch(/short answers|retryWithBackoff/);
  });

  it('answers an empty block with match "none" for something never said', async () => {
    const a = await context({ user_id: 'dana', query: 'Who is Priya?' });
    expect(a).toMatchObject({ match: 'none', context: '', tokens: 0, items: [] });
  });

  it('with format json answers the items without the Markdown, and rejects a budget out of range', async () => {
    const a = await context({ user_id: 'dana', query: 'Which database does the desktop app use?', format: 'json' });
    expect(a.context).toBeUndefined();
    expect(a.items.length).toBeGreaterThan(0);
    expect(a.tokens).toBeLessThanOrEqual(1000);
    for (const budget_tokens of [10, 100_000]) {
      const r = await postJson(`${m.url}/v1/context`, { user_id: 'dana', query: 'database', budget_tokens });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('INPUT_INVALID');
    }
    expect((await postJson(`${m.url}/v1/context`, { query: 'database', mode: 'chunks' })).status).toBe(400);
  });
});
