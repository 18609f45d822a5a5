import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from './support/browser.js';
import { auth, KEYS, POISON, startConsoleScene, type ConsoleScene } from './support/console-seed.js';
import { getJson, postJson, waitFor } from './support/memloom.js';

/**
 * The console at / and the API reference at /docs, driven in Debian's headless Chromium against a
 * real memloom (pipeline included). Every console action must land as the same HTTP call would:
 * the tests read the outcome back over HTTP. Also the routes the console added to the API.
 */
let scene: ConsoleScene;
let browser: TestBrowser;
const ACME = auth(KEYS.acme);
const GLOBEX = auth(KEYS.globex);
const api = (path: string, headers = ACME) => getJson(`${scene.m.url}${path}`, headers);

beforeAll(async () => {
  browser = await launchBrowser();
  scene = await startConsoleScene();
}, 400_000);
afterAll(async () => {
  await browser?.close();
  await scene?.m.close();
});

async function signedIn(key = KEYS.acme): Promise<{ page: Page; outside: string[] }> {
  const tab = await browser.page();
  await tab.page.goto(`${scene.m.url}/#/users`);
  await tab.page.fill('#key input[name=key]', key);
  await tab.page.click('#key button');
  return tab;
}

describe('routes the console needs', () => {
  it('GET /v1/users and /v1/sessions count per tenant and page with a cursor', async () => {
    const users = (await api('/v1/users')).body;
    expect(users.users.map((u: { user_id: string }) => u.user_id)).toEqual(['alice']);
    expect(users.users[0]).toMatchObject({ sessions: 2, events: 6 });
    expect((await api('/v1/users', GLOBEX)).body.users.map((u: { user_id: string }) => u.user_id)).toEqual(['bob-globex']);
    const first = (await api('/v1/sessions?user_id=alice&limit=1')).body;
    expect(first.sessions.map((s: { session_id: string }) => s.session_id)).toEqual(['standup-2']);
    const second = (await api(`/v1/sessions?user_id=alice&limit=1&cursor=${first.next_cursor}`)).body;
    expect(second.sessions.map((s: { session_id: string }) => s.session_id)).toEqual(['planning-1']);
    expect(second.sessions[0]).toMatchObject({ events: 3, user_id: 'alice' });
    expect(second.next_cursor).toBeNull();
    const events = (await api('/v1/events?session_id=planning-1&user_id=alice&limit=2')).body;
    expect(events.events).toHaveLength(2);
    const rest = (await api(`/v1/events?session_id=planning-1&user_id=alice&limit=2&cursor=${events.next_cursor}`)).body;
    expect([...events.events, ...rest.events].map((e: { content: string }) => e.content)).toEqual([
      expect.stringMatching(/PostgreSQL with pgvector/),
      expect.stringMatching(/Grafana/),
      expect.stringMatching(/5433/),
    ]);
    expect((await api('/v1/events?session_id=planning-1', GLOBEX)).body.events).toEqual([]);
    for (const bad of ['/v1/users?cursor=bm9wZQ', '/v1/sessions?cursor=WyJ4Il0', '/v1/events', '/v1/events?session_id=x&cursor=WyJhIl0'])
      expect((await api(bad)).status, bad).toBe(400);
  });

  it('GET /v1/memories filters by when it was said (since, until)', async () => {
    const week = new Date(Date.now() - 7 * 86_400_000).toISOString();
    const recent = (await api(`/v1/memories?user_id=alice&since=${week}`)).body.memories as Array<{ occurred_at: string }>;
    const older = (await api(`/v1/memories?user_id=alice&until=${week}`)).body.memories as Array<{ occurred_at: string }>;
    expect(recent.length).toBeGreaterThan(0);
    expect(older.length).toBeGreaterThan(0);
    for (const m of recent) expect(Date.parse(m.occurred_at)).toBeGreaterThanOrEqual(Date.parse(week));
    for (const m of older) expect(Date.parse(m.occurred_at)).toBeLessThan(Date.parse(week));
  });

  it('POST /v1/memories/:id/supersede refuses itself, another tenant and an unknown memory', async () => {
    const [a, b] = scene.conflict;
    expect((await postJson(`${scene.m.url}/v1/memories/${a}/supersede`, { by: a }, ACME)).status).toBe(400);
    expect((await postJson(`${scene.m.url}/v1/memories/${a}/supersede`, { by: b }, GLOBEX)).status).toBe(404);
    expect((await postJson(`${scene.m.url}/v1/memories/${a}/supersede`, { by: '00000000-0000-4000-8000-000000000000' }, ACME)).status).toBe(404);
  });

  it('POST /v1/dead-letters/:id/retry is 404 for another tenant and for an unknown id', async () => {
    const [dead] = (await api('/v1/dead-letters')).body.dead_letters;
    expect((await postJson(`${scene.m.url}/v1/dead-letters/${dead.id}/retry`, {}, GLOBEX)).status).toBe(404);
    expect((await postJson(`${scene.m.url}/v1/dead-letters/00000000-0000-4000-8000-000000000000/retry`, {}, ACME)).status).toBe(404);
  });
});

