import { z } from 'zod';
import { storableText } from '../input.js';

/** GET /v1/graph/entities — fuzzy search by name. */
export const EntitySearchQuery = z
  .object({
    q: storableText(200).optional().describe('part of an entity name'),
    limit: z.coerce.number().int().min(1).max(100).default(20),
  })
  .strict();

/** GET /v1/graph/entities/:id — how far the neighbourhood reaches. */
export const EntityQuery = z
  .object({
    depth: z.coerce.number().int().min(1).max(3, 'at most 3').default(1),
  })
  .strict();
