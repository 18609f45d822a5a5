/**
 * Flush on process exit, for every live client at once.
 *
 * Process events are process-global, so this is the one module-level registry of the client: one
 * listener per event serves all clients (a signal must spill every client before the default
 * action ends the process, and 50 clients must not mean 50 listeners).
 *
 * - `beforeExit` (the event loop ran dry): an async flush; the requests keep the process alive
 *   until every event is acknowledged or spilled, then Node emits `beforeExit` again and exits.
 * - `exit` (process.exit(), or the end after beforeExit): only synchronous work is possible, so
 *   whatever is still buffered or in flight is appended to the spill file with one write.
 * - SIGINT / SIGTERM: a listener replaces Node's default action, so we add one only to do the
 *   synchronous spill and then re-raise the signal with our listener removed, which restores the
 *   default (termination by that signal, exit code 128+n). If the application has its own
 *   listener, it owns shutdown: we do nothing and rely on `exit` when it calls process.exit().
 *   The client never calls process.exit itself.
 */
export interface ExitParticipant {
  busy(): boolean;
  flush(): Promise<void>;
  spillNowSync(): void;
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
const live = new Set<ExitParticipant>();

function onBeforeExit(): void {
  for (const c of live) if (c.busy()) void c.flush();
}

function onExit(): void {
  for (const c of live) c.spillNowSync();
}

function onSignal(signal: NodeJS.Signals): void {
  if (process.listeners(signal).some((l) => l !== onSignal)) return;
  for (const c of live) c.spillNowSync();
  detach();
  process.kill(process.pid, signal);
}

function attach(): void {
  process.on('beforeExit', onBeforeExit);
  process.on('exit', onExit);
  for (const s of SIGNALS) process.on(s, onSignal);
}

function detach(): void {
  process.removeListener('beforeExit', onBeforeExit);
  process.removeListener('exit', onExit);
  for (const s of SIGNALS) process.removeListener(s, onSignal);
}

/** Registers a client; the returned function unregisters it (close()). Idempotent. */
export function registerForExit(c: ExitParticipant): () => void {
  if (live.size === 0) attach();
  live.add(c);
  return () => {
    if (!live.delete(c)) return;
    if (live.size === 0) detach();
  };
}
