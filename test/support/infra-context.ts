/**
 * The code context and shared checks of the deployment-file validators (see test/infra.test.ts).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORE_SCHEMA, load, loadAll, mergeTag } from 'js-yaml';
import { ConfigError, ConfigSchema, loadConfig } from '../../src/config.js';
import { CATALOG } from '../../workers/catalog.js';
import { COMMANDS } from '../../apps/cli/registry.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const read = (rel: string) => readFileSync(path.join(ROOT, rel), 'utf8');
/** Compose files use `<<: *anchor` merge keys, which js-yaml's default schema leaves as plain keys. */
export const YAML_SCHEMA = CORE_SCHEMA.withTags(mergeTag);
export const parseYaml = (text: string): unknown => load(text, { schema: YAML_SCHEMA });
export const parseYamlAll = (text: string): unknown[] => loadAll(text, { schema: YAML_SCHEMA }).filter((d) => d !== null && d !== undefined);

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const asObj = (v: unknown): Obj => (isObj(v) ? v : {});
export const asArr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);

// ------------------------------------------------------------------------------------------------
// What the code defines
// ------------------------------------------------------------------------------------------------

/**
 * Keys of the `COMMANDS` object literal in a TypeScript source (main.ts runs on import, so it is
 * read as text). Walks the literal's top level, skipping strings, comments and nested brackets.
 */
export function extractObjectKeys(source: string, constName: string): string[] {
  const start = new RegExp(`const\\s+${constName}\\b[^=]*=\\s*\\{`).exec(source);
  if (!start) return [];
  let i = start.index + start[0].length;
  let depth = 0;
  let entry = '';
  const entries: string[] = [];
  while (i < source.length) {
    const ch = source[i] as string;
    const next = source[i + 1];
    if (ch === '/' && next === '/') {
      i = source.indexOf('\n', i);
      if (i < 0) break;
      continue;
    }
    if (ch === '/' && next === '*') {
      i = source.indexOf('*/', i + 2) + 2;
      if (i < 2) break;
      continue;
    }
    if (ch === "'" || ch === '"' || ch === '`') {
      let j = i + 1;
      while (j < source.length && source[j] !== ch) j += source[j] === '\\' ? 2 : 1;
      entry += source.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (ch === '{' || ch === '(' || ch === '[') depth++;
    if (ch === '}' || ch === ')' || ch === ']') {
      if (depth === 0) {
        entries.push(entry);
        break;
      }
      depth--;
    }
    if (ch === ',' && depth === 0) {
      entries.push(entry);
      entry = '';
    } else entry += ch;
    i++;
  }
  const keys: string[] = [];
  for (const e of entries) {
    const m = /^\s*(?:'([^']+)'|"([^"]+)"|(?:async\s+)?([A-Za-z_$][\w$]*))\s*(?:[:(]|$)/.exec(e);
    const key = m?.[1] ?? m?.[2] ?? m?.[3];
    if (key && !e.trim().startsWith('...')) keys.push(key);
  }
  return keys;
}

export function apiSources(dir = path.join(ROOT, 'apps/api')): string {
  let text = '';
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) text += apiSources(full);
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) text += `${readFileSync(full, 'utf8')}\n`;
  }
  return text;
}

export interface Context {
  commands: Set<string>;
  queues: Set<string>;
  configKeys: Set<string>;
  /** Paths registered with `.get('/…')` in apps/api. */
  routes: Set<string>;
  /** Paths served without an API key (apps/api/auth.ts PUBLIC_PATHS): probes must use these. */
  publicPaths: Set<string>;
  /** Default BullMQ key prefix (QUEUE_PREFIX's default); a deployment may set its own. */
  queuePrefix: string;
}

/** Variables allowed on containers besides memloom's own configuration (MALLOC_ARENA_MAX: glibc's, docs/operations.md). */
export const ENV_ALLOWLIST = new Set(['NODE_ENV', 'MALLOC_ARENA_MAX', 'POSTGRES_USER', 'POSTGRES_PASSWORD', 'POSTGRES_DB', 'POSTGRES_INITDB_ARGS']);
/** Third-party images must be exactly these; memloom images need an explicit, non-latest tag. */
export const PINNED_IMAGES: Record<string, string> = { 'pgvector/pgvector': 'pgvector/pgvector:0.8.0-pg15', redis: 'redis:7', node: 'node:20-bookworm-slim' };
export const DEFAULT_PORT = 8787;
export const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

