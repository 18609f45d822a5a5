#!/usr/bin/env node
// The agent hook (docs/agents.md). It runs on every turn of an agent, so it starts as plain Node
// from the compiled build (dist/, made by npm ci / npm test); from a checkout without a build it
// falls back to the TypeScript sources through tsx.
import { existsSync } from 'node:fs';

const built = new URL('../dist/client/apps/hook/main.js', import.meta.url);
let hook;
if (existsSync(built)) hook = await import(built.href);
else {
  const { register } = await import('tsx/esm/api');
  register();
  hook = await import('../apps/hook/main.ts');
}
await hook.main(process.argv.slice(2));
