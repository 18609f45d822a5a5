// @ts-check
/**
 * Entry of the heuristic extractor's worker thread (HeuristicLlm in index.ts with `thread: true`).
 * A worker thread does not inherit the parent's TypeScript loader, so this plain-JavaScript file
 * loads the extractor itself: the compiled build when it runs from dist/server, else the sources
 * through tsx's require (compiled to CommonJS in this thread) rather than its ESM loader, whose
 * hooks run in one more thread: booting took 0.95 s and 1.2 s of CPU instead of 1.2 s and 1.8 s.
 * Resolved next to this file, so it works whatever the process's cwd.
 */
import { existsSync } from 'node:fs';

// The compiled build (dist/server) has thread.js beside this file; the sources load through tsx.
const compiled = new URL('./thread.js', import.meta.url);
if (existsSync(compiled)) await import(compiled.href);
else (await import('tsx/cjs/api')).require('./thread.ts', import.meta.url);
