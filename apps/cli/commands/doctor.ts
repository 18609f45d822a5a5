import { isEmbedded, type Config } from '../../../src/config.js';
import { createDeps } from '../../../src/deps.js';
import { runDoctor } from '../../../src/doctor.js';
import { inUseError, liveOwner } from '../../../src/db/data-dir-lock.js';
import type { Logger } from '../../../src/logger.js';
import { flagString, type ParsedArgs } from '../args.js';

export interface DoctorIo {
  stdout: NodeJS.WritableStream;
}

/**
 * `memloom doctor [--tenant T]`: checks memory invariants per tenant and prints
 * `{"<tenant>": {"<check>": count, …}, …}` on stdout; exits 1 when any check (the cache report
 * `embedding_cache_unmatched` excepted) counts a violation.
 *
 * It opens the database directly (it looks at every tenant). In embedded mode a running memloom
 * owns the database files, so the command refuses while the data directory's lock names a live
 * process (src/db/data-dir-lock.ts), whatever HOST and PORT say.
 */
export async function doctorCommand(config: Config, log: Logger, args: ParsedArgs, io: DoctorIo = { stdout: process.stdout }): Promise<void> {
  const owner = isEmbedded(config) ? await liveOwner(config.MEMLOOM_HOME) : undefined;
  if (owner) throw inUseError(config.MEMLOOM_HOME, owner);
  const deps = await createDeps(config, log);
  try {
    const tenant = flagString(args, 'tenant');
    const result = await runDoctor(deps, tenant ? [tenant] : undefined);
    io.stdout.write(`${JSON.stringify(result.tenants, null, 2)}\n`);
    if (result.violations > 0) process.exitCode = 1;
  } finally {
    await deps.close();
  }
}
