import type { EventToExtract } from '../../src/db/sql/extract-events.js';
import { extractKeyOf } from '../../src/domain/routing.js';
import type { ExtractionResult } from '../../src/providers/llm/types.js';

/**
 * Small sessions batched (issue 37): agents that send one-off events make one session per event,
 * and a model call per session cost 1.69 calls per event. A pass of one key with a paid model
 * also takes the waiting events of the same user's small keys (claimSmallKeys) and asks about all
 * of them in one call; the answer is then split back per key, so every unit, entity and triplet
 * is written by its own key's pass, in its own session, with provenance to its own events only.
 */

/** Keys with at most this many waiting events ride along with another key's pass. */
export const SMALL_KEY_EVENTS = 3;

/** `events` (one user scope) by extraction key, in their order; the pass's own key first. */
export function byKey(events: EventToExtract[], ownKey: string): EventToExtract[][] {
  const groups = new Map<string, EventToExtract[]>([[ownKey, []]]);
  for (const e of events) {
    const k = extractKeyOf(e);
    groups.set(k, [...(groups.get(k) ?? []), e]);
  }
  return [...groups.values()].filter((g) => g.length > 0);
}

/**
 * One answer about the messages of several groups (numbered group after group, as toMessages
 * numbers their concatenation) as one answer per group: an item keeps the sources of the group
 * and is renumbered from 0; an item with sources in two groups goes to both, each with its own
 * (the second pass confirms the first's unit, as separate calls would have). One group: unchanged.
 */
export function answerPerGroup(result: ExtractionResult, sizes: number[]): ExtractionResult[] {
  if (sizes.length === 1) return [result];
  let offset = 0;
  return sizes.map((size) => {
    const start = offset;
    offset += size;
    const local = (sources: number[]) => sources.filter((i) => i >= start && i < start + size).map((i) => i - start);
    const pick = <T extends { sources: number[] }>(items: T[]): T[] =>
      items.flatMap((item) => {
        const sources = local(item.sources);
        return sources.length > 0 ? [{ ...item, sources }] : [];
      });
    return { memories: pick(result.memories), entities: pick(result.entities), triplets: pick(result.triplets) };
  });
}