export function codeContext(): Context {
  const api = apiSources();
  const publicMatch = /PUBLIC_PATHS\s*=\s*new Set\(\[([^\]]*)\]\)/.exec(read('apps/api/auth.ts'));
  return {
    commands: new Set(COMMANDS.map((c) => c.name)),
    queues: new Set<string>(CATALOG.keys()),
    configKeys: new Set(Object.keys(ConfigSchema.shape)),
    routes: new Set([...api.matchAll(/\.get\(\s*'(\/[^']*)'/g)].map((m) => m[1] as string)),
    publicPaths: new Set([...(publicMatch?.[1] ?? '').matchAll(/'([^']+)'/g)].map((m) => m[1] as string)),
    queuePrefix: String(loadConfig({}).QUEUE_PREFIX ?? ''),
  };
}

// ------------------------------------------------------------------------------------------------
// Shared checks
// ------------------------------------------------------------------------------------------------

export interface Seen {
  commands: string[];
  queues: string[];
  env: string[];
  apiPorts: number[];
  probePaths: string[];
  listNames: string[];
  images: string[];
}
export interface Result {
  errors: string[];
  seen: Seen;
}
export const newResult = (): Result => ({ errors: [], seen: { commands: [], queues: [], env: [], apiPorts: [], probePaths: [], listNames: [], images: [] } });

export interface Invocation {
  command: string;
  queues: string[] | undefined;
}

/** Splits a shell-form command into words (quotes removed; no expansion). */
export function shellWords(s: string): string[] {
  return [...s.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
}

/** memloom invocations in an argv: `memloom <cmd>`, `node bin/memloom.js <cmd>`, also inside `sh -c "…"`. */
export function findInvocations(argv: string[]): Invocation[] {
  if (argv.length === 0) return [];
  const [first = '', second = ''] = argv;
  if ((first === 'sh' || first === 'bash' || first.endsWith('/sh') || first.endsWith('/bash')) && argv.includes('-c')) {
    const script = argv[argv.indexOf('-c') + 1] ?? '';
    return script.split(/&&|\|\||;|\n/).flatMap((part) => findInvocations(shellWords(part.trim()).filter((w) => w !== 'exec')));
  }
  let rest: string[] | undefined;
  if (first === 'memloom' || first.endsWith('/memloom') || first.endsWith('bin/memloom.js')) rest = argv.slice(1);
  else if ((first === 'node' || first.endsWith('/node')) && second.endsWith('bin/memloom.js')) rest = argv.slice(2);
  else if (first === 'npm' && second === 'start') return [{ command: 'start', queues: undefined }];
  if (!rest) return [];
  const command = rest.find((w) => !w.startsWith('-')) ?? '';
  let queues: string[] | undefined;
  rest.forEach((w, i) => {
    const value = w.startsWith('--queues=') ? w.slice('--queues='.length) : w === '--queues' ? rest[i + 1] : undefined;
    if (value !== undefined) queues = [...(queues ?? []), ...value.split(',').map((q) => q.trim())];
  });
  return [{ command, queues }];
}

export function checkInvocations(where: string, invocations: Invocation[], ctx: Context, r: Result): void {
  for (const inv of invocations) {
    r.seen.commands.push(inv.command);
    if (!ctx.commands.has(inv.command)) r.errors.push(`${where}: "memloom ${inv.command}" is not a CLI command (known: ${[...ctx.commands].join(', ')})`);
    if (inv.queues !== undefined) {
      if (inv.command !== 'worker') r.errors.push(`${where}: --queues given to "${inv.command}", only "worker" takes it`);
      if (inv.queues.length === 0 || inv.queues.some((q) => q === '')) r.errors.push(`${where}: empty --queues value`);
      for (const q of inv.queues.filter(Boolean)) {
        r.seen.queues.push(q);
        if (!ctx.queues.has(q)) r.errors.push(`${where}: --queues names unknown queue "${q}" (known: ${[...ctx.queues].join(', ')})`);
      }
    }
  }
}

export function checkEnvName(where: string, name: string, ctx: Context, r: Result): void {
  r.seen.env.push(name);
  if (!ctx.configKeys.has(name) && !ENV_ALLOWLIST.has(name))
    r.errors.push(`${where}: environment variable ${name} is not a memloom configuration name (src/config.ts) nor allowlisted`);
}

/** Values must parse with the real config loader (catches e.g. EMBEDDINGS_PROVIDER=foo). */
export function checkConfigValues(where: string, env: Record<string, string>, isApi: boolean, r: Result): void {
  try {
    const config = loadConfig(env);
    if (isApi && !LOOPBACK.has(config.HOST) && config.MEMLOOM_API_KEYS.size === 0)
      r.errors.push(`${where}: HOST=${config.HOST} without MEMLOOM_API_KEYS: the API refuses to start`);
  } catch (err) {
    if (err instanceof ConfigError) r.errors.push(`${where}: configuration rejected: ${err.message.replace(/\n/g, '; ')}`);
    else throw err;
  }
}

export function checkImage(where: string, image: string | undefined, isMemloom: boolean, r: Result): void {
  if (!image) return;
  r.seen.images.push(image);
  const at = image.lastIndexOf(':');
  const hasTag = at > image.lastIndexOf('/') && at >= 0;
  const repo = hasTag ? image.slice(0, at) : image;
  const tag = hasTag ? image.slice(at + 1) : '';
  if (!tag || tag === 'latest') r.errors.push(`${where}: image ${image} is not pinned to a tag`);
  const pinned = PINNED_IMAGES[repo.replace(/^docker\.io\/(library\/)?/, '')];
  if (pinned && image.replace(/^docker\.io\/(library\/)?/, '') !== pinned) r.errors.push(`${where}: image ${image} should be ${pinned}`);
  if (!pinned && !isMemloom) r.errors.push(`${where}: unexpected third-party image ${image}`);
}

export function checkProbePath(where: string, probePath: string, ctx: Context, r: Result): void {
  r.seen.probePaths.push(probePath);
  if (!ctx.routes.has(probePath)) r.errors.push(`${where}: probe path ${probePath} is not a route of the API`);
  if (!ctx.publicPaths.has(probePath)) r.errors.push(`${where}: probe path ${probePath} requires an API key`);
}

export function checkApiPort(where: string, port: number, expected: number, r: Result): void {
  r.seen.apiPorts.push(port);
  if (port !== expected) r.errors.push(`${where}: port ${port} but the API listens on PORT=${expected}`);
}

export const isApiCommand = (invs: Invocation[]) => invs.some((i) => i.command === 'api' || i.command === 'start');

// ------------------------------------------------------------------------------------------------
// docker compose
// ------------------------------------------------------------------------------------------------

/** Compose-style interpolation: ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?err}, ${VAR?err}, $$. */
export function interpolate(value: string, env: Record<string, string>): string {
  return value.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g,
    (whole, name: string | undefined, op: string | undefined, arg: string | undefined) => {
      if (whole === '$$') return '$';
      const v = env[name as string];
      const empty = op?.startsWith(':') ? v === undefined || v === '' : v === undefined;
      if (op?.endsWith('-')) return empty ? (arg ?? '') : (v as string);
      if (op?.endsWith('?')) {
        if (empty) throw new Error(`required variable ${name} is missing: ${arg}`);
        return v as string;
      }
      return v ?? '';
    },
  );
}

export function deepInterpolate(v: unknown, env: Record<string, string>): unknown {
  if (typeof v === 'string') return interpolate(v, env);
  if (Array.isArray(v)) return v.map((x) => deepInterpolate(x, env));
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deepInterpolate(x, env)]));
  return v;
}

