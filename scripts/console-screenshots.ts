// Screenshots of the console's main views for docs/console.md, at 1280 px and at a phone's 390 px:
// starts the browser tests' scene (a real memloom, pipeline included) and Debian's Chromium.
// Run: npx tsx scripts/console-screenshots.ts   (writes docs/console/*.png)
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { launchBrowser } from '../test/support/browser.js';
import { auth, KEYS, startConsoleScene } from '../test/support/console-seed.js';
import { getJson } from '../test/support/memloom.js';

const out = path.join(path.dirname(fileURLToPath(import.meta.url)), '../docs/console');

async function signIn(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/#/users`);
  await page.fill('#key input[name=key]', KEYS.acme);
  await page.click('#key button');
}

/** The entity of alice's graph with the most neighbours, for a picture with something in it. */
async function busiestEntity(url: string): Promise<string> {
  const { entities } = (await getJson(`${url}/v1/graph/entities?user_id=alice&limit=50`, auth(KEYS.acme))).body as { entities: Array<{ id: string }> };
  let best = { id: entities[0]?.id ?? '', nodes: 0 };
  for (const e of entities) {
    const g = (await getJson(`${url}/v1/graph/entities/${e.id}?user_id=alice&depth=2`, auth(KEYS.acme))).body as { nodes: unknown[] };
    if (g.nodes.length > best.nodes) best = { id: e.id, nodes: g.nodes.length };
  }
  return best.id;
}

const scene = await startConsoleScene();
const browser = await launchBrowser();
try {
  const { m } = scene;
  const hub = await busiestEntity(m.url);
  // A memory with a history: the port fact corrected once, as the console's correct action does.
  const [port] = (await getJson(`${m.url}/v1/memories?user_id=alice&q=5433`, auth(KEYS.acme))).body.memories as Array<{ id: string }>;
  const corrected = await fetch(`${m.url}/v1/memories/${port?.id}`, {
    method: 'PATCH',
    headers: { ...auth(KEYS.acme), 'content-type': 'application/json' },
    body: JSON.stringify({ content: 'The staging database runs on port 6543 behind the VPN.' }),
  });
  const { id: portV2 } = (await corrected.json()) as { id: string };
  for (const [suffix, size] of [
    ['', { width: 1280, height: 860 }],
    ['-phone', { width: 390, height: 844 }],
  ] as const) {
    const { page, outside } = await browser.page(size);
    await signIn(page, m.url);
    const shot = async (name: string, hash: string, ready: string) => {
      await page.goto(`${m.url}/${hash}`);
      await page.waitForSelector(ready);
      await page.screenshot({ path: path.join(out, `${name}${suffix}.png`), fullPage: suffix === '' });
    };
    await shot('users', '#/users/alice', '.session');
    await page.click('.session button:has-text("Show events")');
    await page.waitForSelector('.event');
    await page.screenshot({ path: path.join(out, `sessions${suffix}.png`), fullPage: suffix === '' });
    await shot('search', '#/memories?q=staging%20database%20port&mode=memories', '.result');
    await shot('memories', '#/memories', '.memory');
    await shot('memory', `#/memory/${portV2}`, '.timeline');
    await shot('conflicts', '#/conflicts', '.conflict');
    await shot('graph', `#/graph/${hub}?depth=2`, '.graph-svg');
    await shot('working-memory', '#/working-memory', '.view h1');
    await shot('health', '#/health', '.dead');
    await page.goto(`${m.url}/docs`);
    await page.waitForSelector('.opblock');
    await page.screenshot({ path: path.join(out, `docs${suffix}.png`) });
    if (outside.length > 0) throw new Error(`requests to other hosts: ${outside.join(', ')}`);
    await page.close();
  }
  process.stdout.write(`screenshots in ${out}\n`);
} finally {
  await browser.close();
  await scene.m.close();
}
