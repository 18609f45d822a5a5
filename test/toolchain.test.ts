import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/process.js';

/**
 * What a fresh clone's `npm ci` and CI run promise: every locked package runs on the oldest Node
 * that package.json admits (npm ci warned EBADENGINE for content-disposition@3 and cookie@2, which
 * need Node 22; package.json's `overrides` keep the CommonJS majors that export the same
 * functions), and .ci/run type-checks before it runs the suites (vitest strips types unchecked).
 */
// semver is bullmq's and fastify's dependency; it has no types of its own here.
const semver = createRequire(import.meta.url)('semver') as {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
};

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

describe('the toolchain', () => {
  it('locks no package that refuses the oldest Node package.json admits', () => {
    const pkg = JSON.parse(read('package.json')) as { engines: { node: string } };
    const oldest = semver.minVersion(pkg.engines.node)?.version;
    expect(oldest).toMatch(/^20\./);
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { version?: string; engines?: { node?: string } | string[] }> };
    const refusing = Object.entries(lock.packages)
      .filter(([, p]) => !Array.isArray(p.engines) && p.engines?.node !== undefined)
      .filter(([, p]) => !semver.satisfies(oldest as string, (p.engines as { node: string }).node))
      .map(([name, p]) => `${name.replace(/^.*node_modules\//, '')}@${p.version} needs Node ${(p.engines as { node: string }).node}`);
    expect(refusing).toEqual([]);
  });

  it('CI type-checks after npm ci and before the test suites', () => {
    const lines = read('.ci/run')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    const at = (cmd: string) => lines.findIndex((l) => l.split(/\s*&&\s*/).includes(cmd));
    expect(at('npm run typecheck')).toBeGreaterThan(at('npm ci'));
    expect(at('npm ci')).toBeGreaterThanOrEqual(0);
    expect(at('npm run typecheck')).toBeLessThan(at('npm test'));
  });
});
