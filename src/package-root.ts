import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's root directory (package.json, prisma/migrations): the parent of src/ when running
 * from the sources, three levels up when running the compiled build in dist/server/src/.
 */
function findRoot(): string {
  const parent = fileURLToPath(new URL('..', import.meta.url));
  return existsSync(path.join(parent, 'package.json')) ? parent : path.resolve(parent, '../..');
}

export const PACKAGE_ROOT = findRoot();
