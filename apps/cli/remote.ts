import { isEmbedded, type Config } from '../../src/config.js';
import { inUseError, liveOwner } from '../../src/db/data-dir-lock.js';
import { answeredCode, type ErrorCode, MemloomError } from '../../src/errors.js';
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

/**
 * A command that works through the API or on the database directly (forget, retry): through
 * `--url` when given; in embedded mode through the API of the process that owns MEMLOOM_HOME's
 * database, else a memloom answering on HOST:PORT; when nothing answers there (or on a server
 * without --url), `direct()` opens the database itself. `post.path` is the API route, `post.what`
 * names the command in errors, `post.failed` is the code of an error answer that names none.
 */
export async function viaApiOrDirect<T>(
  config: Config,
  args: ParsedArgs,
  post: { path: string; body: object; what: string; failed: ErrorCode },
  direct: () => Promise<T>,
): Promise<T> {
  const url = flagString(args, 'url');
  const apiKey = flagString(args, 'api-key') ?? process.env.MEMLOOM_API_KEY;
  const ownerUrl = url === undefined ? await embeddedOwnerUrl(config) : undefined;
  let result: T | undefined;
  if (url !== undefined) result = await postCommand<T>(url, apiKey, post);
  else if (ownerUrl !== undefined) result = await postCommand<T>(ownerUrl, apiKey, post);
  else if (isEmbedded(config)) result = await postCommand<T>(defaultUrl(config), apiKey, post, { unreachableOk: true });
  return result === undefined ? direct() : result;
}

/** POSTs the command; `undefined` when nothing listens and `unreachableOk` (embedded, no server running). */
async function postCommand<T>(
  url: string,
  apiKey: string | undefined,
  post: { path: string; body: object; what: string; failed: ErrorCode },
  opts: { unreachableOk?: boolean } = {},
): Promise<T | undefined> {
  let res: Response;
  try {
    res = await fetch(`${url.replace(/\/+$/, '')}${post.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
      body: JSON.stringify(post.body),
      signal: AbortSignal.timeout(120_000),
    });
  } catch (err) {
    if (opts.unreachableOk && (err as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED') return undefined;
    throw unreachable(url, err);
  }
  const answer = (await res.json().catch(() => ({}))) as T & { error?: { code?: string; message?: string } };
  if (!res.ok) {
    throw new MemloomError(
      answer.error?.code ? answeredCode(answer.error.code) : post.failed,
      `${post.what} failed (${res.status}): ${answer.error?.message ?? res.statusText}`,
      { kind: res.status < 500 ? 'input' : 'upstream' },
    );
  }
  return answer;
}
