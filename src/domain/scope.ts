import { shortHash } from './ids.js';

/**
 * A user scope in a BullMQ id (job ids, deduplication ids): the user id itself when it is short
 * and plain, else a hash of it (user ids may hold ':' or anything else BullMQ ids should not).
 * '' is the scope of memories without a user.
 */
export function scopeToken(userKey: string): string {
  if (userKey === '') return 'nouser';
  return /^[A-Za-z0-9_.-]{1,64}$/.test(userKey) && !/^\d+$/.test(userKey) ? `u.${userKey}` : `h.${shortHash(userKey)}`;
}

/** A job id unique per enqueue (a completed job keeps its id and would swallow a later add). */
export function uniqueJobId(base: string): string {
  return `${base}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}
