import type { Config } from '../../src/config.js';
import type { Deps } from '../../src/deps.js';
import { chunkText, SECTION_CHARS, sections } from '../../src/domain/chunking.js';
import { countTokens } from '../../src/domain/tokens.js';
import { yieldToEventLoop } from '../../src/event-loop.js';
import { extractWithCache } from '../../src/llm.js';
import { LLM_MAX_OUTPUT_TOKENS } from '../../src/providers/index.js';
import type { ExtractInput, ExtractionResult, ExtractMessage } from '../../src/providers/llm/types.js';

/**
 * Message tokens of one extraction call at most. A pass's messages go to a paid model in one
 * call; a 1 MiB event is ~250,000 tokens, over TOKEN_BUDGET_PER_TASK (the job failed for good,
 * BUDGET_TASK_EXCEEDED) and over most models' context. Answers stay good well inside a context.
 */
export const MAX_WINDOW_TOKENS = 24_000;
/** Around the messages: the instructions (~800 tokens) and up to 100 known entity names. */
const PROMPT_OVERHEAD_TOKENS = 2_500;
/** A message line's prefix: `[index] (occurredAt) speaker: `. */
const LINE_TOKENS = 30;

/**
 * Message tokens per call that every gate check admits: the per-task budget, the rate window and
 * the hour and day budgets each take the call whole (estimate = prompt + answer cap), with a fifth
 * to spare for the estimate's error.
 */
export function windowTokens(config: Pick<Config, 'TOKEN_BUDGET_PER_TASK' | 'LLM_TPM' | 'TOKEN_BUDGET_PER_HOUR' | 'TOKEN_BUDGET_PER_DAY'>): number {
  const limit = Math.min(config.TOKEN_BUDGET_PER_TASK, config.LLM_TPM, config.TOKEN_BUDGET_PER_HOUR, config.TOKEN_BUDGET_PER_DAY);
  return Math.max(200, Math.min(MAX_WINDOW_TOKENS, Math.floor(limit * 0.8) - LLM_MAX_OUTPUT_TOKENS - PROMPT_OVERHEAD_TOKENS));
}

/**
 * The pass's messages in windows of at most `maxTokens`, one model call each, in order. A message
 * too long for a window is cut, at paragraph, line or word boundaries, into parts that keep its
 * index and time (the answer's `sources` still name it). Messages that fit together stay one
 * window, the pass's own message list: its extraction (and its cached answer) are as before.
 * Counts tokens section by section, giving the thread back between (a 1 MiB text is ~1 s of it).
 */
export async function extractWindows(messages: ExtractMessage[], maxTokens: number): Promise<ExtractMessage[][]> {
  const room = Math.max(8, maxTokens - LINE_TOKENS);
  const units: Array<{ message: ExtractMessage; tokens: number }> = [];
  for (const message of messages) {
    if (message.content.length <= SECTION_CHARS) {
      const tokens = countTokens(message.content);
      if (tokens <= room) {
        units.push({ message, tokens: tokens + LINE_TOKENS });
        continue;
      }
    }
    for (const { start, end } of sections(message.content)) {
      const part = message.content.slice(start, end);
      if (part.trim() === '') continue;
      const tokens = countTokens(part);
      if (tokens <= room) units.push({ message: { ...message, content: part }, tokens: tokens + LINE_TOKENS });
      else
        for (const c of chunkText(part, { maxTokens: room, overlapTokens: 0 }))
          units.push({ message: { ...message, content: c.text }, tokens: c.tokens + LINE_TOKENS });
      await yieldToEventLoop();
    }
  }
  if (units.length === messages.length && units.reduce((n, u) => n + u.tokens, 0) <= maxTokens) return [messages];
  const windows: ExtractMessage[][] = [];
  let current: ExtractMessage[] = [];
  let used = 0;
  for (const u of units) {
    if (current.length > 0 && used + u.tokens > maxTokens) {
      windows.push(current);
      current = [];
      used = 0;
    }
    current.push(u.message);
    used += u.tokens;
  }
  if (current.length > 0) windows.push(current);
  return windows;
}

/**
 * A pass's extraction: one call, or with a paid model one per window its budgets admit, each
 * answer cached before it is used (a replay pays for none). The offline extractor takes any
 * length in one call (it leaves over-long segments to the chunks).
 */
export async function extractInWindows(deps: Deps, tenantId: string, input: ExtractInput): Promise<ExtractionResult> {
  if (!deps.providers.llm.paid) return extractWithCache(deps, tenantId, input);
  const windows = await extractWindows(input.messages, windowTokens(deps.config));
  const answers: ExtractionResult[] = [];
  for (const messages of windows) answers.push(await extractWithCache(deps, tenantId, { ...input, messages }));
  return answers.length === 1 ? (answers[0] as ExtractionResult) : mergeAnswers(answers);
}

/** The answers of a pass's windows as one: prepare() merges entities and memories named twice. */
export function mergeAnswers(answers: ExtractionResult[]): ExtractionResult {
  return {
    memories: answers.flatMap((a) => a.memories),
    entities: answers.flatMap((a) => a.entities),
    triplets: answers.flatMap((a) => a.triplets),
  };
}
