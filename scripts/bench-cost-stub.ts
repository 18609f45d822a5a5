/**
 * The provider stub of scripts/bench-cost.ts in a process of its own, so that its CPU is not
 * counted as memloom's: the test suite's OpenAI-compatible stub (test/support/provider-stub.ts)
 * with a per-message extractor and a reconcile model that adds every asked unit. Prints its base
 * URL as the first line of stdout. Run: tsx scripts/bench-cost-stub.ts <latencyMs>
 */
import { RECONCILE_SYSTEM_PROMPT } from '../src/providers/llm/prompts.js';
import { perMessageExtractor } from '../test/support/pipeline.js';
import { startProviderStub } from '../test/support/provider-stub.js';

const stub = await startProviderStub({ dimensions: 384, latencyMs: Number(process.argv[2] ?? '0') });
stub.onChat(perMessageExtractor());
stub.onChat((body) => {
  if (!(body.messages[0]?.content ?? '').startsWith(RECONCILE_SYSTEM_PROMPT)) return undefined;
  const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
  const units = [...user.matchAll(/^\[(\d+)\] \([^)]*\) .* — candidates: /gm)].map((x) => Number(x[1]));
  return JSON.stringify({ decisions: units.map((unit) => ({ unit, action: 'ADD', target: null })) });
});
// The recorded calls would grow without bound over a run; the benchmark counts calls itself.
setInterval(() => stub.calls.splice(0), 1000).unref();
process.stdout.write(`${stub.url}\n`);
process.on('SIGTERM', () => void stub.close().then(() => process.exit(0)));
