import { describe, expect, it } from 'vitest';
import { ConfigError, checkProviderKeys, loadConfig } from '../src/config.js';

describe('configuration', () => {
  it('has the documented defaults with an empty environment', () => {
    const c = loadConfig({});
    expect(c.HOST).toBe('127.0.0.1');
    expect(c.PORT).toBe(8787);
    expect(c.MEMLOOM_HOME).toBe('./.memloom');
    expect(c.EVENTS_DIR).toBe('./events');
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.REDIS_URL).toBeUndefined();
    expect(c.EMBEDDINGS_PROVIDER).toBe('local');
    expect(c.LLM_PROVIDER).toBe('heuristic');
    expect(c.EXTRACT_DEBOUNCE_MS).toBe(30_000);
    expect(c.BRIEFING_DEBOUNCE_MS).toBe(3_000);
    expect(c.BRIEFING_MAX_WAIT_MS).toBe(30_000);
    expect(c.TENANT_TASKS_PER_HOUR).toBe(15);
    expect(c.MEMLOOM_API_KEYS.size).toBe(0);
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('names the variable and what it accepts, never the value', () => {
    const attempt = () => loadConfig({ PORT: 'eighty', LLM_PROVIDER: 'gpt', DATABASE_URL: 'mysql://secret-password@db' });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (err) {
      const lines = (err as Error).message.split('\n');
      expect(lines).toHaveLength(3);
      expect(lines.some((l) => l.startsWith('invalid PORT: expected an integer'))).toBe(true);
      expect(lines.some((l) => l.startsWith('invalid LLM_PROVIDER: expected one of heuristic, openai'))).toBe(true);
      expect(lines.some((l) => l.startsWith('invalid DATABASE_URL: expected a URL starting with postgres:'))).toBe(true);
      expect((err as Error).message).not.toContain('secret-password');
    }
  });

  it('parses API keys into key -> tenant and rejects malformed pairs', () => {
    const c = loadConfig({ MEMLOOM_API_KEYS: 'k1:acme, k2:globex' });
    expect([...c.MEMLOOM_API_KEYS]).toEqual([
      ['k1', 'acme'],
      ['k2', 'globex'],
    ]);
    expect(() => loadConfig({ MEMLOOM_API_KEYS: 'justakey' })).toThrow(/invalid MEMLOOM_API_KEYS/);
    expect(() => loadConfig({ MEMLOOM_API_KEYS: 'k:bad tenant' })).toThrow(/invalid MEMLOOM_API_KEYS/);
  });

  it('takes per-kind default TTLs of at most 1000 years (an expiry must stay a time the database holds)', () => {
    expect(loadConfig({ TTL_DEFAULTS: 'episode:P180D,plan:P999Y' }).TTL_DEFAULTS.get('plan')).toBe('P999Y');
    expect(() => loadConfig({ TTL_DEFAULTS: 'episode:P300000Y' })).toThrow(/invalid TTL_DEFAULTS/);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ REDIS_URL: '', PORT: '' }).PORT).toBe(8787);
  });

  it('wants a key for an openai provider aimed at OpenAI, and none for a server of your own', () => {
    const both = { llm: true, embeddings: true };
    const problems = (env: Record<string, string>, roles = both) => {
      try {
        checkProviderKeys(loadConfig(env), roles);
        return [];
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as Error).message.split('\n').map((l) => l.slice(0, l.indexOf(':')));
      }
    };
    expect(problems({})).toEqual([]);
    expect(problems({ LLM_PROVIDER: 'openai' })).toEqual(['invalid LLM_API_KEY']);
    expect(problems({ EMBEDDINGS_PROVIDER: 'openai', LLM_PROVIDER: 'openai' })).toEqual(['invalid EMBEDDINGS_API_KEY', 'invalid LLM_API_KEY']);
    expect(problems({ LLM_PROVIDER: 'openai', LLM_BASE_URL: 'https://api.openai.com/v1' })).toEqual(['invalid LLM_API_KEY']);
    expect(problems({ LLM_PROVIDER: 'openai', LLM_API_KEY: 'sk-x' })).toEqual([]);
    // Ollama, vLLM, LM Studio: an OpenAI-compatible server elsewhere may take no key.
    expect(problems({ LLM_PROVIDER: 'openai', LLM_BASE_URL: 'http://127.0.0.1:11434/v1' })).toEqual([]);
    expect(problems({ EMBEDDINGS_PROVIDER: 'openai', EMBEDDINGS_BASE_URL: 'http://gpu-box:8000/v1' })).toEqual([]);
    // Only the roles that call a provider need it: the API embeds queries but never calls the LLM.
    expect(problems({ LLM_PROVIDER: 'openai' }, { llm: false, embeddings: true })).toEqual([]);
    expect(problems({ EMBEDDINGS_PROVIDER: 'openai' }, { llm: false, embeddings: false })).toEqual([]);
    // The key's value is never in the message.
    expect(() => checkProviderKeys(loadConfig({ LLM_PROVIDER: 'openai', EMBEDDINGS_PROVIDER: 'openai', LLM_API_KEY: 'sk-secret' }), both)).toThrow(
      /^invalid EMBEDDINGS_API_KEY: [^\n]*$/,
    );
  });
});
