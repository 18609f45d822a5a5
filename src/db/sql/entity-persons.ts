import { fullNameOf, isFullName, isNamePart } from '../../domain/entity-names.js';
import type { Queryable } from '../pool.js';
import type { EntityInput, GraphScope } from './entities.js';

/**
 * Person resolution against one scope's stored entities (a user's graph), for resolveEntities:
 * a full name and a first name or surname of it are one entity, whichever arrives first, when the
 * word belongs to exactly one full name of the scope (src/domain/entity-names.ts fullNameOf).
 * One side must be known as a person (typed so by the extractor, or by a role it holds). Both fill
 * `ids[i]` for inputs still unresolved; both are idempotent (a replay finds the entity by name).
 * Rows are updated by id; a rename never takes a name the scope already has.
 */

/** Types a name may carry before it is known to be a person's. */
const NAME_TYPES = new Set(['person', 'other', 'concept']);
const SCOPE = `coalesce(user_id, '') = $1 AND dataset = $2`;
const FIRST_OR_LAST = `(split_part(normalized_name, ' ', 1) = ANY($3::text[]) OR regexp_replace(normalized_name, '^.* ', '') = ANY($3::text[]))`;

const mayBeNamePart = (inp: EntityInput) => NAME_TYPES.has(inp.type) && isNamePart(inp.name);
const mayBeFullName = (inp: EntityInput) => NAME_TYPES.has(inp.type) && isFullName(inp.name);
const endWords = (normalized: string) => {
  const w = normalized.split(' ');
  return [w[0] as string, w[w.length - 1] as string];
};

/** "Priya" once "Priya Raman" is stored: the full name's entity, which is then a person. */
export async function joinNameParts(tx: Queryable, scope: GraphScope, inputs: EntityInput[], ids: Array<string | undefined>): Promise<void> {
  const singles = inputs.filter((inp, i) => ids[i] === undefined && mayBeNamePart(inp)).map((inp) => inp.normalized);
  if (singles.length === 0) return;
  const { rows } = await tx.query<{ id: string; name: string; type: string }>(
    `SELECT id, name, type FROM entities WHERE type IN ('person', 'other', 'concept') AND ${SCOPE} AND normalized_name LIKE '% %' AND ${FIRST_OR_LAST}`,
    [scope.userId ?? '', scope.dataset, singles],
  );
  const full = rows.filter((p) => isFullName(p.name));
  const persons: string[] = [];
  inputs.forEach((inp, i) => {
    if (ids[i] !== undefined || !mayBeNamePart(inp)) return;
    const name = fullNameOf(inp.name, [...new Set(full.map((p) => p.name))]);
    const found = name === undefined ? undefined : full.find((p) => p.name === name);
    // One side must be known as a person: "Friday" is no part of a "Friday Night" concept.
    if (!found || (found.type !== 'person' && inp.type !== 'person')) return;
    ids[i] = found.id;
    if (found.type !== 'person') persons.push(found.id);
  });
  // The full name and a part of it, seen apart: the entity names a person.
  if (persons.length > 0)
    await tx.query(
      `UPDATE entities e SET type = 'person', updated_at = now() WHERE e.id = ANY($1::uuid[]) AND NOT EXISTS (
         SELECT 1 FROM entities o WHERE o.tenant_id = e.tenant_id AND o.dataset = e.dataset AND coalesce(o.user_id, '') = coalesce(e.user_id, '')
           AND o.normalized_name = e.normalized_name AND o.type = 'person')`,
      [[...new Set(persons)]],
    );
}

/**
 * "Priya Raman" once "Priya" is stored: the single name's entity takes the full name and becomes a
 * person, unless another full name of the scope (stored or in this pass) shares the word, or two
 * stored single names (first name and surname) would both claim it (then the first name is taken).
 */
export async function completeNameParts(tx: Queryable, scope: GraphScope, inputs: EntityInput[], ids: Array<string | undefined>): Promise<void> {
  const todo = inputs.map((inp, i) => ({ inp, i })).filter(({ inp, i }) => ids[i] === undefined && mayBeFullName(inp));
  if (todo.length === 0) return;
  const words = [...new Set(todo.flatMap(({ inp }) => endWords(inp.normalized)))];
  const { rows } = await tx.query<{ id: string; name: string; normalized_name: string; type: string }>(
    `SELECT id, name, normalized_name, type FROM entities WHERE ${SCOPE} AND (normalized_name = ANY($3::text[]) OR (normalized_name LIKE '% %' AND ${FIRST_OR_LAST}))`,
    [scope.userId ?? '', scope.dataset, words],
  );
  const fullNames = [...rows.filter((r) => r.normalized_name.includes(' ') && isFullName(r.name)).map((r) => r.name), ...todo.map(({ inp }) => inp.name)];
  const taken = new Set<string>();
  for (const { inp, i } of todo) {
    for (const word of endWords(inp.normalized)) {
      const single = rows.find((r) => r.normalized_name === word && NAME_TYPES.has(r.type) && isNamePart(r.name));
      if (!single || taken.has(single.id) || (single.type !== 'person' && inp.type !== 'person')) continue;
      if (fullNameOf(word, fullNames)?.toLowerCase() !== inp.name.toLowerCase()) continue;
      const { rowCount } = await tx.query(
        `UPDATE entities e SET name = $2, normalized_name = $3, type = 'person', fts = fts || to_tsvector('simple', $4), updated_at = now()
         WHERE e.id = $1 AND NOT EXISTS (SELECT 1 FROM entities o WHERE o.tenant_id = e.tenant_id AND o.dataset = e.dataset
           AND coalesce(o.user_id, '') = coalesce(e.user_id, '') AND o.normalized_name = $3 AND o.type = 'person')`,
        [single.id, inp.name, inp.normalized, inp.ftsDoc],
      );
      if ((rowCount ?? 0) === 0) continue;
      taken.add(single.id);
      ids[i] = single.id;
      break;
    }
  }
}
