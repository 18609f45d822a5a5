import { isEmbedded, type Config } from '../../../src/config.js';
import { createDeps } from '../../../src/deps.js';
import { runDoctor, type DoctorResult } from '../../../src/doctor.js';
import { answeredCode, MemloomError } from '../../../src/errors.js';
import type { Logger } from '../../../src/logger.js';
import { flagString, type ParsedArgs } from '../args.js';
import { embeddedOwnerUrl } from '../remote.js';

export interface DoctorIo {
  stdout: NodeJS.WritableStream;
}

/**
 * `memloom doctor [--tenant T] [--url URL] [--api-key KEY]`: checks memory invariants per tenant
 * and prints `{"<tenant>": {"<check>": count, …}, …}` on stdout; exits 1 when any check (the
 * cache report `embedding_cache_unmatched` excepted) counts a violation.
 *
 * Through a running memloom's API (GET /admin/doctor) when `--url` is given, or in embedded mode
 * when a memloom runs on this MEMLOOM_HOME: the API its data-directory lock names
 * (src/db/data-dir-lock.ts), since its process owns the database files and they are never opened
 * twice. The route reads every tenant, so it takes an admin key: `--api-key`, else the first of
 * this configuration's MEMLOOM_ADMIN_KEYS, else $MEMLOOM_API_KEY. Otherwise (server mode, or no
 * embedded memloom running) it opens the database directly.
 */
export async function doctorCommand(config: Config, log: Logger, args: ParsedArgs, io: DoctorIo = { stdout: process.stdout }): Promise<void> {
  const tenant = flagString(args, 'tenant');
  const url = flagString(args, 'url') ?? (isEmbedded(config) ? await embeddedOwnerUrl(config) : undefined);
  let result: DoctorResult;
  if (url !== undefined) {
    const apiKey = flagString(args, 'api-key') ?? config.MEMLOOM_ADMIN_KEYS[0] ?? process.env.MEMLOOM_API_KEY;
    result = await viaApi(url, tenant, apiKey);
  } else {
    const deps = await createDeps(config, log);
    try {
      result = await runDoctor(deps, tenant ? [tenant] : undefined);
    } finally {
      await deps.close();
    }
  }
  io.stdout.write(`${JSON.stringify(result.tenants, null, 2)}\n`);
  if (result.violations > 0) process.exitCode = 1;
}

/** GETs /admin/doctor of a running memloom. */
async function viaApi(url: string, tenant: string | undefined, apiKey: string | undefined): Promise<DoctorResult> {
  const target = `${url.replace(/\/+$/, '')}/admin/doctor${tenant ? `?tenant=${encodeURIComponent(tenant)}` : ''}`;
  let res: Response;
  try {
    // The checks scan whole tables: minutes on a large database are possible.
    res = await fetch(target, { headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {}, signal: AbortSignal.timeout(600_000) });
  } catch (err) {
    throw new MemloomError('API_UNREACHABLE', `memloom API at ${url} did not answer: ${(err as Error).message}`, { kind: 'unavailable', cause: err });
  }
  const body = (await res.json().catch(() => ({}))) as DoctorResult & { error?: { code?: string; message?: string } };
  if (!res.ok) {
    const hint = res.status === 401 || res.status === 403 ? ' (the doctor needs a key of MEMLOOM_ADMIN_KEYS: --api-key)' : '';
    throw new MemloomError(
      body.error?.code ? answeredCode(body.error.code) : 'DOCTOR_FAILED',
      `doctor failed (${res.status}): ${body.error?.message ?? res.statusText}${hint}`,
      {
        kind: res.status < 500 ? 'input' : 'upstream',
      },
    );
  }
  return body;
}
