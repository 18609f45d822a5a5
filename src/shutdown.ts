import type { Logger } from './logger.js';

/**
 * Runs `stop` once on SIGINT/SIGTERM (drain in-flight work, close pools) and exits 0; a second
 * signal or a drain longer than `graceMs` exits 1 so an orchestrator is never left waiting.
 */
export function onShutdown(log: Logger, stop: () => Promise<void>, graceMs = 30_000): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, 'second signal; exiting now');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal }, 'shutting down; draining in-flight jobs');
    const timer = setTimeout(() => {
      log.error({ graceMs }, 'drain took too long; exiting');
      process.exit(1);
    }, graceMs);
    timer.unref();
    stop().then(
      () => {
        log.info('stopped');
        log.flush?.();
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
