import { SingleBar } from 'cli-progress';
import { formatBytes } from './progress.js';

export interface TransferProgress {
  update(bytes: number, lines: number): void;
  stop(): void;
}

/**
 * Progress of an export or import on stderr (stdout may carry the data): a bar when the total is
 * known (import: the file's size), a running count otherwise (export); on a pipe or a file, one
 * status line every `intervalMs`, without escape codes.
 */
export function createTransferProgress(o: {
  label: string;
  total?: number;
  stream: NodeJS.WritableStream & { isTTY?: boolean };
  intervalMs?: number;
}): TransferProgress {
  if (o.stream.isTTY === true) {
    const known = o.total !== undefined && o.total > 0;
    const bar = new SingleBar({
      stream: o.stream,
      hideCursor: false,
      gracefulExit: false,
      clearOnComplete: false,
      etaBuffer: 50,
      format: known ? `${o.label} [{bar}] {percentage}% | {size} | {lines} lines | ETA {eta_formatted}` : `${o.label} {size} | {lines} lines`,
    });
    bar.start(known ? (o.total as number) : 1, 0, { size: formatBytes(0), lines: 0 });
    return {
      update: (bytes, lines) => bar.update(known ? Math.min(bytes, o.total as number) : 0, { size: formatBytes(bytes), lines }),
      stop: () => bar.stop(),
    };
  }
  const interval = o.intervalMs ?? 2_000;
  let last = Date.now();
  let latest = { bytes: 0, lines: 0 };
  const write = () => {
    const pct = o.total ? ` ${Math.min(100, Math.floor((latest.bytes / o.total) * 100))}% of ${formatBytes(o.total)} |` : '';
    o.stream.write(`${o.label}:${pct} ${formatBytes(latest.bytes)}, ${latest.lines} lines\n`);
  };
  return {
    update(bytes, lines) {
      latest = { bytes, lines };
      if (Date.now() - last < interval) return;
      last = Date.now();
      write();
    },
    stop: write,
  };
}
