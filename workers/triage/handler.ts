import { withTenant } from '../../src/db/pool.js';
import { claimReceived, findSessionDuplicates, idsWithStatus, saveTriage, type ReceivedEvent, type TriageOutcome } from '../../src/db/sql/triage.js';
import { extractKeyOf, needsExtraction } from '../../src/domain/routing.js';
import { heuristicTriage } from '../../src/providers/llm/heuristic/index.js';
import { defineStage } from '../../src/queue/stage.js';
import { chunkJob } from '../chunk/schema.js';
import { TriageInput, triageKey } from './schema.js';

/**
 * The cheap gate: acknowledgements, empty tool chatter and exact duplicates within a session are
 * skipped with a reason; documents go to chunking like everything kept; conversational events are
 * marked for session extraction. Heuristic, no provider call.
 */
export const triage = defineStage({
  name: 'triage',
  input: TriageInput,
  key: triageKey,
  async handle(input, { deps, log }) {
    const ids = input.eventIds;
    const { outcomes, waiting } = await withTenant(deps.db, input.tenantId, async (tx) => {
      const claimed = await claimReceived(tx, ids);
      let result: TriageOutcome[] = [];
      if (claimed.length > 0) {
        const duplicates = await findSessionDuplicates(
          tx,
          claimed.map((e) => e.id),
        );
        result = claimed.map((e) => verdict(e, duplicates.has(e.id)));
        await saveTriage(tx, result);
      }
      // Read in the same transaction: one round trip less than a separate read in next(). Also
      // covers this job's events triaged by an earlier attempt that committed but did not enqueue.
      return { outcomes: result, waiting: await idsWithStatus(tx, ids, 'triaged') };
    });
    if (outcomes.length > 0) log.debug({ triaged: outcomes.length, skipped: outcomes.filter((o) => !o.keep).length }, 'triaged events');
    return { triagedIds: outcomes.filter((o) => o.keep).map((o) => o.id), skippedIds: outcomes.filter((o) => !o.keep).map((o) => o.id), waiting };
  },
  // From stored state: this job's events still waiting for chunking (what it triaged now, or before).
  next({ tenantId }, result) {
    return result.waiting.length > 0 ? [chunkJob(tenantId, result.waiting)] : [];
  },
});

function verdict(e: ReceivedEvent, duplicate: boolean): TriageOutcome {
  const v = heuristicTriage(e.content, e.type);
  const keep = v.keep && !duplicate;
  const reason = duplicate ? 'duplicate' : v.keep ? null : (v.reason ?? 'noise');
  const priority = e.importance !== null ? Math.max(1, 11 - e.importance) : v.priority;
  return { id: e.id, keep, reason, priority, extract: needsExtraction(e.type), extract_key: extractKeyOf(e) };
}
