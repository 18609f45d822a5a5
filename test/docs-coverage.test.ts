import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../apps/api/openapi/catalog.js';
import { COMMANDS } from '../apps/cli/registry.js';
import { ConfigSchema } from '../src/config.js';

/**
 * The user docs name everything there is: every route in docs/api.md, every command and option in
 * docs/cli.md, every configuration variable in docs/configuration.md.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const doc = (name: string) => readFile(path.join(ROOT, 'docs', name), 'utf8');

describe('user docs', () => {
  it('docs/api.md has a table row for every route', async () => {
    const api = await doc('api.md');
    const missing = ROUTES.filter((r) => !api.includes(`| ${r.method} | \`${r.path}\` |`)).map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
  });

  it('docs/cli.md documents every command and every option', async () => {
    const cli = await doc('cli.md');
    const missing: string[] = [];
    for (const c of COMMANDS) {
      const at = cli.indexOf(`### \`memloom ${c.name}`);
      if (at === -1) missing.push(c.name);
      const section = cli.slice(at, cli.indexOf('\n### ', at + 1) === -1 ? undefined : cli.indexOf('\n### ', at + 1));
      for (const flag of Object.keys(c.flags)) if (!section.includes(`\`--${flag}`)) missing.push(`${c.name} --${flag}`);
    }
    expect(missing).toEqual([]);
  });

  it('docs/configuration.md has a table row for every configuration variable', async () => {
    const reference = await doc('configuration.md');
    const missing = Object.keys(ConfigSchema.shape).filter((name) => !reference.includes(`| \`${name}\` |`));
    expect(missing).toEqual([]);
  });
});
