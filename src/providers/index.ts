import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { EmbeddingProvider } from './types.js';
import type { LlmProvider } from './llm/types.js';
import { HashingEmbedder } from './embeddings/hashing.js';
import { UseLiteEmbeddings } from './embeddings/use-lite.js';
import { HeuristicLlm } from './llm/heuristic/index.js';

/**
 * The raw providers. createDeps puts the paid ones behind the shared gate (gated.ts) before anything
 * else sees them; nothing else may construct providers (test/gate-wiring.test.ts).
 */
export interface Providers {
  embeddings: EmbeddingProvider;
  llm: LlmProvider;
  close(): Promise<void>;
}

/** The default local embedder; README "Embeddings" explains the choice with measured figures. */
export const DEFAULT_LOCAL_EMBEDDER = 'hashing';

// The OpenAI providers load with their SDK (~150 modules) only when configured: a start with the
// local ones does not wait for it.
async function createEmbeddings(config: Config): Promise<EmbeddingProvider> {
  if (config.EMBEDDINGS_PROVIDER === 'openai') {
    const { OpenAIEmbeddings } = await import('./embeddings/openai.js');
    return new OpenAIEmbeddings({
      baseURL: config.EMBEDDINGS_BASE_URL ?? 'https://api.openai.com/v1',
      apiKey: config.EMBEDDINGS_API_KEY ?? 'none',
      model: config.EMBEDDINGS_MODEL ?? 'text-embedding-3-small',
      dimensions: config.EMBEDDINGS_DIMENSIONS ?? 1536,
      batchSize: config.EMBEDDINGS_BATCH_SIZE,
    });
  }
  const model = config.EMBEDDINGS_MODEL ?? DEFAULT_LOCAL_EMBEDDER;
  if (model === 'use-lite' || model === 'local-use-lite') return new UseLiteEmbeddings();
  return new HashingEmbedder({ dimensions: config.EMBEDDINGS_DIMENSIONS ?? 384 });
}

/** Output cap of one extraction request; the gate reserves it until the provider's usage is known. */
export const LLM_MAX_OUTPUT_TOKENS = 2000;

async function createLlm(config: Config): Promise<LlmProvider> {
  if (config.LLM_PROVIDER === 'openai') {
    const { OpenAILlm } = await import('./llm/openai.js');
    return new OpenAILlm({
      baseURL: config.LLM_BASE_URL ?? 'https://api.openai.com/v1',
      apiKey: config.LLM_API_KEY ?? 'none',
      model: config.LLM_MODEL ?? 'gpt-4o-mini',
      timeoutMs: config.LLM_TIMEOUT_MS,
      maxOutputTokens: LLM_MAX_OUTPUT_TOKENS,
    });
  }
  return new HeuristicLlm({ thread: true });
}

export async function createProviders(config: Config, log: Logger): Promise<Providers> {
  const [embeddings, llm] = await Promise.all([createEmbeddings(config), createLlm(config)]);
  log.debug({ embeddings: embeddings.model, dims: embeddings.dimensions, llm: llm.model }, 'providers configured');
  return {
    embeddings,
    llm,
    async close() {
      await Promise.allSettled([embeddings.close(), llm.close()]);
    },
  };
}
