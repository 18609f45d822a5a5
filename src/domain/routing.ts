/** Event types whose content becomes memory units through (session) extraction. */
const EXTRACTED_TYPES = new Set(['message', 'decision', 'note', 'document', 'feedback', 'tool_result']);

export function needsExtraction(type: string): boolean {
  return EXTRACTED_TYPES.has(type);
}

/**
 * Event types that mark that something happened (a session ended) rather than say something worth
 * remembering: stored as metadata of the session, skipped at triage, so they become no chunk, no
 * vector and no memory ("Session ended (exit)." was recalled as evidence before).
 */
const MARKER_TYPES = new Set(['session_end']);

export function isMarker(type: string): boolean {
  return MARKER_TYPES.has(type);
}

/**
 * Events extracted together: a session's events; loose events of a user (no session) together;
 * a document on its own.
 */
export function extractKeyOf(e: { id: string; type: string; session_id: string | null; user_id: string | null }): string {
  if (e.type === 'document' && !e.session_id) return `doc:${e.id}`;
  if (e.session_id) return `session:${e.session_id}`;
  return `user:${e.user_id ?? ''}`;
}
