// @ts-check
/**
 * Entry of the embedded database's thread (PGliteThread in pglite-thread.ts). PGlite runs each
 * statement synchronously on the thread that owns it; here that is not the thread that serves
 * HTTP and runs the pipeline. A worker thread does not inherit the parent's TypeScript loader:
 * PGlite is opened from here (its WebAssembly compiles in the background meanwhile), and the
 * session queue is loaded through tsx's require (see the heuristic extractor's thread-boot.mjs).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { existsSync } from 'node:fs';

if (!parentPort) throw new Error('pglite-thread.mjs runs as a worker thread');
const { dataDir, postgresqlconf } = workerData;
const opening = PGlite.create({ dataDir, extensions: { vector }, postgresqlconf });
opening.catch(() => undefined); // reported to the main thread by serveDatabaseThread
// The compiled build (dist/server) has the session queue beside this file; the sources load through tsx.
const compiled = new URL('./pglite-thread-serve.js', import.meta.url);
/** @type {{ serveDatabaseThread: (port: import('node:worker_threads').MessagePort, opening: Promise<PGlite>) => void }} */
const serve = existsSync(compiled) ? await import(compiled.href) : (await import('tsx/cjs/api')).require('./pglite-thread-serve.ts', import.meta.url);
serve.serveDatabaseThread(parentPort, opening);
