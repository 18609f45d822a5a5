import { pino, type Logger } from 'pino';
import type { Config } from './config.js';

export type { Logger };

/** One root logger per process; components take `log.child({ component })`. Content never goes in logs. */
export function createLogger(config: Pick<Config, 'LOG_LEVEL' | 'PRETTY_LOGS'>, destination?: NodeJS.WritableStream): Logger {
  const pretty = config.PRETTY_LOGS || (destination === undefined && process.stderr.isTTY === true);
  const options = {
    level: config.LOG_LEVEL,
    redact: { paths: ['*.apiKey', '*.authorization', 'req.headers.authorization', 'req.headers["x-api-key"]'], censor: '[redacted]' },
    base: { pid: process.pid },
  };
  if (pretty && destination === undefined) {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { destination: 2, translateTime: 'SYS:HH:MM:ss.l' } } });
  }
  return pino(options, destination ?? pino.destination({ fd: 2, sync: false }));
}
