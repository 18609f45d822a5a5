import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's root directory (package.json, prisma/migrations): the nearest folder above this
 * module holding a package.json. That is the parent of src/ when running from the sources, three
 * levels up from the compiled build's dist/server/src/, and four from the bundle of `memloom mcp`
 * (dist/server/apps/cli/, scripts/build-bundle.mjs).
 */
function findRoot(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = path.dirname(here); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${here}`);
  }
}

export const PACKAGE_ROOT = findRoot();