export function composeEnv(environment: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (Array.isArray(environment)) {
    for (const item of environment) {
      const s = String(item);
      const eq = s.indexOf('=');
      out[eq < 0 ? s : s.slice(0, eq)] = eq < 0 ? '' : s.slice(eq + 1);
    }
  } else for (const [k, v] of Object.entries(asObj(environment))) out[k] = str(v) ?? '';
  return out;
}

export const argvOf = (v: unknown): string[] => (typeof v === 'string' ? shellWords(v) : asArr(v).map((x) => String(x)));
export const DEFAULT_CMD = ['node', 'bin/memloom.js', 'start'];

/** `host:container`, `ip:host:container`, `container`, with optional `/proto`; long syntax too. */
export function containerPort(spec: unknown): number | undefined {
  if (isObj(spec)) return Number(spec.target);
  const s = String(spec).replace(/\/(tcp|udp)$/, '');
  return Number(s.slice(s.lastIndexOf(':') + 1));
}

/** URLs in a healthcheck command, e.g. fetch('http://127.0.0.1:8787/healthz'). */
export function healthcheckUrls(test: unknown): Array<{ port: number; path: string }> {
  const text = argvOf(test).join(' ');
  return [...text.matchAll(/https?:\/\/[^/\s'"`:]+(?::(\d+))?(\/[\w./-]*)/g)].map((m) => ({ port: Number(m[1] ?? 80), path: m[2] as string }));
}

/**
 * `interpolationEnv` stands in for the shell: values for required `${VAR:?…}` variables.
 * `imageEnv` holds the Dockerfile's ENV defaults that memloom containers inherit.
 */
