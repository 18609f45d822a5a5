// Whether the compiled build in dist/server may run: it exists, was finished (its stamp is written
// last) and is newer than every source file (a packed install has no sources: it always may).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';

export const SOURCE_DIRS = ['src', 'apps', 'workers'];

/** The newest modification time under a directory (0 when it is absent). */
function newest(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  let max = 0;
  for (const e of entries) {
    const full = `${dir}/${e.name}`;
    max = Math.max(max, e.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }
  return max;
}

/** @param {URL} root the package's root directory, ending in '/' */
export function buildIsCurrent(root) {
  const stamp = new URL('dist/server/BUILD_STAMP', root);
  if (!existsSync(stamp)) return false;
  const at = Number(readFileSync(stamp, 'utf8'));
  return SOURCE_DIRS.every((d) => newest(new URL(d, root).pathname) <= at);
}
