import type { EventToExtract } from '../../src/db/sql/extract-events.js';
import type { Deps } from '../../src/deps.js';
import { embedDocuments } from '../../src/embeddings.js';
import type { Logger } from '../../src/logger.js';
import { answerPerGroup } from './coalesce.js';
import { prepare, toMessages, type Prepared } from './prepare.js';
import { adviseReconcile, type ModelDecision } from './reconcile.js';
import { extractInWindows } from './windows.js';

/** What the providers answered for one group (one key's events) of a pass. */
export interface Asked {
  prepared: Prepared;
  vectors: { entities: number[][]; memories: number[][] };
  scope: EventToExtract;
  decisions: Array<ModelDecision | undefined> | undefined;
}

/**
 * Everything a pass asks the providers, outside any transaction: the extraction, the embeddings
 * of its entities and memory texts, and the batched reconcile decision (paid LLM only). Each
 * answer is cached before it is used, so running this again for the same events pays nothing.
 */
export async function askProviders(deps: Deps, tenantId: string, events: EventToExtract[], known: Array<{ name: string; type: string }>, log: Logger) {
  return (await askProvidersGrouped(deps, tenantId, [events], known, log))[0] as Asked;
}

/**
 * The same for several groups of one user scope (keys batched into one pass, coalesce.ts): one
 * extraction over all their messages, one embedding request and one reconcile question for all
 * their units, each answer split back per group. One group asks exactly what askProviders always
 * asked (the cached answers of a pass stay valid).
 */
export async function askProvidersGrouped(
  deps: Deps,
  tenantId: string,
  groups: EventToExtract[][],
  known: Array<{ name: string; type: string }>,
  log: Logger,
): Promise<Asked[]> {
  const events = groups.flat();
  const input = { messages: toMessages(events), knownEntities: known.map((k, i) => ({ id: i + 1, name: k.name, type: k.type })) };
  const result = await extractInWindows(deps, tenantId, input);
  const answers = answerPerGroup(
    result,
    groups.map((g) => g.length),
  );
  const prepared = groups.map((g, k) => prepare(answers[k] as typeof result, g));
  const texts = prepared.flatMap((p) => [...p.entities.map((e) => e.name), ...p.memories.map((m) => m.content)]);
  const vectors = await embedDocuments(deps.db, tenantId, deps.providers.embeddings, texts);
  let at = 0;
  const split = prepared.map((p) => {
    const entities = vectors.slice(at, at + p.entities.length);
    const memories = vectors.slice(at + p.entities.length, at + p.entities.length + p.memories.length);
    at += p.entities.length + p.memories.length;
    return { entities, memories };
  });
  const scope = events[events.length - 1] as EventToExtract;
  const decisions = await adviseReconcile(
    deps,
    tenantId,
    prepared.flatMap((p) => p.memories),
    split.flatMap((v) => v.memories),
    scope,
    log,
  );
  let unit = 0;
  return prepared.map((p, k) => {
    const mine = decisions?.slice(unit, unit + p.memories.length);
    unit += p.memories.length;
    return { prepared: p, vectors: split[k] as Asked['vectors'], scope: (groups[k] as EventToExtract[]).at(-1) as EventToExtract, decisions: mine };
  });
}
