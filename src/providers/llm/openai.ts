/**
 * Extraction and reconcile decisions through any OpenAI-compatible chat endpoint (OpenAI,
 * DeepSeek, DashScope, Ollama, vLLM, LM Studio). The answer is untrusted: it is parsed with the zod
 * contract, and one invalid answer earns exactly one corrective retry. The SDK never retries on its
 * own (`maxRetries: 0`).
 */
import OpenAI, { APIError } from 'openai';
import { z } from 'zod';
import { type ErrorCode, MemloomError } from '../../errors.js';
import { badProviderResponse, translateProviderError } from '../errors.js';
import {
  buildExtractionMessages,
  buildReconcileMessages,
  buildRetryMessage,
  extractionJsonSchema,
  reconcileJsonSchema,
  reconcileMaxTokens,
  type PromptMessage,
} from './prompts.js';
import { ExtractionResult, RECONCILE_INVALID, ReconcileAnswer, type ExtractInput, type LlmProvider, type ReconcileInput, type TokenUsage } from './types.js';

export type StructuredOutput = 'json_schema' | 'json_object';

export interface OpenAILlmOptions {
  /** Undefined means api.openai.com. */
  baseURL?: string | undefined;
  apiKey: string;
  model: string;
  /** Per request (60000). */
  timeoutMs?: number | undefined;
  /** Cap on the extraction answer (2000). */
  maxOutputTokens?: number | undefined;
  /** `json_schema` (default) falls back to `json_object` by itself when the endpoint rejects it. */
  structuredOutput?: StructuredOutput | undefined;
  /** OpenAI's reasoning models only accept `max_completion_tokens`; most compatible servers want `max_tokens`. */
  maxTokensParam?: 'max_tokens' | 'max_completion_tokens' | undefined;
  /** Omitted from the request when undefined (some models reject any value but their default). */
  temperature?: number | undefined;
}

/** `details.raw` of EXTRACTION_INVALID keeps at most this much of the model's answer. */
export const RAW_KEEP_CHARS = 4000;

interface Completion {
  content: string;
  finishReason: string | null;
  usage: TokenUsage;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

export class OpenAILlm implements LlmProvider {
  readonly model: string;
  readonly paid = true;
  private readonly client: OpenAI;
  private readonly maxOutputTokens: number;
  private readonly maxTokensParam: 'max_tokens' | 'max_completion_tokens';
  private readonly temperature: number | undefined;
  private mode: StructuredOutput;

  constructor(opts: OpenAILlmOptions) {
    this.model = opts.model;
    this.maxOutputTokens = opts.maxOutputTokens ?? 2000;
    this.maxTokensParam = opts.maxTokensParam ?? 'max_tokens';
    this.temperature = opts.temperature;
    this.mode = opts.structuredOutput ?? 'json_schema';
    this.client = new OpenAI({
      apiKey: opts.apiKey,
      ...(opts.baseURL === undefined ? {} : { baseURL: opts.baseURL }),
      timeout: opts.timeoutMs ?? 60_000,
      maxRetries: 0,
    });
  }

  /** The response_format in use; becomes `json_object` after the endpoint rejected `json_schema`. */
  get structuredOutput(): StructuredOutput {
    return this.mode;
  }

  async extract(input: ExtractInput): Promise<{ result: ExtractionResult; usage: TokenUsage }> {
    const schema = { name: 'extraction', schema: extractionJsonSchema() };
    return this.answerJson(buildExtractionMessages(input), this.maxOutputTokens, schema, parseExtractionAnswer, {
      code: 'EXTRACTION_INVALID',
      what: 'extraction',
    });
  }

  /**
   * One batched reconcile decision for a pass. The shape is checked here (with the same one
   * corrective turn); whether each `unit` and `target` exists is the caller's check, and a wrong
   * one only sends that unit back to the offline rules.
   */
  async reconcile(input: ReconcileInput): Promise<{ result: ReconcileAnswer; usage: TokenUsage }> {
    const schema = { name: 'reconcile', schema: reconcileJsonSchema() };
    return this.answerJson(buildReconcileMessages(input), reconcileMaxTokens(input.units.length), schema, parseReconcileAnswer, {
      code: RECONCILE_INVALID,
      what: 'reconcile decision',
    });
  }

