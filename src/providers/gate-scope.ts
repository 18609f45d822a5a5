import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Who a paid provider call is made for. The job runner opens a scope around every job and the
 * recall path around its query embedding, so the gate can charge the right tenant's budget and
 * write token_usage rows with the job id, without threading these through every function.
 */
export interface GateScope {
  tenantId?: string | undefined;
  jobId?: string | undefined;
  /** Queue of the job, or e.g. `recall` for an interactive call. */
  queue?: string | undefined;
}

const storage = new AsyncLocalStorage<GateScope>();

export function runInGateScope<T>(scope: GateScope, fn: () => Promise<T>): Promise<T> {
  return storage.run(scope, fn);
}

export function currentGateScope(): GateScope | undefined {
  return storage.getStore();
}
