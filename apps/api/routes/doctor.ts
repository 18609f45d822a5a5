import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../src/deps.js';
import { runDoctor } from '../../../src/doctor.js';
import { parseInput } from '../../../src/memories/schema.js';
import { DoctorQuery } from '../../../src/ops/schema.js';

/** Where the doctor answers: an operator surface, beside Bull Board (apps/api/auth.ts). */
export const DOCTOR_PATH = '/admin/doctor';

/**
 * GET /admin/doctor — `memloom doctor`'s invariant checks (src/doctor.ts) over every tenant, or
 * `?tenant=`, through the running process: in embedded mode it owns the database, which no other
 * process may open. It reads every tenant, so once any key is configured it needs an admin key.
 * One read statement per tenant that scans whole tables: on the embedded database it holds the
 * one session that long (an operator's occasional check, not something to poll).
 */
export function doctorRoutes(app: FastifyInstance, deps: Deps): void {
  app.get(DOCTOR_PATH, async (req) => {
    const { tenant } = parseInput(DoctorQuery, req.query, 'query parameters');
    return runDoctor(deps, tenant ? [tenant] : undefined);
  });
}
