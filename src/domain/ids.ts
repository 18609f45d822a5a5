import { createHash } from 'node:crypto';

/** Short stable hash of a list of ids (order-insensitive), for job keys of batch jobs. */
export function idsHash(ids: readonly string[]): string {
  return createHash('sha256')
    .update([...ids].sort().join(','))
    .digest('hex')
    .slice(0, 16);
}

export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
