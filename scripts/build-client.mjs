#!/usr/bin/env node
// Compiles the TypeScript client (apps/client) to dist/client: JavaScript + declarations, so that
// plain Node and other TypeScript projects import `memloom/client` without tsx. Run by `prepare`
// (npm ci / npm install) and `pretest`. Without TypeScript installed (npm ci --omit=dev, as the
// server image does) there is nothing to build with and the server does not need it: say so, exit 0.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const tsc = path.join(root, 'node_modules/typescript/bin/tsc');

export function buildClient() {
  if (!existsSync(tsc)) {
    process.stderr.write('build-client: typescript is not installed (production install); memloom/client is not built\n');
    return false;
  }
  execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.client.json')], { cwd: root, stdio: 'inherit' });
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) buildClient();
