// V8 settings for a memloom process, applied before anything compiles WebAssembly: import this
// module first (bin/memloom.js, the benchmarks that run memloom in their own process).
import { setFlagsFromString } from 'node:v8';

// Compile all of PGlite's WebAssembly (PostgreSQL) with the optimizing compiler, in background
// threads at startup, instead of only the functions that get hot (V8's dynamic tiering). Otherwise
// a fresh process runs its first burst of work in baseline code: 788 events on a fresh process
// kept the main thread busy 4.2-4.3 s with dynamic tiering and 3.5-3.9 s without it (2026-11-30,
// `bench:pipeline`, 3 interleaved runs each); startup takes ~0.6 s longer. Too late once a module
// is compiled, and NODE_OPTIONS does not accept it.
setFlagsFromString('--no-wasm-dynamic-tiering');
