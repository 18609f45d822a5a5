import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Deps } from '../deps.js';
import { withTenant } from '../db/pool.js';
import { briefingCandidates, getBriefing, saveBriefing } from '../db/sql/briefing.js';
import { briefingFileName, buildBriefing } from '../domain/briefing.js';
import { shortHash } from '../domain/ids.js';
import { MemloomError } from '../errors.js';

/**
 * Where a user's working memory is written for agents to load passively:
 * MEMLOOM_HOME/working-memory/<user>.md for the default tenant, …/working-memory/<tenant>/<user>.md
 * for others (tenant ids are [A-Za-z0-9_-], safe as a directory name).
 */
export function workingMemoryPath(home: string, tenantId: string, userKey: string): string {
  const dir = path.resolve(home, 'working-memory', ...(tenantId === 'default' ? [] : [tenantId]));
  return path.join(dir, briefingFileName(userKey, shortHash));
}

/**
 * Writes (or, for an empty digest, removes) the file. Written to a temporary name and renamed, so
 * an agent reading it never sees half a file; an unchanged digest is not rewritten.
 */
export async function writeWorkingMemoryFile(
  home: string,
  tenantId: string,
  userKey: string,
  markdown: string | null,
): Promise<'written' | 'unchanged' | 'removed'> {
  const file = workingMemoryPath(home, tenantId, userKey);
  if (markdown === null) {
    await rm(file, { force: true });
    return 'removed';
  }
  const current = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  if (current === markdown) return 'unchanged';
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now().toString(36)}.tmp`;
  await writeFile(tmp, markdown, 'utf8');
  await rename(tmp, file);
  return 'written';
}

/** GET /v1/working-memory: the stored digest of a user (no user: memories without one). */
export async function readWorkingMemory(deps: Deps, tenantId: string, userId: string | undefined): Promise<{ markdown: string; refreshed_at: Date }> {
  const found = await withTenant(deps.db, tenantId, (tx) => getBriefing(tx, userId ?? ''));
  if (!found) {
    throw new MemloomError('WORKING_MEMORY_EMPTY', 'No working memory for this user yet (nothing to say, or not refreshed yet).', {
      kind: 'not_found',
      details: { user_id: userId ?? null },
    });
  }
  return found;
}

/** Candidates per kind handed to the digest builder (it shows at most 20 in all). */
const PER_KIND = 50;

export interface RefreshedWorkingMemory {
  items: number;
  tokens: number;
  file: 'written' | 'unchanged' | 'removed';
}

/**
 * Rebuilds one user's working memory from the memories stored now (no LLM): stored in user_state
 * and written to MEMLOOM_HOME/working-memory. A scope with nothing to say has no digest: the
 * stored one is cleared and the file removed. Used by the briefing stage and, at once, by forget
 * and memory deletion, so a forgotten memory is never served from the digest afterwards.
 */
export async function refreshWorkingMemory(deps: Pick<Deps, 'db' | 'config'>, tenantId: string, userKey: string): Promise<RefreshedWorkingMemory> {
  const rows = await withTenant(deps.db, tenantId, (tx) => briefingCandidates(tx, userKey, PER_KIND));
  const digest = buildBriefing(
    rows.map((r) => ({ id: r.id, kind: r.kind, content: r.content, importance: r.importance, isCrystal: r.is_crystal, at: r.at, accessCount: r.access_count })),
    { userId: userKey, maxTokens: deps.config.BRIEFING_MAX_TOKENS, now: new Date() },
  );
  // The file first: once the API serves a digest, its file holds the same text.
  const file = await writeWorkingMemoryFile(deps.config.MEMLOOM_HOME, tenantId, userKey, digest?.markdown ?? null);
  await withTenant(deps.db, tenantId, (tx) => saveBriefing(tx, userKey, digest?.markdown ?? null, digest?.tokens ?? null));
  return { items: digest?.itemIds.length ?? 0, tokens: digest?.tokens ?? 0, file };
}
