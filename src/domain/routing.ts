/** Event types whose content becomes memory units through (session) extraction. */
const EXTRACTED_TYPES = new Set(['message', 'decision', 'note', 'document', 'feedback', 'tool_result']);

export function needsExtraction(type: string): boolean {
  return EXTRACTED_TYPES.has(type);
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
