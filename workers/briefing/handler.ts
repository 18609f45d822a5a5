import { refreshWorkingMemory } from '../../src/memories/working-memory.js';
import { defineStage } from '../../src/queue/stage.js';
import { BriefingInput, briefingKey } from './schema.js';

/**
 * The working memory of one user (stage 7, workers/README.md): a Markdown digest of recent decisions, open
 * plans, key procedures and the most important of the rest, under BRIEFING_MAX_TOKENS, stored in
 * user_state and written to MEMLOOM_HOME/working-memory/<user>.md (src/memories/working-memory.ts,
 * shared with forget, which refreshes it at once). No LLM. Replays rewrite the same text.
 */
export const briefing = defineStage({
  name: 'briefing',
  input: BriefingInput,
  key: briefingKey,
  concurrency: 2,
  async handle({ tenantId, userId }, { deps }) {
    return refreshWorkingMemory(deps, tenantId, userId);
  },
});
