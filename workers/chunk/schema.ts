import { z } from 'zod';
import { idsHash } from '../../src/domain/ids.js';
import type { NextJob } from '../../src/queue/stage.js';

export const ChunkInput = z.object({
  tenantId: z.string().min(1),
  eventIds: z.array(z.uuid()).min(1).max(1000),
});
export type ChunkInput = z.infer<typeof ChunkInput>;

export const chunkKey = (i: ChunkInput): string => `chunk-${i.tenantId}-${idsHash(i.eventIds)}`;

export function chunkJob(tenantId: string, eventIds: string[]): NextJob {
  return { stage: 'chunk', input: { tenantId, eventIds } };
}

/** Token bounds of a chunk (o200k tokens); short conversational events stay one chunk. */
export const CHUNK_MAX_TOKENS = 256;
export const CHUNK_OVERLAP_TOKENS = 32;
