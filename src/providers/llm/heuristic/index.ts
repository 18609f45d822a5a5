/**
 * The offline LLM provider: rule-based extraction with compromise (English) and jieba (Chinese).
 * No network, no weights, no cost; deterministic for a given input.
 */
import type { ExtractInput, ExtractionResult, LlmProvider } from '../types.js';
import { makeLemmatizer } from './analyse.js';
import { ChineseTagger } from './chinese.js';
import { extractFromMessages } from './extract.js';

export { heuristicTriage } from './triage.js';

export class HeuristicLlm implements LlmProvider {
  readonly model = 'heuristic';
  readonly paid = false;
  private readonly tools = { chinese: new ChineseTagger(), lemma: makeLemmatizer() };

  async extract(input: ExtractInput): Promise<{ result: ExtractionResult }> {
    return { result: extractFromMessages(input, this.tools) };
  }

  async ready(): Promise<void> {}

  async close(): Promise<void> {}
}
