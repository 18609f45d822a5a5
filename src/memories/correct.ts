import type { Deps } from '../deps.js';
import { withTenant } from '../db/pool.js';
import { insertCorrectedVersion, lockMemory, type MemoryHead } from '../db/sql/correct.js';
import { finishRun, startRun } from '../db/sql/runs.js';
import { slotOf } from '../domain/slots.js';
import { slotKeys, slotKeyText } from '../domain/slot-keys.js';
import { contentHash, ftsDocument, ftsQuery, normalizeText } from '../domain/text.js';
import type { MemoryKind } from '../domain/vocabulary.js';
import { embedDocuments } from '../embeddings.js';
import { MemloomError } from '../errors.js';
import { MemoryId, type CorrectInput } from './schema.js';
import { refreshWorkingMemory } from './working-memory.js';

export interface Correction {
  id: string;
  previous_id: string;
  version: number;
  kind: string;
  importance: number;
  content: string;
  status: 'active';
}

export function memoryNotFound(id: string): MemloomError {
  return new MemloomError('MEMORY_NOT_FOUND', 'No memory with this id.', { kind: 'not_found', details: { id } });
}

function assertCorrectable(head: MemoryHead | undefined, id: string): MemoryHead {
  if (!head) throw memoryNotFound(id);
  if (head.status !== 'active') {
    throw new MemloomError('MEMORY_NOT_ACTIVE', `Only the active version can be corrected; this one is ${head.status}.`, {
      kind: 'conflict',
      details: { id, status: head.status },
    });
  }
  return head;
}

/**
 * PATCH /v1/memories/:id — inserts the corrected version and supersedes the old one (never an
 * in-place overwrite), keeping provenance. The new text is embedded before the transaction
 * (provider calls never run inside one); the transaction re-checks the memory under a row lock,
 * so two concurrent corrections of one version give one success and one 409. After the commit the
 * user's working memory is rebuilt at once (as after forget), so it never serves the old text.
 */
export async function correctMemory(deps: Deps, tenantId: string, id: string, input: CorrectInput): Promise<Correction> {
  if (!MemoryId.safeParse(id).success) throw memoryNotFound(id);
  assertCorrectable(await withTenant(deps.db, tenantId, (tx) => lockMemory(tx, id)), id);
  const embedder = deps.providers.embeddings;
  const [vector] = await embedDocuments(deps.db, tenantId, embedder, [input.content]);
  const corrected = await withTenant(deps.db, tenantId, async (tx) => {
    const head = assertCorrectable(await lockMemory(tx, id), id);
    const runId = await startRun(tx, { stage: 'correct', jobId: undefined, provider: deps.config.EMBEDDINGS_PROVIDER, model: embedder.model });
    const kind = input.kind ?? head.kind;
    const importance = input.importance ?? head.importance;
    const slot = slotOf(kind as MemoryKind, input.content);
    const result = await insertCorrectedVersion(
      tx,
      id,
      {
        kind,
        content: input.content,
        content_hash: contentHash(normalizeText(input.content)),
        fts_doc: ftsDocument(`${input.content} ${slotKeyText(slot)}`),
        vector: vector as number[],
        importance,
        slot,
        slot_keys: slot ? slotKeys(slot) : null,
        drop: ftsQuery((head.slot?.value ?? []).join(' ')),
      },
      { model: embedder.model, dims: embedder.dimensions },
      runId,
    );
    if ('conflictId' in result) {
      throw new MemloomError('MEMORY_CONFLICT', 'Another active memory of this scope already says this.', {
        kind: 'conflict',
        details: { id, existing_id: result.conflictId },
      });
    }
    await finishRun(tx, runId, { corrected: 1 });
    const correction: Correction = { id: result.id, previous_id: id, version: head.version + 1, kind, importance, content: input.content, status: 'active' };
    return { correction, userKey: head.user_id ?? '' };
  });
  await refreshWorkingMemory(deps, tenantId, corrected.userKey);
  return corrected.correction;
}
