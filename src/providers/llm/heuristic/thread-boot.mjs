// @ts-check
/**
 * Entry of the heuristic extractor's worker thread (HeuristicLlm in index.ts with `thread: true`).
 * A worker thread does not inherit the parent's TypeScript loader, so this plain-JavaScript file
 * registers tsx for the thread itself (as bin/memloom.js does for the process), then loads the
 * extractor. Resolved next to this file, so it works whatever the process's cwd.
 */
import { register } from 'tsx/esm/api';

register();
await import('./thread.ts');
