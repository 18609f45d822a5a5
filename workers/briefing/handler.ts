import { withTenant } from '../../src/db/pool.js';
import { briefingCandidates, saveBriefing } from '../../src/db/sql/briefing.js';
import { buildBriefing } from '../../src/domain/briefing.js';
import { writeWorkingMemoryFile } from '../../src/memories/working-memory.js';
import { defineStage } from '../../src/queue/stage.js';
import { BriefingInput, briefingKey } from './schema.js';

/** Candidates per kind handed to the digest builder (it shows at most 20 in all). */
const PER_KIND = 50;

/**
 * The working memory of one user (DESIGN §3 stage 7): a Markdown digest of recent decisions, open
 * plans, key procedures and the most important of the rest, under BRIEFING_MAX_TOKENS, stored in
 * user_state and written to MEMLOOM_HOME/working-memory/<user>.md. No LLM. A scope with nothing to
 * say has no digest: the stored one is cleared and the file removed. Replays rewrite the same text.
 */
export const briefing = defineStage({
  name: 'briefing',
  input: BriefingInput,
  key: briefingKey,
  concurrency: 2,
  async handle({ tenantId, userId }, { deps }) {
    const rows = await withTenant(deps.db, tenantId, (tx) => briefingCandidates(tx, userId, PER_KIND));
    const digest = buildBriefing(
      rows.map((r) => ({ id: r.id, kind: r.kind, content: r.content, importance: r.importance, isCrystal: r.is_crystal, at: r.at, accessCount: r.access_count })),
      { userId, maxTokens: deps.config.BRIEFING_MAX_TOKENS, now: new Date() },
    );
    // The file first: once the API serves a digest, its file holds the same text.
    const file = await writeWorkingMemoryFile(deps.config.MEMLOOM_HOME, tenantId, userId, digest?.markdown ?? null);
    await withTenant(deps.db, tenantId, (tx) => saveBriefing(tx, userId, digest?.markdown ?? null, digest?.tokens ?? null));
    return { items: digest?.itemIds.length ?? 0, tokens: digest?.tokens ?? 0, file };
  },
});
