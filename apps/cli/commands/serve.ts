import { isEmbedded, type Config } from '../../../src/config.js';
import { openEmbeddedDatabase, type EmbeddedDatabase } from '../../../src/db/embedded.js';
import type { Logger } from '../../../src/logger.js';
import { onShutdown } from '../../../src/shutdown.js';
import { preflight } from '../preflight.js';
import type { Roles, Running } from './roles.js';

export type { Roles, Running } from './roles.js';

/**
 * `memloom start` and the other serving commands. This module loads little: the embedded
 * database opens in its thread (PGlite compiles its WebAssembly, then opens the data directory, or
 * creates it from the template) while the main thread loads the roles (roles.ts: fastify, BullMQ,
 * the workers), so the two overlap instead of one waiting for the other.
 */
export async function serve(config: Config, log: Logger, roles: Roles): Promise<void> {
  // The signal handlers come first: /readyz answers once the API listens, before the other roles
  // have started, and a SIGTERM then must still drain and exit 0 (it waits for the start to finish).
  const starting = start(config, log, roles);
  onShutdown(log, async () => (await starting.catch(() => undefined))?.stop());
  await starting;
}

async function start(config: Config, log: Logger, roles: Roles): Promise<Running> {
  await preflight(config, roles);
  const opening = isEmbedded(config) ? openEmbeddedDatabase(config, log) : undefined;
  let embedded: EmbeddedDatabase | undefined;
  try {
    const [{ startRoles }, db] = await Promise.all([import('./roles.js'), opening]);
    embedded = db;
    return await startRoles(config, log, roles, { embedded });
  } catch (err) {
    // Before startRoles took it over (its deps stop it on a failure after that).
    if (!embedded) await (await opening?.catch(() => undefined))?.stop();
    throw err;
  }
}
