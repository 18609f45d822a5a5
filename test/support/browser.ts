import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it when missing). */
export const CHROMIUM = process.env.MEMLOOM_CHROMIUM ?? '/usr/bin/chromium';

export interface TestBrowser {
  context: BrowserContext;
  /** A new tab (its own sessionStorage) whose requests to any host but loopback are refused and recorded in `outside`. */
  page(opts?: { width?: number; height?: number }): Promise<{ page: Page; outside: string[] }>;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Headless Chromium for the console's tests. A machine without it fails here with what to install
 * (a browser test must never pass by not running).
 */
export async function launchBrowser(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: install it with "apt-get install -y chromium" (.ci/run does), or set MEMLOOM_CHROMIUM.`);
  }
  const profile = await mkdtemp(path.join(os.tmpdir(), 'memloom-chromium-'));
  // A fresh profile per run (Playwright takes it as the persistent context's directory).
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async page(opts = {}) {
      const page = await context.newPage();
      await page.setViewportSize({ width: opts.width ?? 1280, height: opts.height ?? 900 });
      const outside: string[] = [];
      await page.route('**/*', (route) => {
        const url = new URL(route.request().url());
        if (url.protocol === 'data:' || url.protocol === 'blob:' || LOOPBACK.has(url.hostname)) return route.continue();
        outside.push(url.href);
        return route.abort();
      });
      return { page, outside };
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
