#!/usr/bin/env node
// memloom's command line. It runs the compiled build (dist/server, made by npm ci, npm test and
// npm pack) when the build is newer than every source file, and otherwise the TypeScript sources
// through tsx, so an edited checkout never runs stale code. MEMLOOM_FROM_SOURCE=1 forces the sources.
// `memloom mcp`, which an agent starts at every session, runs the build's bundle of the CLI when
// there is one (scripts/build-bundle.mjs: the same code in one file, loaded in about half the time).
import { existsSync } from 'node:fs';
import { buildIsCurrent } from './build-state.js';

const root = new URL('..', import.meta.url);
if (process.env.MEMLOOM_FROM_SOURCE !== '1' && buildIsCurrent(root)) {
  const command = process.argv.slice(2).find((a) => !a.startsWith('-'));
  const bundle = new URL('dist/server/apps/cli/mcp.bundle.js', root);
  await import(new URL('dist/server/src/v8-flags.mjs', root).href);
  if (command === 'mcp' && existsSync(bundle)) await import(bundle.href);
  else await import(new URL('dist/server/apps/cli/main.js', root).href);
} else {
  await import('../src/v8-flags.mjs');
  const { register } = await import('tsx/esm/api');
  register();
  await import('../apps/cli/main.ts');
}
