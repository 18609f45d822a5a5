// @ts-check
/**
 * Entry of the heuristic extractor's worker thread (HeuristicLlm in index.ts with `thread: true`).
 * A worker thread does not inherit the parent's TypeScript loader, so this plain-JavaScript file
 * loads the extractor through tsx itself. It uses tsx's require (the sources compiled to CommonJS
 * in this thread) rather than its ESM loader, whose hooks run in one more thread: booting took
 * 0.95 s and 1.2 s of CPU instead of 1.2 s and 1.8 s. Resolved next to this file, so it works
 * whatever the process's cwd.
 */
import { require as tsxRequire } from 'tsx/cjs/api';

tsxRequire('./thread.ts', import.meta.url);
