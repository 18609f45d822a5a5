import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Deps } from '../deps.js';
import { withTenant } from '../db/pool.js';
import { briefingCandidates, getBriefing, saveBriefing } from '../db/sql/briefing.js';
import { type Briefing, type BriefingItem, briefingFileName, buildBriefing } from '../domain/briefing.js';
import { shortHash } from '../domain/ids.js';
import { MemloomError } from '../errors.js';
import { isAssistantAcknowledgement, isChitChat } from '../providers/llm/heuristic/chatter.js';

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

/**
 * GET /v1/working-memory: the stored digest of a user (no user: memories without one). With a
 * `budgetTokens` below the stored digest's size, the digest is rebuilt from the current memories
 * under that budget (the same builder and priority: whole lines, lowest priority dropped first).
 */
export async function readWorkingMemory(
  deps: Pick<Deps, 'db' | 'config'>,
  tenantId: string,
  userId: string | undefined,
  budgetTokens?: number,
): Promise<{ markdown: string; refreshed_at: Date; tokens: number }> {
  const userKey = userId ?? '';
  const found = await withTenant(deps.db, tenantId, (tx) => getBriefing(tx, userKey));
  if (!found) {
    throw new MemloomError('WORKING_MEMORY_EMPTY', 'No working memory for this user yet (nothing to say, or not refreshed yet).', {
      kind: 'not_found',
      details: { user_id: userId ?? null },
    });
  }
  if (budgetTokens === undefined || budgetTokens >= found.tokens) return found;
  const digest = await digestOf(deps, tenantId, userKey, budgetTokens);
  if (!digest) {
    throw new MemloomError('WORKING_MEMORY_BUDGET_TOO_SMALL', 'Not one line of the working memory fits in budget_tokens.', {
      kind: 'input',
      details: { budget_tokens: budgetTokens },
    });
  }
  return { markdown: digest.markdown, refreshed_at: found.refreshed_at, tokens: digest.tokens };
}

/** Candidates per kind handed to the digest builder (it shows at most 20 in all). */
const PER_KIND = 50;

export interface RefreshedWorkingMemory {
  items: number;
  tokens: number;
  file: 'written' | 'unchanged' | 'removed';
}

/** Small talk and the assistant's acknowledgements are no part of what an agent should know. */
const worthKeeping = (content: string) => !isChitChat(content) && !isAssistantAcknowledgement(content);

async function digestOf(deps: Pick<Deps, 'db'>, tenantId: string, userKey: string, maxTokens: number): Promise<Briefing | null> {
  const rows = await withTenant(deps.db, tenantId, (tx) => briefingCandidates(tx, userKey, PER_KIND));
  const items: BriefingItem[] = rows
    .filter((r) => worthKeeping(r.content))
    .map((r) => ({
      id: r.id,
      kind: r.kind,
      content: r.content,
      importance: r.importance,
      isCrystal: r.is_crystal,
      eventTime: r.event_time,
      occurredAt: r.occurred_at,
      accessCount: r.access_count,
      replaced: r.replaced_id && r.replaced_content !== null ? { id: r.replaced_id, content: r.replaced_content, at: r.replaced_at ?? r.occurred_at } : null,
    }));
  return buildBriefing(items, { userId: userKey, maxTokens, now: new Date() });
}

/**
 * Rebuilds one user's working memory from the memories stored now (no LLM): stored in user_state
 * and written to MEMLOOM_HOME/working-memory. A scope with nothing to say has no digest: the
 * stored one is cleared and the file removed. Used by the briefing stage and, at once, by
 * correction, forget and memory deletion, so a changed memory is never served in its old form.
 */
export async function refreshWorkingMemory(deps: Pick<Deps, 'db' | 'config'>, tenantId: string, userKey: string): Promise<RefreshedWorkingMemory> {
  const digest = await digestOf(deps, tenantId, userKey, deps.config.BRIEFING_MAX_TOKENS);
  // The file first: once the API serves a digest, its file holds the same text.
  const file = await writeWorkingMemoryFile(deps.config.MEMLOOM_HOME, tenantId, userKey, digest?.markdown ?? null);
  await withTenant(deps.db, tenantId, (tx) => saveBriefing(tx, userKey, digest?.markdown ?? null, digest?.tokens ?? null));
  return { items: digest?.itemIds.length ?? 0, tokens: digest?.tokens ?? 0, file };
}
