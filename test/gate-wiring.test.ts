import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CoalescingEmbeddings } from '../src/providers/embeddings/coalescing.js';
import { GatedEmbeddings, GatedLlm } from '../src/providers/gated.js';
import { startTestMemloom, type TestMemloom } from './support/memloom.js';
import { ROOT } from './support/process.js';

/**
 * No code path may call a paid provider without passing the gate. The gate wraps the providers
 * that createDeps hands out, so the rules are: (1) only the provider implementations talk to the
 * SDK, (2) only src/providers and createDeps construct providers, (3) provider methods are called
 * only by the gate's wrappers and by the reviewed call sites below, which get their providers from
 * `deps` (gated), and (4) deps' paid providers are the gated wrappers.
 */

const SCANNED = ['src', 'workers', 'apps'];

/** Raw SDK calls: the only places a request leaves for a provider. */
const SDK_CALL = /\.chat\.completions\b|\bembeddings\.create\b|\.responses\.create\b|\.completions\.create\b/;
const SDK_FILES = new Set(['src/providers/llm/openai.ts', 'src/providers/embeddings/openai.ts']);

/** Building a provider (gated only when it comes from createDeps). */
const CONSTRUCTION = /\bnew\s+(OpenAI|OpenAIEmbeddings|OpenAILlm)\s*\(|\bcreate(Embeddings|Llm|Providers)\s*\(/;
const CONSTRUCTION_FILES = new Set(['src/providers/index.ts', 'src/providers/llm/openai.ts', 'src/providers/embeddings/openai.ts', 'src/deps.ts']);

/** Provider method calls. */
const PROVIDER_CALL = /\.(embed|extract|triage|reconcile)\s*\(/;
/**
 * Reviewed call sites: each calls a provider it got from `deps.providers`, which createDeps built
 * behind the gate. A new call site must be reviewed and added here (or call one of these).
 */
const GATED_CALL_SITES = new Set([
  'src/embeddings.ts', // embedDocuments(deps.db, tenant, deps.providers.embeddings, …)
  'src/llm.ts', // extractWithCache / reconcileWithCache(deps, …) → deps.providers.llm.extract / .reconcile
  'src/recall/context.ts', // deps.providers.embeddings.embed for the query, in a gate scope
]);
const PROVIDER_DIR = 'src/providers/';

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name === 'node_modules' || rel === 'src/generated') continue;
      out.push(...(await sourceFiles(rel)));
    } else if (/\.(ts|mts|js|mjs)$/.test(entry.name) && !/\.test\.ts$/.test(entry.name)) out.push(rel);
  }
  return out;
}

/** Code lines without comments (a provider call named in a comment is not a call). */
function codeLines(text: string): Array<{ line: number; code: string }> {
  const out: Array<{ line: number; code: string }> = [];
  let inBlock = false;
  text.split('\n').forEach((raw, i) => {
    let code = raw;
    if (inBlock) {
      const end = code.indexOf('*/');
      if (end < 0) return;
      code = code.slice(end + 2);
      inBlock = false;
    }
    code = code.replace(/\/\*.*?\*\//g, '');
    const open = code.indexOf('/*');
    if (open >= 0) {
      code = code.slice(0, open);
      inBlock = true;
    }
    code = code.replace(/(^|[^:'"`])\/\/.*$/, '$1');
    if (code.trim()) out.push({ line: i + 1, code });
  });
  return out;
}

async function violations(rule: RegExp, allowed: (file: string) => boolean): Promise<string[]> {
  const found: string[] = [];
  for (const dir of SCANNED) {
    for (const file of await sourceFiles(dir)) {
      if (allowed(file)) continue;
      const text = await readFile(path.join(ROOT, file), 'utf8');
      for (const { line, code } of codeLines(text)) if (rule.test(code)) found.push(`${file}:${line}: ${code.trim()}`);
    }
  }
  return found;
}

describe('every paid provider call passes the gate', () => {
  it('only the provider implementations call the SDK', async () => {
    expect(await violations(SDK_CALL, (f) => SDK_FILES.has(f))).toEqual([]);
  });

  it('only src/providers and createDeps build providers', async () => {
    expect(await violations(CONSTRUCTION, (f) => CONSTRUCTION_FILES.has(f))).toEqual([]);
  });

  it('provider methods are called only by the gate wrappers, provider internals and the reviewed call sites', async () => {
    expect(await violations(PROVIDER_CALL, (f) => f.startsWith(PROVIDER_DIR) || GATED_CALL_SITES.has(f))).toEqual([]);
  });

  it('the scan sees the call sites it allows (the patterns still match real code)', async () => {
    for (const file of GATED_CALL_SITES) {
      const text = await readFile(path.join(ROOT, file), 'utf8');
      expect(
        codeLines(text).some(({ code }) => PROVIDER_CALL.test(code)),
        file,
      ).toBe(true);
    }
    const sdk = await readFile(path.join(ROOT, 'src/providers/llm/openai.ts'), 'utf8');
    expect(codeLines(sdk).some(({ code }) => SDK_CALL.test(code))).toBe(true);
  });

  describe('deps', () => {
    let m: TestMemloom | undefined;
    afterAll(async () => m?.close());

    it('hands out paid providers only behind the gate', async () => {
      m = await startTestMemloom({
        roles: { api: false },
        env: {
          EMBEDDINGS_PROVIDER: 'openai',
          EMBEDDINGS_BASE_URL: 'http://127.0.0.1:9/v1',
          EMBEDDINGS_DIMENSIONS: '64',
          LLM_PROVIDER: 'openai',
          LLM_BASE_URL: 'http://127.0.0.1:9/v1',
        },
      });
      // Paid embeddings coalesce concurrent jobs' texts in front of the gate.
      const embeddings = m.deps.providers.embeddings;
      expect(embeddings).toBeInstanceOf(CoalescingEmbeddings);
      expect((embeddings as CoalescingEmbeddings).inner).toBeInstanceOf(GatedEmbeddings);
      expect(m.deps.providers.llm).toBeInstanceOf(GatedLlm);
      expect(m.deps.providers.embeddings.paid && m.deps.providers.llm.paid).toBe(true);
    }, 180_000);
  });
});
