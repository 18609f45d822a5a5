import { z } from 'zod';
import { identifier, storableText } from '../input.js';

/** The part of the tenant's graph to read, as memories are scoped; a field left out spans the tenant. */
const scope = {
  user_id: identifier(200).optional().describe("the user whose graph to read (one user's graph never shows another's)"),
  dataset: identifier(200).optional().describe('the dataset whose graph to read'),
};

/** GET /v1/graph/entities — fuzzy search by name. */
export const EntitySearchQuery = z
  .object({
    q: storableText(200).optional().describe('part of an entity name'),
    limit: z.coerce.number().int().min(1).max(100).default(20),
    ...scope,
  })
  .strict();

/** GET /v1/graph/entities/:id — how far the neighbourhood reaches. */
export const EntityQuery = z
  .object({
    depth: z.coerce.number().int().min(1).max(3, 'at most 3').default(1),
    ...scope,
  })
  .strict();

/** GET /v1/schema — counts of one part of the tenant's graph and memories. */
export const SchemaQuery = z.object(scope).strict();