  /** A JSON answer parsed by `parse`; an invalid one earns one corrective turn, a second throws `invalid.code` (not retryable). */
  private async answerJson<T>(
    messages: PromptMessage[],
    maxTokens: number,
    schema: { name: string; schema: Record<string, unknown> },
    parse: (raw: string, finishReason: string | null) => Parsed<T>,
    invalid: { code: ErrorCode; what: string },
  ): Promise<{ result: T; usage: TokenUsage }> {
    const first = await this.complete(messages, maxTokens, schema);
    const firstParse = parse(first.content, first.finishReason);
    if (firstParse.ok) return { result: firstParse.value, usage: first.usage };

    const retry: PromptMessage[] = [
      ...messages,
      { role: 'assistant', content: truncate(first.content, RAW_KEEP_CHARS) || '(empty answer)' },
      buildRetryMessage(firstParse.error),
    ];
    const second = await this.complete(retry, maxTokens, schema);
    const usage = { input: first.usage.input + second.usage.input, output: first.usage.output + second.usage.output };
    const secondParse = parse(second.content, second.finishReason);
    if (secondParse.ok) return { result: secondParse.value, usage };

    throw new MemloomError(invalid.code, `The model answered an invalid ${invalid.what} twice`, {
      kind: 'upstream',
      retryable: false,
      details: {
        model: this.model,
        error: truncate(secondParse.error, 1000),
        raw: truncate(second.content, RAW_KEEP_CHARS),
        inputTokens: usage.input,
        outputTokens: usage.output,
      },
    });
  }

  async ready(): Promise<void> {
    try {
      await this.client.models.list();
    } catch (err) {
      throw translateProviderError(err, this.context());
    }
  }

  async close(): Promise<void> {
    // Nothing to release: the SDK keeps no connection of its own.
  }

  private async complete(messages: PromptMessage[], maxTokens: number, schema: { name: string; schema: Record<string, unknown> }): Promise<Completion> {
    const body = (mode: StructuredOutput): OpenAI.Chat.ChatCompletionCreateParamsNonStreaming => ({
      model: this.model,
      messages,
      ...(this.maxTokensParam === 'max_tokens' ? { max_tokens: maxTokens } : { max_completion_tokens: maxTokens }),
      ...(this.temperature === undefined ? {} : { temperature: this.temperature }),
      response_format:
        mode === 'json_schema' ? { type: 'json_schema', json_schema: { name: schema.name, strict: false, schema: schema.schema } } : { type: 'json_object' },
    });
    let response: OpenAI.Chat.ChatCompletion;
    try {
      response = await this.client.chat.completions.create(body(this.mode));
    } catch (err) {
      if (!(this.mode === 'json_schema' && isStructuredOutputUnsupported(err))) throw translateProviderError(err, this.context());
      // Remembered for the life of this provider: the endpoint will not learn json_schema mid-run.
      this.mode = 'json_object';
      try {
        response = await this.client.chat.completions.create(body('json_object'));
      } catch (retryErr) {
        throw translateProviderError(retryErr, this.context());
      }
    }
    const choice = (response as { choices?: OpenAI.Chat.ChatCompletion['choices'] }).choices?.[0];
    if (!choice?.message) throw badProviderResponse('Provider answered a chat completion without a choice', this.context());
    const content = choice.message.content ?? '';
    const usage = {
      input: response.usage?.prompt_tokens ?? estimateTokens(messages.map((m) => m.content).join('\n')),
      output: response.usage?.completion_tokens ?? estimateTokens(content),
    };
    return { content, finishReason: choice.finish_reason ?? null, usage };
  }

  private context() {
    return { provider: 'openai', model: this.model };
  }
}

/** A 400/422 that names response_format or json_schema: the endpoint cannot do structured output. */
export function isStructuredOutputUnsupported(err: unknown): boolean {
  if (!(err instanceof APIError) || (err.status !== 400 && err.status !== 422)) return false;
  return /response_format|json_schema/i.test(`${err.message} ${JSON.stringify(err.error ?? '')}`);
}

/** Parses an extraction answer; on failure returns the message fed back to the model. */
export function parseExtractionAnswer(raw: string, finishReason?: string | null): Parsed<ExtractionResult> {
  return parseJsonAnswer(ExtractionResult, raw, finishReason);
}

/** Parses a reconcile answer's shape; on failure returns the message fed back to the model. */
export function parseReconcileAnswer(raw: string, finishReason?: string | null): Parsed<ReconcileAnswer> {
  return parseJsonAnswer(ReconcileAnswer, raw, finishReason);
}

function parseJsonAnswer<T>(schema: z.ZodType<T>, raw: string, finishReason?: string | null): Parsed<T> {
  let json: unknown;
  try {
    json = JSON.parse(jsonText(raw));
  } catch (err) {
    if (finishReason === 'length') {
      return { ok: false, error: 'The answer was cut off at the output limit. Keep only the most important items and shorter texts.' };
    }
    return { ok: false, error: `The answer is not valid JSON (${err instanceof Error ? err.message : String(err)}).` };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, error: `The JSON does not match the required shape:\n${z.prettifyError(parsed.error)}` };
}

/** Models in json_object mode sometimes wrap the object in a code fence or a sentence. */
function jsonText(raw: string): string {
  const text = raw
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  if (text.startsWith('{')) return text;
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  return start >= 0 && end > start ? text.slice(start, end + 1) : text;
}

function truncate(s: string, max: number): string {
  return s.length <= max ? s : s.slice(0, max);
}

const estimateTokens = (text: string) => Math.ceil(text.length / 4);
