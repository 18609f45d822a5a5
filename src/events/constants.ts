/**
 * The events vocabulary and limits, in a module without imports so the TypeScript client (which
 * ships as compiled JavaScript without zod) shares them with the server.
 */
export const EVENT_TYPES = ['message', 'tool_call', 'tool_result', 'decision', 'note', 'document', 'feedback', 'session_end'] as const;
export const EVENT_ROLES = ['user', 'assistant', 'system', 'tool'] as const;
export const MAX_CONTENT_BYTES = 1024 * 1024;
export const MAX_BATCH = 1000;
