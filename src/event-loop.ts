/**
 * Gives the thread back to the event loop (pending I/O, timers, HTTP requests) before continuing.
 * Long CPU work on the main thread — chunking or embedding a megabyte of text — runs in steps with
 * this between them: in one process the API's requests wait for the whole step otherwise.
 * (`await` on a settled promise yields to microtasks only, never to I/O.)
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