describe('the console in Chromium', () => {
  it('/ and /docs load everything from memloom itself; /docs renders every operation and can try one', async () => {
    const { page, outside } = await signedIn();
    await page.waitForSelector('#nav');
    await page.goto(`${scene.m.url}/docs`);
    await page.waitForSelector('.opblock');
    const { body } = await getJson(`${scene.m.url}/openapi.json`);
    const operations = Object.values(body.paths as Record<string, object>).reduce((n, ops) => n + Object.keys(ops).length, 0);
    expect(await page.locator('.opblock').count()).toBe(operations);
    // "Try it out" (on from the start) on GET /v1/stats, with the console's key filled in.
    const stats = page.locator('#operations-ops-getV1Stats');
    await stats.locator('.opblock-summary').click();
    await stats.locator('button.execute').click();
    await expect.poll(() => stats.locator('.live-responses-table tbody .response-col_status').first().textContent()).toMatch(/200/);
    expect(outside).toEqual([]);
    await page.close();
  });

  it('searches with a recall mode, shows score components, and answers what the same HTTP recall answers', async () => {
    const { page } = await signedIn();
    await page.goto(`${scene.m.url}/#/users/alice`);
    await page.waitForSelector('.session');
    await page.goto(`${scene.m.url}/#/memories?q=staging%20database%20port&mode=memories`);
    await page.waitForSelector('.result');
    const shown = await page.locator('.result').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));
    const http = await postJson(`${scene.m.url}/v1/recall`, { query: 'staging database port', mode: 'memories', limit: 20, user_id: 'alice' }, ACME);
    expect(shown).toEqual(http.body.results.map((r: { id: string }) => r.id));
    expect(await page.locator('.result').first().textContent()).toMatch(/5433/);
    expect(await page.locator('.result .scores dt').allTextContents()).toEqual(expect.arrayContaining(['score', 'relevance', 'vector', 'keyword']));
    // Marking the answer good stores feedback on the console's recall.
    const before = (await api('/v1/stats')).body.objects.feedback;
    await page.click('button:has-text("Good")');
    await page.waitForSelector('text=Marked good');
    expect((await api('/v1/stats')).body.objects.feedback).toBe(before + 1);
    // The good answer goes back through the pipeline as a feedback event: it confirms what it repeats.
    await waitFor(async () => (await api('/v1/stats')).body.pending_events === 0, { timeoutMs: 120_000, what: 'the feedback event' });
    const [port] = (await api('/v1/memories?user_id=alice&q=5433')).body.memories;
    expect(port).toMatchObject({ status: 'active', version: 1 });
    expect((await api(`/v1/memories/${port.id}`)).body.provenance.events.map((e: { type: string }) => e.type).sort()).toEqual(['feedback', 'message']);
    await page.close();
  });

  it('opens a memory, corrects it into a new version, and shows the versions as a timeline', async () => {
    const { page } = await signedIn();
    const [old] = (await api('/v1/memories?user_id=alice&q=5433')).body.memories;
    await page.goto(`${scene.m.url}/#/memory/${old.id}`);
    await page.waitForSelector('.timeline');
    await page.fill('#fix', 'The staging database runs on port 6543 behind the VPN.');
    await page.click('button:has-text("Save as a new version")');
    await page.waitForSelector('.timeline li:nth-child(2)');
    const newId = page.url().split('/memory/')[1] as string;
    expect(newId).not.toBe(old.id);
    expect(await page.locator('.timeline li').allTextContents()).toEqual([
      expect.stringMatching(/v1.*superseded.*5433.*Replaced by v2: correction/s),
      expect.stringMatching(/v2.*active.*6543/s),
    ]);
    // The same state a PATCH over HTTP leaves: the old version superseded by the new, recall finds the new one.
    expect((await api(`/v1/memories/${old.id}`)).body).toMatchObject({ status: 'superseded', superseded_by: newId });
    expect((await api(`/v1/memories/${newId}`)).body).toMatchObject({ version: 2, status: 'active', content: expect.stringMatching(/6543/) });
    const recall = await postJson(`${scene.m.url}/v1/recall`, { query: 'staging database port', mode: 'memories', user_id: 'alice' }, ACME);
    const ids = recall.body.results.map((r: { id: string }) => r.id);
    expect(ids).toContain(newId);
    expect(ids).not.toContain(old.id);
    await page.close();
  });

  it('forgets a session after a confirmation that says what goes, and it is gone', async () => {
    const { page } = await signedIn();
    await page.goto(`${scene.m.url}/#/users/alice`);
    const session = page.locator('.session[data-session="planning-1"]');
    await session.locator('button:has-text("Forget session")').click();
    const dialog = page.locator('dialog.confirm');
    expect(await dialog.textContent()).toMatch(/3 events of alice/);
    await dialog.locator('button[value=ok]').click();
    await page.waitForSelector('text=Session planning-1 forgotten');
    expect(await page.locator('.session[data-session="planning-1"]').count()).toBe(0);
    await page.reload();
    await page.waitForSelector('.session');
    expect(await page.locator('.session[data-session="planning-1"]').count()).toBe(0);
    // Over HTTP: the session is gone, and the same forget again finds nothing (it already happened).
    expect((await api('/v1/sessions?user_id=alice')).body.sessions.map((s: { session_id: string }) => s.session_id)).toEqual(['standup-2']);
    expect((await api('/v1/events?session_id=planning-1&user_id=alice')).body.events).toEqual([]);
    const again = await postJson(`${scene.m.url}/v1/forget`, { session_id: 'planning-1', user_id: 'alice' }, ACME);
    expect(again.body.nothing_to_forget).toBe(true);
    await page.close();
  });

  it('settles a conflict: the memory kept supersedes the other', async () => {
    const { page } = await signedIn();
    await page.goto(`${scene.m.url}/#/conflicts`);
    await page.waitForSelector('.conflict');
    // Each side says when it was said, so a person can tell the newer claim (seeded two days and one day ago).
    const said = await page.locator('.conflict .side .meta').allTextContents();
    expect(said).toHaveLength(2);
    for (const m of said) expect(m).toMatch(/fact · said .+ · confidence 0\.80/);
    const kept = await page.locator('.conflict .side').first().locator('a').textContent();
    await page.locator('.conflict .side').first().locator('button').click();
    await page.waitForSelector('text=the other is superseded');
    const [a, b] = scene.conflict;
    const [keep, drop] = kept?.includes('Mondays') ? [a, b] : [b, a];
    expect((await api(`/v1/memories/${drop}`)).body).toMatchObject({ status: 'superseded', superseded_by: keep });
    expect((await api('/v1/memories?conflicts=true')).body.memories).toEqual([]);
    await page.close();
  });

  it('retries a dead letter: its job runs again and its event reaches memory', async () => {
    await scene.cure();
    const { page } = await signedIn();
    await page.goto(`${scene.m.url}/#/health`);
    await page.waitForSelector('.dead');
    expect(await page.locator('.dead').first().textContent()).toMatch(/DATA_REJECTED/);
    // The summary above says that something failed; it does not claim everything went through.
    expect(await page.locator('.health .lead').textContent()).toMatch(/1 dead letter below/);
    await page.locator('.dead button:has-text("Retry")').first().click();
    await page.waitForSelector('text=sent back to the queue');
    const [dead] = (await api('/v1/dead-letters')).body.dead_letters;
    expect(dead.retried_at).not.toBeNull();
    await waitFor(
      async () => {
        const events = (await api('/v1/events?session_id=standup-2&user_id=alice')).body.events as Array<{ content: string; status: string }>;
        return events.find((e) => e.content.includes(POISON))?.status === 'done';
      },
      { timeoutMs: 120_000, what: 'the retried event to be processed' },
    );
    await page.close();
  });

  it("tenant B's key never shows tenant A's users or memories", async () => {
    const { page } = await signedIn(KEYS.globex);
    await page.goto(`${scene.m.url}/#/users`);
    await page.waitForSelector('table tbody tr');
    expect(await page.locator('table tbody th').allTextContents()).toEqual(['bob-globex']);
    // Even asked by name, alice has no sessions here.
    await page.goto(`${scene.m.url}/#/users/alice`);
    await page.waitForSelector('text=No sessions.');
    await page.fill('#scope input[name=user_id]', '');
    await page.click('#scope button');
    await page.goto(`${scene.m.url}/#/memories`);
    await page.waitForSelector('.memory');
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).toContain('kiosk firmware');
    expect(text).not.toMatch(/PostgreSQL|Redis|release train|alice/i);
    await page.close();
  });
});
