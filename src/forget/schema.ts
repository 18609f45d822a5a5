import { z } from 'zod';
import { identifier } from '../input.js';

const scopeValue = identifier(200);

/**
 * What to forget in the caller's tenant: exactly one of a stored event id (the uuid POST
 * /v1/events answered), a chunk id (what recall returns in `chunks` mode: the event it was cut
 * from is forgotten), a session, a user or a dataset. A session is identified within its user:
 * `{session_id, user_id}` is that user's session only; `{session_id}` alone is accepted while the
 * session id belongs to one user scope (or to events without a user) and refused with
 * SESSION_AMBIGUOUS when several users have a session of that id (docs/api.md, "Forget").
 */
export const ForgetScope = z
  .object({
    event_id: z.uuid().optional(),
    chunk_id: z.uuid().optional(),
    session_id: scopeValue.optional(),
    user_id: scopeValue.optional(),
    dataset: scopeValue.optional(),
  })
  .strict()
  .refine(
    (s) => {
      const given = Object.values(s).filter((v) => v !== undefined).length;
      return given === 1 || (given === 2 && s.session_id !== undefined && s.user_id !== undefined);
    },
    { message: 'exactly one of event_id, chunk_id, session_id, user_id, dataset (user_id may accompany session_id)' },
  );
export type ForgetScope = z.infer<typeof ForgetScope>;

/** What a forget removed (rows, by object type) and what it changed on objects that survive. */
export interface ForgetCounts {
  events: number;
  chunks: number;
  memories: number;
  entities: number;
  edges: number;
  relations: number;
  provenance: number;
  /** Vectors stored on the removed rows (chunks, memories, entities). */
  vectors: number;
  /** embedding_cache entries whose text no remaining row has. */
  cached_vectors: number;
  /** llm_cache entries purged (see purgeLlmCache). */
  llm_cache: number;
  /** Recall log entries of a forgotten user (user scope only). */
  recalls: number;
  /**
   * `feedback` events removed because they quoted what the forgotten events gave a recall
   * (already counted in `events`; see feedbackEventsQuoting).
   */
  feedback_events: number;
}

export interface ForgetResult {
  nothing_to_forget: boolean;
  removed: ForgetCounts;
  updated: {
    /** Older versions made current again because their successor was removed. */
    memories_reactivated: number;
    /** Shared entities whose description only the forgotten events had given. */
    entity_descriptions_cleared: number;
  };
  /** Waiting or delayed pipeline jobs that referred only to forgotten events. */
  jobs_removed: number;
  /**
   * User scopes whose working memory was refreshed at once (API answer and file) because the
   * forget removed memories or events of theirs; '' is the scope of memories without a user.
   */
  working_memory_refreshed: string[];
}

export function zeroCounts(): ForgetCounts {
  return {
    events: 0,
    chunks: 0,
    memories: 0,
    entities: 0,
    edges: 0,
    relations: 0,
    provenance: 0,
    vectors: 0,
    cached_vectors: 0,
    llm_cache: 0,
    recalls: 0,
    feedback_events: 0,
  };
}
