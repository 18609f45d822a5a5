import type { Deps } from '../deps.js';
import { withTenant } from '../db/pool.js';
import { getRecall, insertFeedback, lowerRankWeight, resultContents, setFeedbackEvent, type RecallLogRow } from '../db/sql/feedback.js';
import { insertEvents } from '../db/sql/insert-events.js';
import { MemloomError } from '../errors.js';
import { toEventRow } from '../events/ingest.js';
import { intake } from '../events/intake.js';
import { EventInput } from '../events/schema.js';
import type { FeedbackInput } from './schema.js';

/** Scores at or above this improve memory with the recall's question and answer. */
export const POSITIVE_SCORE = 4;
/** Scores at or below this lower the ranking signal of what the recall returned. */
export const NEGATIVE_SCORE = 2;
export const RANK_WEIGHT_FACTOR = 0.8;
export const RANK_WEIGHT_FLOOR = 0.3;
/** A feedback event carries the question and answer, not a whole corpus. */
const MAX_EVENT_CHARS = 64 * 1024;

export interface FeedbackResult {
  feedback_id: string;
  /** True when this recall already had feedback: nothing was added. */
  duplicate: boolean;
  /** The `feedback` event that goes through the pipeline (positive scores). */
  event_id: string | null;
  /** Memories whose rank weight was lowered (negative scores). */
  lowered: number;
}

/** The idempotency key of a recall's feedback event: improving twice stores one event. */
export const feedbackEventKey = (recallId: string) => `feedback-${recallId}`;

/**
 * The event a positive feedback becomes: the question, then the answer's lines (and the user's
 * text), in the recall's scope. The answer lines are the returned memories' own words, so
 * extraction reconciles them with those memories (CONFIRM: provenance, no duplicate) and reuses
 * their entities by name. Undefined when there is nothing to learn (no answer, no text).
 */
export function feedbackEvent(recall: RecallLogRow, answers: string[], input: FeedbackInput): EventInput | undefined {
  const lines = [...answers.map((a) => a.trim()).filter((a) => a !== ''), ...(input.text ? [input.text] : [])];
  if (lines.length === 0) return undefined;
  let content = `Q: ${recall.query.trim()}`;
  for (const l of lines) {
    if (content.length + l.length + 1 > MAX_EVENT_CHARS) break;
    content += `\n${l}`;
  }
  const param = (k: string) => (typeof recall.params[k] === 'string' ? (recall.params[k] as string) : undefined);
  const parsed = EventInput.safeParse({
    id: feedbackEventKey(recall.id),
    type: 'feedback',
    role: 'user',
    content,
    ...(recall.user_id ? { user_id: recall.user_id } : {}),
    ...(param('session_id') ? { session_id: param('session_id') } : {}),
    ...(param('agent_id') ? { agent_id: param('agent_id') } : {}),
    ...(param('dataset') ? { dataset: param('dataset') } : {}),
    metadata: { recall_id: recall.id, score: input.score },
  });
  if (!parsed.success)
    throw new MemloomError('FEEDBACK_EVENT_INVALID', 'The feedback event could not be built.', { kind: 'internal', retryable: false, cause: parsed.error });
  return parsed.data;
}

/**
 * POST /v1/feedback. One transaction stores the feedback (unique per recall), and with it the
 * `feedback` event (positive) or the lowered rank weights (negative), so a crash can never leave
 * feedback without its effect. The event goes through the normal pipeline after the commit;
 * feedback on the same recall again changes nothing.
 */
export async function giveFeedback(deps: Deps, tenantId: string, input: FeedbackInput): Promise<FeedbackResult> {
  const outcome = await intake(deps, tenantId, () =>
    withTenant(deps.db, tenantId, async (tx) => {
      const recall = await getRecall(tx, input.recall_id);
      if (!recall) throw new MemloomError('RECALL_NOT_FOUND', 'No recall with this recall_id.', { kind: 'not_found', details: { recall_id: input.recall_id } });
      const fb = await insertFeedback(tx, { recallId: recall.id, score: input.score, text: input.text ?? null });
      if (!fb.inserted) return { result: { feedback_id: fb.id, duplicate: true, event_id: fb.event_id, lowered: 0 }, newIds: [] };
      let eventId: string | null = null;
      let newEventId: string | undefined;
      let lowered = 0;
      if (input.score >= POSITIVE_SCORE) {
        const event = feedbackEvent(recall, await resultContents(tx, recall.result_ids), input);
        if (event) {
          const [stored] = await insertEvents(tx, [toEventRow(event, event.id as string, 'feedback', undefined)]);
          if (stored) {
            eventId = stored.id;
            if (stored.inserted) newEventId = stored.id;
            await setFeedbackEvent(tx, fb.id, stored.id);
          }
        }
      } else if (input.score <= NEGATIVE_SCORE) {
        lowered = await lowerRankWeight(tx, recall.result_ids, RANK_WEIGHT_FACTOR, RANK_WEIGHT_FLOOR);
      }
      return { result: { feedback_id: fb.id, duplicate: false, event_id: eventId, lowered }, newIds: newEventId ? [newEventId] : [] };
    }),
  );
  return outcome.result;
}
