import { listTenants, withTenant } from './db/pool.js';
import { checkInvariants, type DoctorChecks, type DoctorReport } from './db/sql/doctor.js';
import type { Deps } from './deps.js';

export type { DoctorChecks, DoctorReport };

export interface DoctorResult {
  /** Per tenant: every invariant check with its violation count, plus the cache report. */
  tenants: Record<string, DoctorChecks & DoctorReport>;
  /** Sum of violations over all tenants, excluding the cache report. */
  violations: number;
}

/**
 * The invariant check behind `memloom doctor` (and run by the tests): no memory, entity, edge or
 * relation without provenance, no provenance without its object, no chunk without its event, no
 * duplicate entity name within a tenant and type, a coherent version chain. Cached vectors whose
 * text no row has are reported but are not violations (a cache, dropped or refilled at will).
 */
export async function runDoctor(deps: Pick<Deps, 'db'>, tenants?: string[]): Promise<DoctorResult> {
  const result: DoctorResult = { tenants: {}, violations: 0 };
  for (const tenant of tenants ?? (await listTenants(deps.db))) {
    const { checks, report } = await withTenant(deps.db, tenant, (tx) => checkInvariants(tx));
    result.tenants[tenant] = { ...checks, ...report };
    result.violations += Object.values(checks).reduce((a, b) => a + b, 0);
  }
  return result;
}
