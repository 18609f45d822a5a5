import { isEmbedded, type Config } from '../../src/config.js';
import { inUseError, liveOwner } from '../../src/db/data-dir-lock.js';
import { MemloomError } from '../../src/errors.js';
import { createApi, type MemloomApi } from '../client/api.js';
import { networkReason } from '../client/http.js';
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

/** API_UNREACHABLE as the client reports it, for commands that call fetch themselves. */
export function unreachable(url: string, err: unknown): MemloomError {
  const reason = networkReason(err);
  return new MemloomError('API_UNREACHABLE', `no memloom answers at ${url} (${reason})`, { kind: 'unavailable', cause: err, details: { url, reason } });
}

/** What to do when a command finds no memloom: appended to its API_UNREACHABLE line. */
export const UNREACHABLE_HINT = 'Start memloom (npm start, or memloom start), or point --url or MEMLOOM_URL at the one that runs.';

/** The typed client of a running memloom: CLI commands never open the database themselves. */
export function remoteApi(config: Config, args: ParsedArgs, timeoutMs = 60_000): MemloomApi & { url: string } {
  const { url, apiKey } = remoteTarget(config, args);
  return { ...createApi({ url, apiKey, fetch: globalThis.fetch, timeoutMs }), url };
}

/**
 * For commands that can work on the database directly or through the API (forget, retry): where
 * to go in embedded mode without --url. The process that owns MEMLOOM_HOME's database (its lock,
 * src/db/data-dir-lock.ts) is asked through the API it advertised; an owner without an API is a
 * refusal (the files of a live database are never opened twice); no owner: `undefined`, and the
 * caller goes on as before (a memloom answering on HOST:PORT, else the database directly).
 */
export async function embeddedOwnerUrl(config: Config): Promise<string | undefined> {
  if (!isEmbedded(config)) return undefined;
  const owner = await liveOwner(config.MEMLOOM_HOME);
  if (!owner) return undefined;
  if (!owner.url) throw inUseError(config.MEMLOOM_HOME, owner);
  return owner.url;
}
