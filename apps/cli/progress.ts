import { MultiBar, Presets } from 'cli-progress';

export interface IngestCounts {
  files: number;
  lines: number;
  accepted: number;
  duplicates: number;
  rejected: number;
}

/** Progress of a long CLI job on stderr; stdout stays free for the result. */
export interface Progress {
  /** `done` in the unit of the total (bytes read for `memloom ingest`). */
  update(done: number, counts: IngestCounts): void;
  /** A message line (e.g. a rejected line) that must not be drawn over by the bar. */
  log(line: string): void;
  stop(): void;
}

export interface ProgressOptions {
  total: number;
  stream: NodeJS.WritableStream & { isTTY?: boolean };
  /** Without a TTY: at most one line per interval. Default 2 s. */
  intervalMs?: number;
}

/** A cli-progress bar on a terminal; on a pipe or a file, a periodic one-line status (no escape codes in logs). */
export function createProgress(opts: ProgressOptions): Progress {
  return opts.stream.isTTY === true ? barProgress(opts) : lineProgress(opts);
}

function barProgress(opts: ProgressOptions): Progress {
  const bars = new MultiBar(
    {
      stream: opts.stream,
      format: 'ingest [{bar}] {percentage}% | {lines} lines: {accepted} new, {duplicates} duplicate, {rejected} rejected | ETA {eta_formatted}',
      // No cursor hiding and no SIGINT listener of cli-progress: Ctrl-C keeps its default behaviour.
      hideCursor: false,
      gracefulExit: false,
      clearOnComplete: false,
      etaBuffer: 50,
    },
    Presets.shades_classic,
  );
  const bar = bars.create(Math.max(1, opts.total), 0, zero());
  return {
    update: (done, counts) => bar.update(Math.min(done, Math.max(1, opts.total)), { ...counts }),
    log: (line) => bars.log(`${line}\n`),
    stop: () => bars.stop(),
  };
}

function lineProgress(opts: ProgressOptions): Progress {
  const interval = opts.intervalMs ?? 2_000;
  let last = Date.now();
  return {
    update(done, c) {
      const now = Date.now();
      if (now - last < interval) return;
      last = now;
      const pct = opts.total > 0 ? Math.min(100, Math.floor((done / opts.total) * 100)) : 100;
      opts.stream.write(
        `ingest: ${pct}% of ${formatBytes(opts.total)} | ${c.files} file(s), ${c.lines} lines: ${c.accepted} new, ${c.duplicates} duplicate, ${c.rejected} rejected\n`,
      );
    },
    log: (line) => void opts.stream.write(`${line}\n`),
    stop: () => undefined,
  };
}

function zero(): IngestCounts {
  return { files: 0, lines: 0, accepted: 0, duplicates: 0, rejected: 0 };
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}
