/**
 * Paid providers wrapped so that every call passes the gate. createDeps wraps the providers once;
 * nothing else holds the unwrapped ones (test/gate-wiring.test.ts checks the source tree for
 * provider calls and constructions outside the allowed files). Local providers (`paid === false`)
 * are returned unwrapped: they cost nothing and are not gated.
 */
import { countTokens } from '../domain/tokens.js';
import { EmbeddingsAround } from './embeddings/around.js';
import { CoalescingEmbeddings } from './embeddings/coalescing.js';
import type { Gate } from './gate.js';
import type { Providers } from './index.js';
import { buildExtractionMessages, buildReconcileMessages, reconcileMaxTokens, type PromptMessage } from './llm/prompts.js';
import type { ExtractInput, ExtractionResult, LlmProvider, ReconcileAnswer, ReconcileInput, TokenUsage } from './llm/types.js';
import type { EmbeddingProvider, EmbeddingResult, EmbedRole } from './types.js';

/** Per-message overhead of the chat format (role markers), as OpenAI counts it. */
const TOKENS_PER_MESSAGE = 4;

const promptTokens = (messages: PromptMessage[]) => messages.reduce((sum, m) => sum + countTokens(m.content) + TOKENS_PER_MESSAGE, 0);
const usageOf = (r: { usage?: TokenUsage }) => (r.usage ? { tokensIn: r.usage.input, tokensOut: r.usage.output } : undefined);

export interface GateProviderOptions {
  /** Texts per embeddings request: each request passes the gate on its own. */
  embeddingsBatchSize: number;
  /** How long a paid embedding request waits for other jobs' texts (0: no coalescing). */
  embeddingsCoalesceMs: number;
  /** Output cap of an extraction request, reserved until the usage is known. */
  llmMaxOutputTokens: number;
  embeddingsProvider: string;
  llmProvider: string;
}

export class GatedEmbeddings extends EmbeddingsAround {
  readonly #gate: Gate;
  readonly #batchSize: number;
  readonly #provider: string;

  constructor(inner: EmbeddingProvider, gate: Gate, opts: { batchSize: number; provider: string }) {
    super(inner);
    this.#gate = gate;
    this.#batchSize = Math.max(1, opts.batchSize);
    this.#provider = opts.provider;
  }

  /** One gated request per batch, so requests-per-minute counts what the provider sees. */
  async embed(texts: string[], role: EmbedRole): Promise<EmbeddingResult> {
    const vectors: number[][] = [];
    let tokens = 0;
    for (let start = 0; start < texts.length; start += this.#batchSize) {
      const batch = texts.slice(start, start + this.#batchSize);
      const estimate = batch.reduce((sum, t) => sum + countTokens(t), 0);
      const answer = await this.#gate.run(
        { kind: 'embeddings', provider: this.#provider, model: this.inner.model, task: 'embed', tokensIn: estimate, maxTokensOut: 0 },
        () => this.inner.embed(batch, role),
        (r) => (r.tokens === undefined ? undefined : { tokensIn: r.tokens, tokensOut: 0 }),
      );
      vectors.push(...answer.vectors);
      tokens += answer.tokens ?? estimate;
    }
    return { vectors, tokens };
  }
}

export class GatedLlm implements LlmProvider {
  readonly #inner: LlmProvider;
  readonly #gate: Gate;
  readonly #maxOutputTokens: number;
  readonly #provider: string;

  constructor(inner: LlmProvider, gate: Gate, opts: { maxOutputTokens: number; provider: string }) {
    this.#inner = inner;
    this.#gate = gate;
    this.#maxOutputTokens = opts.maxOutputTokens;
    this.#provider = opts.provider;
  }

  get model(): string {
    return this.#inner.model;
  }
  get paid(): boolean {
    return this.#inner.paid;
  }

  /**
   * One extraction is one gated call. The provider may make a corrective second request for an
   * invalid answer; its tokens arrive in the usage and are corrected after the call.
   */
  extract(input: ExtractInput): Promise<{ result: ExtractionResult; usage?: TokenUsage }> {
    const tokensIn = promptTokens(buildExtractionMessages(input));
    return this.#gate.run(
      { kind: 'llm', provider: this.#provider, model: this.#inner.model, task: 'extract', tokensIn, maxTokensOut: this.#maxOutputTokens },
      () => this.#inner.extract(input),
      usageOf,
    );
  }

  /**
   * One batched reconcile decision is one gated call of task `reconcile` (its own rows in
   * token_usage; TOKEN_BUDGET_PER_TASK caps each call like an extraction). Present only when the
   * wrapped provider can decide; otherwise the offline rules do.
   */
  get reconcile(): ((input: ReconcileInput) => Promise<{ result: ReconcileAnswer; usage?: TokenUsage }>) | undefined {
    const ask = this.#inner.reconcile?.bind(this.#inner);
    if (!ask) return undefined;
    return (input) =>
      this.#gate.run(
        {
          kind: 'llm',
          provider: this.#provider,
          model: this.#inner.model,
          task: 'reconcile',
          tokensIn: promptTokens(buildReconcileMessages(input)),
          maxTokensOut: reconcileMaxTokens(input.units.length),
        },
        () => ask(input),
        usageOf,
      );
  }

  ready(): Promise<void> {
    return this.#inner.ready();
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

/**
 * The providers deps carries: paid ones behind the gate, local ones as they are. Paid embeddings
 * also coalesce the texts of concurrent jobs into shared requests, in front of the gate.
 */
export function gateProviders(providers: Providers, gate: Gate, opts: GateProviderOptions): Providers {
  let embeddings = providers.embeddings;
  if (embeddings.paid) {
    embeddings = new GatedEmbeddings(embeddings, gate, { batchSize: opts.embeddingsBatchSize, provider: opts.embeddingsProvider });
    if (opts.embeddingsCoalesceMs > 0)
      embeddings = new CoalescingEmbeddings(embeddings, { maxBatch: opts.embeddingsBatchSize, windowMs: opts.embeddingsCoalesceMs });
  }
  const llm = providers.llm.paid ? new GatedLlm(providers.llm, gate, { maxOutputTokens: opts.llmMaxOutputTokens, provider: opts.llmProvider }) : providers.llm;
  return { embeddings, llm, close: () => providers.close() };
}
