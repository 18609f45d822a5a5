import type { MemoryRow } from '../db/sql/recall.js';
import { slotLabel } from '../domain/slot-keys.js';
import type { Candidate } from './rank.js';

/** A memory as a recall result: what it says, whether it still holds, when it held, and its sources. */
export function memoryResult(m: MemoryRow): Candidate['result'] {
  return {
    id: m.id,
    type: 'memory',
    content: m.content,
    kind: m.kind,
    status: m.status,
    current: m.status === 'active',
    ...(m.superseded_by ? { superseded_by: m.superseded_by } : {}),
    valid_from: m.valid_from.toISOString(),
    valid_to: m.superseded_at ? m.superseded_at.toISOString() : null,
    slot: m.slot ? slotLabel(m.slot) : null,
    occurred_at: m.occurred_at.toISOString(),
    event_time: m.event_time ? m.event_time.toISOString() : null,
    time_precision: m.time_precision,
    recorded_at: m.created_at.toISOString(),
    source: { event_ids: m.event_ids, session_id: m.session_id, dataset: m.dataset },
  };
}
