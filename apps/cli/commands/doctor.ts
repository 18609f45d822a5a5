import { isEmbedded, type Config } from '../../../src/config.js';
import { createDeps } from '../../../src/deps.js';
import { runDoctor } from '../../../src/doctor.js';
import { MemloomError } from '../../../src/errors.js';
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
 * It opens the database directly (it looks at every tenant). In embedded mode the running
 * memloom owns the database file, so the command refuses while one answers on HOST:PORT.
 */
export async function doctorCommand(config: Config, log: Logger, args: ParsedArgs, io: DoctorIo = { stdout: process.stdout }): Promise<void> {
  if (isEmbedded(config) && (await apiAnswers(config))) {
    throw new MemloomError(
      'DATABASE_IN_USE',
      `a memloom is running on ${config.HOST}:${config.PORT} and owns the embedded database in ${config.MEMLOOM_HOME}; stop it first, or run doctor against DATABASE_URL.`,
      { kind: 'conflict' },
    );
  }
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

async function apiAnswers(config: Config): Promise<boolean> {
  const host = config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST === '::' ? '::1' : config.HOST;
  try {
    const res = await fetch(`http://${host.includes(':') ? `[${host}]` : host}:${config.PORT}/healthz`, { signal: AbortSignal.timeout(2000) });
    return res.ok;
  } catch {
    return false; // nothing listens: the database is free to open
  }
}
