import { listTenants, withTenant } from '../../src/db/pool.js';
import { briefingScopes } from '../../src/db/sql/briefing.js';
import type { Deps } from '../../src/deps.js';
import { enqueueAll } from '../../src/queue/enqueue.js';
import { BriefingInput, briefingKey, briefingNow } from '../briefing/schema.js';

/**
 * The scheduled `briefing` task: a refresh of every user's working memory (scopes with active
 * memories, and scopes with a stored digest that may have to go), every BRIEFING_INTERVAL_MS.
 * Refreshes after new memories come sooner, debounced, from the extract stage.
 */
export async function enqueueBriefings(deps: Deps): Promise<{ enqueued: number }> {
  let enqueued = 0;
  for (const tenantId of await listTenants(deps.db)) {
    const users = await withTenant(deps.db, tenantId, (tx) => briefingScopes(tx));
    await enqueueAll(
      deps.queues,
      users.map((u) => ({ ...briefingNow(tenantId, u), jobId: briefingKey(BriefingInput.parse({ tenantId, userId: u })) })),
    );
    enqueued += users.length;
  }
  return { enqueued };
}
