// Apart from errors.ts, which imports the OpenAI SDK: the gate reads these codes in every process,
// and the SDK (~150 modules) loads only with an OpenAI provider (index.ts).
/** Stable codes a caller may match on. */
export const PROVIDER_CODES = {
  rateLimited: 'LLM_RATE_LIMITED',
  unavailable: 'PROVIDER_UNAVAILABLE',
  badRequest: 'PROVIDER_BAD_REQUEST',
  auth: 'PROVIDER_AUTH',
  badResponse: 'PROVIDER_BAD_RESPONSE',
  unknown: 'PROVIDER_ERROR',
} as const;
