import { createServer } from 'node:net';
import { ConfigError, checkProviderKeys, isEmbedded, type Config } from '../../src/config.js';
import { inUseError, liveOwner } from '../../src/db/data-dir-lock.js';
import { MemloomError } from '../../src/errors.js';

/** What a process is about to serve (the roles of serve.ts, reduced to what the checks need). */
export interface PreflightRoles {
  api: boolean;
  workers: readonly unknown[];
}

/**
 * The cheap checks of a start, made before the database starts and migrates (~20 s on a first
 * embedded start): each problem is one line and an exit code (docs/cli.md) instead of a failure
 * after that wait, or workers waiting on a provider that can never answer.
 *
 * - a non-loopback HOST without MEMLOOM_API_KEYS, an OpenAI provider without its key, an address
 *   this process cannot listen on: invalid configuration (ConfigError, exit 2);
 * - the embedded database owned by a live memloom: DATABASE_IN_USE (exit 1), named before the
 *   port that owner holds;
 * - the API port (and METRICS_PORT) taken by another program: PORT_IN_USE (exit 1).
 */
export async function preflight(config: Config, roles: PreflightRoles, opts: { inMemory?: boolean } = {}): Promise<void> {
  if (roles.api && config.MEMLOOM_API_KEYS.size === 0 && !isLoopback(config.HOST)) {
    throw new ConfigError(
      `invalid HOST: ${config.HOST} is not a loopback address, and without MEMLOOM_API_KEYS (key:tenant,…) memloom serves only this machine; set MEMLOOM_API_KEYS, or HOST=127.0.0.1`,
    );
  }
  checkProviderKeys(config, { embeddings: roles.api || roles.workers.length > 0, llm: roles.workers.length > 0 });
  if (isEmbedded(config) && !opts.inMemory) {
    const owner = await liveOwner(config.MEMLOOM_HOME);
    if (owner) throw inUseError(config.MEMLOOM_HOME, owner);
  }
  if (roles.api) await checkPortFree(config.HOST, config.PORT, 'PORT');
  if (config.METRICS_PORT !== undefined && !(roles.api && config.METRICS_PORT === config.PORT))
    await checkPortFree(config.HOST, config.METRICS_PORT, 'METRICS_PORT');
}

/**
 * Binds the address for a moment and lets it go. Another program can still take the port before
 * the API listens (the API then fails as before); this catches the usual case, a memloom or
 * another server already running, before the slow part of a start.
 */
async function checkPortFree(host: string, port: number, variable: 'PORT' | 'METRICS_PORT'): Promise<void> {
  if (port === 0) return; // any free port
  const error = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
  if (!error) return;
  if (error.code === 'EADDRINUSE')
    throw new MemloomError(
      'PORT_IN_USE',
      `port ${port} on ${host} is already in use (another memloom, or another program): stop it, or set ${variable} to a free port (${variable}=0 picks one).`,
      { kind: 'conflict', details: { host, port, variable } },
    );
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN')
    throw new ConfigError(`invalid HOST: expected an address of this machine to listen on (${host}: ${error.code})`);
  if (error.code === 'EACCES') throw new ConfigError(`invalid ${variable}: expected a port this process may listen on (below 1024 needs privileges)`);
  throw error;
}

/** Whether HOST serves this machine only (memloom then runs without API keys). */
export function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1' || host.startsWith('127.');
}
