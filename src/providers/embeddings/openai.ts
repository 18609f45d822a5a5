/**
 * Embeddings from any OpenAI-compatible endpoint (OpenAI, DashScope, Ollama, vLLM, LM Studio) through
 * the `openai` SDK. The SDK never retries (`maxRetries: 0`): retries are counted once, by the queue.
 */
import OpenAI, { NotFoundError } from 'openai';
import type { EmbedRole, EmbeddingProvider, EmbeddingResult } from '../types.js';
import { badProviderResponse, translateProviderError } from '../errors.js';

export interface OpenAIEmbeddingsOptions {
  /** Undefined means api.openai.com. */
  baseURL?: string | undefined;
  apiKey: string;
  model: string;
  /** Sent as the request's `dimensions` (models that can shorten) and checked on every answer. */
  dimensions?: number | undefined;
  /** Texts per request (96). */
  batchSize?: number | undefined;
  /** Per request (30000). */
  timeoutMs?: number | undefined;
}

/** Native sizes of well-known models, so `dimensions` is known before the first call without sending it. */
const KNOWN_DIMENSIONS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

const PROBE_TEXT = 'memloom readiness probe';

export class OpenAIEmbeddings implements EmbeddingProvider {
  readonly model: string;
  readonly paid = true;
  readonly cached = true;
  private readonly client: OpenAI;
  private readonly requestDimensions: number | undefined;
  private readonly batchSize: number;
  /** Configured, known for the model, or learned from the first answer (0 until then). */
  private expectedDimensions: number;

  constructor(opts: OpenAIEmbeddingsOptions) {
    this.model = opts.model;
    this.requestDimensions = opts.dimensions;
    this.expectedDimensions = opts.dimensions ?? KNOWN_DIMENSIONS[opts.model] ?? 0;
    this.batchSize = Math.max(1, opts.batchSize ?? 96);
    this.client = new OpenAI({
      apiKey: opts.apiKey,
      ...(opts.baseURL === undefined ? {} : { baseURL: opts.baseURL }),
      timeout: opts.timeoutMs ?? 30_000,
      maxRetries: 0,
    });
  }

  /** 0 until known: for an unlisted model without configured dimensions, `ready()` learns it. */
  get dimensions(): number {
    return this.expectedDimensions;
  }

  // OpenAI-style models are symmetric, so the role does not change the request.
  async embed(texts: string[], _role: EmbedRole): Promise<EmbeddingResult> {
    const vectors: number[][] = [];
    let tokens: number | undefined;
    // Sequential batches: a burst of parallel requests would only trip the provider's rate limit.
    for (let start = 0; start < texts.length; start += this.batchSize) {
      const batch = texts.slice(start, start + this.batchSize);
      const answer = await this.embedBatch(batch);
      vectors.push(...answer.vectors);
      if (answer.tokens !== undefined) tokens = (tokens ?? 0) + answer.tokens;
    }
    return tokens === undefined ? { vectors } : { vectors, tokens };
  }

  async ready(): Promise<void> {
    try {
      await this.client.models.list();
    } catch (err) {
      // Some compatible servers serve embeddings but no /models: one tiny embed proves they answer.
      if (!(err instanceof NotFoundError)) throw translateProviderError(err, this.context());
      await this.embedBatch([PROBE_TEXT]);
      return;
    }
    if (this.expectedDimensions === 0) await this.embedBatch([PROBE_TEXT]);
  }

  async close(): Promise<void> {
    // The SDK holds no connection of its own; fetch's keep-alive pool needs no explicit close.
  }

  private async embedBatch(batch: string[]): Promise<EmbeddingResult> {
    let response: OpenAI.Embeddings.CreateEmbeddingResponse;
    try {
      response = await this.client.embeddings.create({
        model: this.model,
        input: batch,
        encoding_format: 'float',
        ...(this.requestDimensions === undefined ? {} : { dimensions: this.requestDimensions }),
      });
    } catch (err) {
      throw translateProviderError(err, this.context());
    }
    const vectors = this.checkVectors(response, batch.length);
    const tokens = response.usage?.prompt_tokens ?? response.usage?.total_tokens;
    return typeof tokens === 'number' ? { vectors, tokens } : { vectors };
  }

  /** The answer is untrusted input: right count, every index once, numbers of the expected length. */
  private checkVectors(response: unknown, expected: number): number[][] {
    const data = (response as { data?: unknown } | null)?.data;
    if (!Array.isArray(data) || data.length !== expected) {
      throw badProviderResponse('Provider returned the wrong number of embeddings', {
        ...this.context(),
        expected,
        received: Array.isArray(data) ? data.length : -1,
      });
    }
    const out = new Array<number[] | undefined>(expected);
    for (const [position, item] of data.entries()) {
      const { index, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
      // Order follows `index`; servers that omit it answer in input order.
      const at = typeof index === 'number' ? index : position;
      if (!Number.isInteger(at) || at < 0 || at >= expected || out[at] !== undefined) {
        throw badProviderResponse('Provider returned an embedding with a bad index', { ...this.context(), index: String(index) });
      }
      if (!Array.isArray(embedding) || !embedding.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw badProviderResponse('Provider returned an embedding that is not a list of numbers', this.context());
      }
      if (this.expectedDimensions === 0) this.expectedDimensions = embedding.length;
      if (embedding.length !== this.expectedDimensions) {
        throw badProviderResponse('Provider returned an embedding of the wrong dimension', {
          ...this.context(),
          expected: this.expectedDimensions,
          received: embedding.length,
        });
      }
      out[at] = embedding as number[];
    }
    return out as number[][];
  }

  private context() {
    return { provider: 'openai', model: this.model };
  }
}
