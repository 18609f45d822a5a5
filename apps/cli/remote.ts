import type { Config } from '../../src/config.js';
import { createApi, type MemloomApi } from '../client/api.js';
import { flagString, type ParsedArgs } from './args.js';

/** Flags of every command that talks to a running memloom over HTTP. */
export const REMOTE_FLAGS = {
  url: { type: 'string', value: 'URL', description: 'the memloom API (default $MEMLOOM_URL, else http://$HOST:$PORT)' },
  'api-key': { type: 'string', value: 'KEY', description: 'API key (default $MEMLOOM_API_KEY; prefer the variable: flags show in `ps`)' },
} as const;

/** The API of this configuration; a wildcard listen address is reached on loopback. */
export function defaultUrl(config: Config): string {
  const host = config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST === '::' ? '::1' : config.HOST;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.PORT}`;
}

export function remoteTarget(config: Config, args: ParsedArgs): { url: string; apiKey: string | undefined } {
  const url = (flagString(args, 'url') ?? process.env.MEMLOOM_URL ?? defaultUrl(config)).replace(/\/+$/, '');
  return { url, apiKey: flagString(args, 'api-key') ?? process.env.MEMLOOM_API_KEY };
}

/** The typed client of a running memloom: CLI commands never open the database themselves. */
export function remoteApi(config: Config, args: ParsedArgs, timeoutMs = 60_000): MemloomApi & { url: string } {
  const { url, apiKey } = remoteTarget(config, args);
  return { ...createApi({ url, apiKey, fetch: globalThis.fetch, timeoutMs }), url };
}
