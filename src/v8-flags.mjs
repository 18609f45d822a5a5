// V8 settings for a memloom process, applied before anything compiles WebAssembly: import this
// module first (bin/memloom.js, the benchmarks that run memloom in their own process).
//
// None today: PGlite's WebAssembly (PostgreSQL) runs under V8's default dynamic tiering (baseline
// code first, the optimizing compiler for the functions that get hot). From 2026-11-30 to
// 2026-12-07 memloom set --no-wasm-dynamic-tiering, which compiles every function with the
// optimizing compiler in background threads at startup: 788 events on a fresh process then kept
// the main thread (which ran PGlite's SQL at the time) busy 3.5-3.9 s instead of 4.2-4.3 s. On 2
// cores that compilation took ~1.6 s of CPU during every start, ~0.5 s of a warm start's wall time
// on a quiet machine and more under load (2026-12-07, docs/performance-history.md); with PGlite in
// a thread of its own, a fresh process's first 2,152 events took 37-63 s with dynamic tiering and
// 44-48 s without (3 runs each at load 4-8), no difference that the spread could show. Set a flag here with setFlagsFromString
// from 'node:v8' (NODE_OPTIONS does not accept V8's WebAssembly flags); it is too late once a
// module is compiled.
export {};
