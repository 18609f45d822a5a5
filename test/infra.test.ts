/**
 * Static checks of the deployment files against the code (nothing here can run: no Docker engine).
 * Parses Dockerfile, docker-compose.yml, infra/compose.dev.yml and infra/k8s/*.yaml, and checks that
 * every CLI command, queue name, configuration variable, API port, probe path, KEDA list name and
 * image reference matches what the code defines. The validators are plain functions returning error
 * strings; the last block feeds them deliberately broken samples so the checks provably can fail.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CORE_SCHEMA, load, loadAll, mergeTag } from 'js-yaml';
import { ConfigError, ConfigSchema, loadConfig } from '../src/config.js';
import { QUEUE_NAMES } from '../src/queue/names.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const read = (rel: string) => readFileSync(path.join(ROOT, rel), 'utf8');
/** Compose files use `<<: *anchor` merge keys, which js-yaml's default schema leaves as plain keys. */
const YAML_SCHEMA = CORE_SCHEMA.withTags(mergeTag);
const parseYaml = (text: string): unknown => load(text, { schema: YAML_SCHEMA });
const parseYamlAll = (text: string): unknown[] => loadAll(text, { schema: YAML_SCHEMA }).filter((d) => d !== null && d !== undefined);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const asObj = (v: unknown): Obj => (isObj(v) ? v : {});
const asArr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);

// ------------------------------------------------------------------------------------------------
// What the code defines
// ------------------------------------------------------------------------------------------------

/**
 * Keys of the `COMMANDS` object literal in a TypeScript source (main.ts runs on import, so it is
 * read as text). Walks the literal's top level, skipping strings, comments and nested brackets.
 */
function extractObjectKeys(source: string, constName: string): string[] {
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

function apiSources(dir = path.join(ROOT, 'apps/api')): string {
  let text = '';
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) text += apiSources(full);
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) text += `${readFileSync(full, 'utf8')}\n`;
  }
  return text;
}

interface Context {
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

/** Variables allowed on containers besides memloom's own configuration. */
const ENV_ALLOWLIST = new Set(['NODE_ENV', 'POSTGRES_USER', 'POSTGRES_PASSWORD', 'POSTGRES_DB', 'POSTGRES_INITDB_ARGS']);
/** Third-party images must be exactly these; memloom images need an explicit, non-latest tag. */
const PINNED_IMAGES: Record<string, string> = { 'pgvector/pgvector': 'pgvector/pgvector:pg17', redis: 'redis:7', node: 'node:20-bookworm-slim' };
const DEFAULT_PORT = 8787;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

function codeContext(): Context {
  const api = apiSources();
  const publicMatch = /PUBLIC_PATHS\s*=\s*new Set\(\[([^\]]*)\]\)/.exec(read('apps/api/auth.ts'));
  return {
    commands: new Set(extractObjectKeys(read('apps/cli/main.ts'), 'COMMANDS')),
    queues: new Set<string>(QUEUE_NAMES),
    configKeys: new Set(Object.keys(ConfigSchema.shape)),
    routes: new Set([...api.matchAll(/\.get\(\s*'(\/[^']*)'/g)].map((m) => m[1] as string)),
    publicPaths: new Set([...(publicMatch?.[1] ?? '').matchAll(/'([^']+)'/g)].map((m) => m[1] as string)),
    queuePrefix: String(loadConfig({}).QUEUE_PREFIX ?? ''),
  };
}

// ------------------------------------------------------------------------------------------------
// Shared checks
// ------------------------------------------------------------------------------------------------

interface Seen {
  commands: string[];
  queues: string[];
  env: string[];
  apiPorts: number[];
  probePaths: string[];
  listNames: string[];
  images: string[];
}
interface Result {
  errors: string[];
  seen: Seen;
}
const newResult = (): Result => ({ errors: [], seen: { commands: [], queues: [], env: [], apiPorts: [], probePaths: [], listNames: [], images: [] } });

interface Invocation {
  command: string;
  queues: string[] | undefined;
}

/** Splits a shell-form command into words (quotes removed; no expansion). */
function shellWords(s: string): string[] {
  return [...s.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
}

/** memloom invocations in an argv: `memloom <cmd>`, `node bin/memloom.js <cmd>`, also inside `sh -c "…"`. */
function findInvocations(argv: string[]): Invocation[] {
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

function checkInvocations(where: string, invocations: Invocation[], ctx: Context, r: Result): void {
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

function checkEnvName(where: string, name: string, ctx: Context, r: Result): void {
  r.seen.env.push(name);
  if (!ctx.configKeys.has(name) && !ENV_ALLOWLIST.has(name)) r.errors.push(`${where}: environment variable ${name} is not a memloom configuration name (src/config.ts) nor allowlisted`);
}

/** Values must parse with the real config loader (catches e.g. EMBEDDINGS_PROVIDER=foo). */
function checkConfigValues(where: string, env: Record<string, string>, isApi: boolean, r: Result): void {
  try {
    const config = loadConfig(env);
    if (isApi && !LOOPBACK.has(config.HOST) && config.MEMLOOM_API_KEYS.size === 0) r.errors.push(`${where}: HOST=${config.HOST} without MEMLOOM_API_KEYS: the API refuses to start`);
  } catch (err) {
    if (err instanceof ConfigError) r.errors.push(`${where}: configuration rejected: ${err.message.replace(/\n/g, '; ')}`);
    else throw err;
  }
}

function checkImage(where: string, image: string | undefined, isMemloom: boolean, r: Result): void {
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

function checkProbePath(where: string, probePath: string, ctx: Context, r: Result): void {
  r.seen.probePaths.push(probePath);
  if (!ctx.routes.has(probePath)) r.errors.push(`${where}: probe path ${probePath} is not a route of the API`);
  if (!ctx.publicPaths.has(probePath)) r.errors.push(`${where}: probe path ${probePath} requires an API key`);
}

function checkApiPort(where: string, port: number, expected: number, r: Result): void {
  r.seen.apiPorts.push(port);
  if (port !== expected) r.errors.push(`${where}: port ${port} but the API listens on PORT=${expected}`);
}

const isApiCommand = (invs: Invocation[]) => invs.some((i) => i.command === 'api' || i.command === 'start');

// ------------------------------------------------------------------------------------------------
// docker compose
// ------------------------------------------------------------------------------------------------

/** Compose-style interpolation: ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?err}, ${VAR?err}, $$. */
function interpolate(value: string, env: Record<string, string>): string {
  return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g, (whole, name: string | undefined, op: string | undefined, arg: string | undefined) => {
    if (whole === '$$') return '$';
    const v = env[name as string];
    const empty = op?.startsWith(':') ? v === undefined || v === '' : v === undefined;
    if (op?.endsWith('-')) return empty ? (arg ?? '') : (v as string);
    if (op?.endsWith('?')) {
      if (empty) throw new Error(`required variable ${name} is missing: ${arg}`);
      return v as string;
    }
    return v ?? '';
  });
}

function deepInterpolate(v: unknown, env: Record<string, string>): unknown {
  if (typeof v === 'string') return interpolate(v, env);
  if (Array.isArray(v)) return v.map((x) => deepInterpolate(x, env));
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deepInterpolate(x, env)]));
  return v;
}

function composeEnv(environment: unknown): Record<string, string> {
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

const argvOf = (v: unknown): string[] => (typeof v === 'string' ? shellWords(v) : asArr(v).map((x) => String(x)));
const DEFAULT_CMD = ['node', 'bin/memloom.js', 'start'];

/** `host:container`, `ip:host:container`, `container`, with optional `/proto`; long syntax too. */
function containerPort(spec: unknown): number | undefined {
  if (isObj(spec)) return Number(spec.target);
  const s = String(spec).replace(/\/(tcp|udp)$/, '');
  return Number(s.slice(s.lastIndexOf(':') + 1));
}

/** URLs in a healthcheck command, e.g. fetch('http://127.0.0.1:8787/healthz'). */
function healthcheckUrls(test: unknown): Array<{ port: number; path: string }> {
  const text = argvOf(test).join(' ');
  return [...text.matchAll(/https?:\/\/[^/\s'"`:]+(?::(\d+))?(\/[\w./-]*)/g)].map((m) => ({ port: Number(m[1] ?? 80), path: m[2] as string }));
}

/**
 * `interpolationEnv` stands in for the shell: values for required `${VAR:?…}` variables.
 * `imageEnv` holds the Dockerfile's ENV defaults that memloom containers inherit.
 */
function validateCompose(raw: unknown, ctx: Context, interpolationEnv: Record<string, string> = {}, imageEnv: Record<string, string> = {}): Result {
  const r = newResult();
  const services = asObj(asObj(raw).services);
  if (Object.keys(services).length === 0) r.errors.push('compose: no services');
  for (const [name, rawService] of Object.entries(services)) {
    const where = `compose service ${name}`;
    let svc: Obj;
    try {
      svc = asObj(deepInterpolate(rawService, interpolationEnv));
    } catch (err) {
      r.errors.push(`${where}: ${(err as Error).message}`);
      continue;
    }
    const image = str(svc.image);
    const isMemloom = svc.build !== undefined || (image ?? '').split('/').pop()!.startsWith('memloom');
    checkImage(where, image, isMemloom, r);
    if (!image && !svc.build) r.errors.push(`${where}: neither image nor build`);

    const env = composeEnv(svc.environment);
    for (const key of Object.keys(env)) checkEnvName(where, key, ctx, r);

    const invocations = isMemloom ? findInvocations(svc.command === undefined ? DEFAULT_CMD : [...argvOf(svc.entrypoint), ...argvOf(svc.command)]) : [];
    if (isMemloom && invocations.length === 0) r.errors.push(`${where}: command runs no memloom command`);
    checkInvocations(where, invocations, ctx, r);

    if (!isMemloom) {
      if (asArr(svc.ports).length > 0 && name !== 'postgres' && name !== 'redis') r.errors.push(`${where}: unexpected published ports`);
      continue;
    }
    const effective = { ...imageEnv, ...env };
    const isApi = isApiCommand(invocations);
    checkConfigValues(where, effective, isApi, r);
    const port = Number(effective.PORT || DEFAULT_PORT);
    if (isApi) {
      const host = effective.HOST || '127.0.0.1';
      const rawKeys = composeEnv(asObj(rawService).environment).MEMLOOM_API_KEYS;
      if (!LOOPBACK.has(host) && !(rawKeys && (/^\$\{MEMLOOM_API_KEYS:?\?/.test(rawKeys) || !rawKeys.includes('$')))) {
        r.errors.push(`${where}: HOST=${host} needs MEMLOOM_API_KEYS set as \${MEMLOOM_API_KEYS:?…} (or a literal)`);
      }
      if (LOOPBACK.has(host) && asArr(svc.ports).length > 0) r.errors.push(`${where}: ports published but the API listens on loopback (HOST=${host})`);
    }
    for (const p of [...asArr(svc.ports), ...asArr(svc.expose)]) {
      const cp = containerPort(p);
      if (!isApi) r.errors.push(`${where}: publishes port ${String(p)} but serves no HTTP`);
      else if (cp !== undefined) checkApiPort(`${where} ports`, cp, port, r);
    }
    const hc = asObj(svc.healthcheck);
    if (hc.test !== undefined && !hc.disable) {
      for (const u of healthcheckUrls(hc.test)) {
        checkApiPort(`${where} healthcheck`, u.port, port, r);
        checkProbePath(`${where} healthcheck`, u.path, ctx, r);
      }
    }
  }
  return r;
}

// ------------------------------------------------------------------------------------------------
// Kubernetes
// ------------------------------------------------------------------------------------------------

interface PodSpecRef {
  where: string;
  doc: Obj;
  podLabels: Obj;
  podAnnotations: Obj;
  spec: Obj;
}

function podSpecs(docs: Obj[]): PodSpecRef[] {
  const out: PodSpecRef[] = [];
  for (const doc of docs) {
    const kind = str(doc.kind) ?? '';
    const name = str(asObj(doc.metadata).name) ?? '?';
    let template: Obj | undefined;
    if (['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'ReplicaSet'].includes(kind)) template = asObj(asObj(doc.spec).template);
    if (kind === 'CronJob') template = asObj(asObj(asObj(asObj(doc.spec).jobTemplate).spec).template);
    if (kind === 'Pod') template = { metadata: doc.metadata, spec: doc.spec };
    if (template) out.push({ where: `${kind}/${name}`, doc, podLabels: asObj(asObj(template.metadata).labels), podAnnotations: asObj(asObj(template.metadata).annotations), spec: asObj(template.spec) });
  }
  return out;
}

const byKind = (docs: Obj[], kind: string) => docs.filter((d) => d.kind === kind);
const nameOf = (d: Obj) => str(asObj(d.metadata).name) ?? '';

/** Validates a set of Kubernetes documents (ConfigMaps/Secrets referenced by envFrom must be among them). */
function validateK8s(docs: Obj[], ctx: Context): Result {
  const r = newResult();
  const configMaps = new Map(byKind(docs, 'ConfigMap').map((d) => [nameOf(d), asObj(d.data)]));
  const secrets = new Map(byKind(docs, 'Secret').map((d) => [nameOf(d), { ...asObj(d.data), ...asObj(d.stringData) }]));
  const checkedSources = new Set<string>();
  const containerPortsByWorkload = new Map<PodSpecRef, { port: number; names: Map<string, number> }>();
  const envByWorkload = new Map<PodSpecRef, Record<string, string>>();
  const workloads = podSpecs(docs);

  for (const pod of workloads) {
    for (const c of [...asArr(pod.spec.initContainers), ...asArr(pod.spec.containers)].map(asObj)) {
      const where = `${pod.where} container ${str(c.name) ?? '?'}`;
      const image = str(c.image);
      const isMemloom = (image ?? '').split('/').pop()!.startsWith('memloom');
      checkImage(where, image, isMemloom, r);

      // environment: explicit env, then envFrom sources (whose keys are checked once per source)
      const effective: Record<string, string> = {};
      for (const from of asArr(c.envFrom).map(asObj)) {
        const cm = str(asObj(from.configMapRef).name);
        const sec = str(asObj(from.secretRef).name);
        const source = cm !== undefined ? configMaps.get(cm) : sec !== undefined ? secrets.get(sec) : undefined;
        const label = cm !== undefined ? `ConfigMap/${cm}` : `Secret/${sec}`;
        if (!source) {
          r.errors.push(`${where}: envFrom ${label} is not defined in infra/k8s`);
          continue;
        }
        if (str(from.prefix)) r.errors.push(`${where}: envFrom prefix would rename memloom's variables`);
        for (const [k, v] of Object.entries(source)) {
          if (!checkedSources.has(label)) checkEnvName(label, k, ctx, r);
          effective[k] = str(v) ?? '';
        }
        checkedSources.add(label);
      }
      for (const e of asArr(c.env).map(asObj)) {
        const n = str(e.name) ?? '';
        checkEnvName(where, n, ctx, r);
        // valueFrom values are unknown here; only literal values are checked by the config loader.
        if (e.valueFrom === undefined) effective[n] = str(e.value) ?? '';
      }

      const argv = [...asArr(c.command), ...asArr(c.args)].map(String);
      const invocations = isMemloom ? findInvocations(argv.length > 0 ? argv : DEFAULT_CMD) : [];
      if (isMemloom && invocations.length === 0) r.errors.push(`${where}: runs no memloom command`);
      checkInvocations(where, invocations, ctx, r);
      if (!isMemloom) continue;

      const isApi = isApiCommand(invocations);
      checkConfigValues(where, effective, isApi, r);
      envByWorkload.set(pod, effective);
      const port = Number(effective.PORT || DEFAULT_PORT);
      const names = new Map<string, number>();
      for (const p of asArr(c.ports).map(asObj)) {
        const cp = Number(p.containerPort);
        if (!isApi) r.errors.push(`${where}: declares port ${cp} but serves no HTTP`);
        else checkApiPort(`${where} containerPort`, cp, port, r);
        if (str(p.name)) names.set(str(p.name) as string, cp);
      }
      containerPortsByWorkload.set(pod, { port, names });
      for (const probeKind of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
        const probe = asObj(c[probeKind]);
        const http = asObj(probe.httpGet);
        if (Object.keys(probe).length === 0) continue;
        if (!isApi) {
          r.errors.push(`${where}: ${probeKind} on a role that serves no HTTP`);
          continue;
        }
        if (Object.keys(http).length === 0) continue;
        const raw = http.port;
        const resolved = typeof raw === 'string' && !/^\d+$/.test(raw) ? names.get(raw) : Number(raw);
        if (resolved === undefined) r.errors.push(`${where} ${probeKind}: port name ${String(raw)} is not a container port`);
        else checkApiPort(`${where} ${probeKind}`, resolved, port, r);
        checkProbePath(`${where} ${probeKind}`, str(http.path) ?? '/', ctx, r);
      }
      const scrapePort = str(pod.podAnnotations['prometheus.io/port']);
      if (scrapePort !== undefined) checkApiPort(`${pod.where} prometheus.io/port`, Number(scrapePort), port, r);
      const scrapePath = str(pod.podAnnotations['prometheus.io/path']);
      if (scrapePath !== undefined && !ctx.publicPaths.has(scrapePath)) r.errors.push(`${pod.where}: prometheus.io/path ${scrapePath} requires an API key`);
    }
  }

  // Services: targetPort must reach the API port of the pods they select.
  for (const svc of byKind(docs, 'Service')) {
    const selector = asObj(asObj(svc.spec).selector);
    const targets = [...containerPortsByWorkload].filter(([pod]) => Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => pod.podLabels[k] === v));
    if (targets.length === 0) {
      r.errors.push(`Service/${nameOf(svc)}: selects no memloom pod`);
      continue;
    }
    for (const p of asArr(asObj(svc.spec).ports).map(asObj)) {
      const raw = p.targetPort ?? p.port;
      for (const [pod, info] of targets) {
        const resolved = typeof raw === 'string' && !/^\d+$/.test(raw) ? info.names.get(raw) : Number(raw);
        if (resolved === undefined) r.errors.push(`Service/${nameOf(svc)}: targetPort ${String(raw)} is not a port of ${pod.where}`);
        else checkApiPort(`Service/${nameOf(svc)} targetPort`, resolved, info.port, r);
      }
    }
  }

  // KEDA: listName must be BullMQ's wait list of a queue the scaled Deployment consumes.
  const triggerAuths = new Set(byKind(docs, 'TriggerAuthentication').map(nameOf));
  for (const so of byKind(docs, 'ScaledObject')) {
    const where = `ScaledObject/${nameOf(so)}`;
    const spec = asObj(so.spec);
    const targetName = str(asObj(spec.scaleTargetRef).name);
    const target = workloads.find((w) => w.doc.kind === 'Deployment' && nameOf(w.doc) === targetName);
    const targetQueues = new Set<string>();
    const prefix = (target && envByWorkload.get(target)?.QUEUE_PREFIX) || ctx.queuePrefix;
    if (!target) r.errors.push(`${where}: scaleTargetRef ${targetName} is not a Deployment in infra/k8s`);
    else {
      const invs = asArr(target.spec.containers).flatMap((c) => findInvocations([...asArr(asObj(c).command), ...asArr(asObj(c).args)].map(String)));
      for (const inv of invs) for (const q of inv.command === 'worker' ? (inv.queues ?? [...ctx.queues]) : []) targetQueues.add(q);
      if (targetQueues.size === 0) r.errors.push(`${where}: ${targetName} runs no workers`);
    }
    const min = Number(spec.minReplicaCount ?? 0);
    const max = Number(spec.maxReplicaCount ?? 100);
    if (!(min >= 1 && max >= min)) r.errors.push(`${where}: replicas should scale within 1..N (got ${min}..${max})`);
    const triggered = new Set<string>();
    for (const t of asArr(spec.triggers).map(asObj)) {
      if (t.type !== 'redis') continue;
      const listName = str(asObj(t.metadata).listName) ?? '';
      r.seen.listNames.push(listName);
      const m = /^(.+):([^:]+):wait$/.exec(listName);
      if (!m) {
        r.errors.push(`${where}: listName ${listName} is not <prefix>:<queue>:wait`);
        continue;
      }
      if (m[1] !== prefix) r.errors.push(`${where}: listName ${listName} uses prefix ${m[1]}, the workers' QUEUE_PREFIX is ${prefix}`);
      const queue = m[2] as string;
      triggered.add(queue);
      if (!ctx.queues.has(queue)) r.errors.push(`${where}: listName ${listName} names unknown queue "${queue}"`);
      else if (target && !targetQueues.has(queue)) r.errors.push(`${where}: ${targetName} does not consume queue "${queue}"`);
      const auth = str(asObj(t.authenticationRef).name);
      if (auth !== undefined && !triggerAuths.has(auth)) r.errors.push(`${where}: TriggerAuthentication ${auth} is not defined`);
    }
    for (const q of targetQueues) if (!triggered.has(q)) r.errors.push(`${where}: no trigger for queue "${q}" consumed by ${targetName}`);
  }
  return r;
}

// ------------------------------------------------------------------------------------------------
// Dockerfile
// ------------------------------------------------------------------------------------------------

interface Instruction {
  op: string;
  args: string;
}

function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let buf = '';
  for (const line of text.split('\n')) {
    if (/^\s*#/.test(line)) continue; // comments, also inside a continuation (Docker drops those too)
    if (line.trimEnd().endsWith('\\')) {
      buf += `${line.trimEnd().slice(0, -1)} `;
      continue;
    }
    buf += line;
    const m = /^\s*([A-Za-z]+)\s+([\s\S]*)$/.exec(buf);
    if (m) out.push({ op: (m[1] as string).toUpperCase(), args: (m[2] as string).trim() });
    buf = '';
  }
  return out;
}

const execForm = (args: string): string[] => {
  if (args.startsWith('[')) return JSON.parse(args) as string[];
  return shellWords(args);
};

/** KEY=VALUE pairs of ENV/ARG instructions (the legacy `ENV KEY value` form too). */
function keyValues(args: string): Record<string, string> {
  const words = shellWords(args);
  if (words.length === 2 && !words[0]?.includes('=')) return { [words[0] as string]: words[1] as string };
  return Object.fromEntries(words.map((w) => (w.includes('=') ? [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)] : [w, ''])));
}

function validateDockerfile(text: string, ctx: Context): Result & { env: Record<string, string> } {
  const r = newResult();
  const ins = parseDockerfile(text);
  const args: Record<string, string> = {};
  const env: Record<string, string> = {};
  const froms = ins.filter((i) => i.op === 'FROM');
  const lastFrom = ins.lastIndexOf(froms[froms.length - 1] as Instruction);
  for (const [idx, i] of ins.entries()) {
    if (i.op === 'ARG') Object.assign(args, keyValues(i.args));
    if (i.op === 'FROM') {
      const image = (shellWords(i.args)[0] ?? '').replace(/\$\{?([A-Za-z_]\w*)\}?/g, (_m, n: string) => args[n] ?? '');
      if (!image.startsWith('node:20-')) r.errors.push(`Dockerfile: FROM ${image} is not Node 20`);
      checkImage('Dockerfile FROM', image, false, r);
    }
    if (i.op === 'ENV' && idx > lastFrom) Object.assign(env, keyValues(i.args));
  }
  for (const key of Object.keys(env)) checkEnvName('Dockerfile ENV', key, ctx, r);
  if (env.NODE_ENV !== 'production') r.errors.push('Dockerfile: ENV NODE_ENV=production missing in the final stage');

  const runs = ins.filter((i) => i.op === 'RUN').map((i) => i.args);
  if (!runs.some((a) => /npm ci\b.*--omit=dev/.test(a))) r.errors.push('Dockerfile: no `npm ci --omit=dev`');
  if (!runs.some((a) => a.includes('scripts/prisma-generate.mjs'))) r.errors.push('Dockerfile: the Prisma client is not generated at build time');

  const users = ins.filter((i) => i.op === 'USER').map((i) => i.args.split(':')[0]);
  const user = users[users.length - 1];
  if (!user || user === 'root' || user === '0') r.errors.push('Dockerfile: the final USER is root');

  const entrypoint = ins.filter((i) => i.op === 'ENTRYPOINT').map((i) => execForm(i.args)).pop() ?? [];
  const cmd = ins.filter((i) => i.op === 'CMD').map((i) => execForm(i.args)).pop() ?? [];
  const invocations = findInvocations([...entrypoint, ...cmd]);
  if (invocations.length === 0) r.errors.push('Dockerfile: CMD runs no memloom command');
  checkInvocations('Dockerfile CMD', invocations, ctx, r);
  if (!invocations.some((inv) => inv.command === 'start')) r.errors.push('Dockerfile: the default command is not `memloom start`');

  const port = Number(env.PORT || DEFAULT_PORT);
  for (const e of ins.filter((i) => i.op === 'EXPOSE')) for (const p of e.args.split(/\s+/)) checkApiPort('Dockerfile EXPOSE', Number(p.replace(/\/\w+$/, '')), port, r);
  const healthchecks = ins.filter((i) => i.op === 'HEALTHCHECK');
  if (healthchecks.length === 0) r.errors.push('Dockerfile: no HEALTHCHECK');
  for (const h of healthchecks) {
    if (!/\/healthz\b/.test(h.args)) r.errors.push('Dockerfile: HEALTHCHECK does not probe /healthz');
    checkProbePath('Dockerfile HEALTHCHECK', '/healthz', ctx, r);
    for (const m of h.args.matchAll(/https?:\/\/[^/\s'"`:]+:(\d+)\//g)) checkApiPort('Dockerfile HEALTHCHECK', Number(m[1]), port, r);
  }
  return { ...r, env };
}

// ------------------------------------------------------------------------------------------------
// The tests
// ------------------------------------------------------------------------------------------------

const ctx = codeContext();
const REQUIRED_SHELL_ENV = { MEMLOOM_API_KEYS: 'test-key:default' };
const dockerfile = validateDockerfile(read('Dockerfile'), ctx);
const k8sFiles = readdirSync(path.join(ROOT, 'infra/k8s')).filter((f) => f.endsWith('.yaml') || f.endsWith('.yml')).sort();
const k8sDocs = k8sFiles.flatMap((f) => parseYamlAll(read(`infra/k8s/${f}`)).map((d) => ({ file: f, doc: asObj(d) })));

describe('what the code defines (extraction must not come back empty)', () => {
  it('finds the CLI commands in apps/cli/main.ts', () => {
    expect([...ctx.commands]).toEqual(expect.arrayContaining(['start', 'api', 'worker', 'watcher', 'scheduler', 'migrate']));
  });
  it('finds queues, configuration names, probe routes and the queue prefix', () => {
    expect(ctx.queues.size).toBeGreaterThanOrEqual(8);
    expect([...ctx.configKeys]).toEqual(expect.arrayContaining(['PORT', 'HOST', 'DATABASE_URL', 'REDIS_URL', 'MEMLOOM_API_KEYS']));
    expect([...ctx.routes]).toEqual(expect.arrayContaining(['/healthz', '/readyz']));
    expect([...ctx.publicPaths]).toEqual(expect.arrayContaining(['/healthz', '/readyz']));
    expect(ctx.queuePrefix).toBe('memloom');
  });
  it('extractObjectKeys handles nested literals, strings, comments and shorthand', () => {
    const src = `const COMMANDS: Record<string, C> = {
      // a comment, with: a colon
      start: (c) => serve(c, { api: true, workers: ['a', 'b'] }),
      'with-dash': run,
      /* block, comment */ migrate,
      async bench(c) { return { x: 1 }; },
      odd: "}" ,
    };
    const OTHER = { nope: 1 };`;
    expect(extractObjectKeys(src, 'COMMANDS')).toEqual(['start', 'with-dash', 'migrate', 'bench', 'odd']);
  });
});

describe('Dockerfile', () => {
  it('passes every check', () => {
    expect(dockerfile.errors).toEqual([]);
    expect(dockerfile.seen.commands).toEqual(['start']);
    expect(dockerfile.seen.apiPorts).toContain(DEFAULT_PORT);
  });
});

describe('docker-compose.yml', () => {
  const raw = parseYaml(read('docker-compose.yml'));
  const result = validateCompose(raw, ctx, REQUIRED_SHELL_ENV, dockerfile.env);
  const services = asObj(asObj(raw).services);

  it('uses real commands, queues, configuration names, ports, probe paths and pinned images', () => {
    expect(result.errors).toEqual([]);
    expect(result.seen.commands.sort()).toEqual(['api', 'migrate', 'scheduler', 'watcher', 'worker']);
    expect(result.seen.env).toEqual(expect.arrayContaining(['DATABASE_URL', 'REDIS_URL', 'MEMLOOM_API_KEYS', 'POSTGRES_USER']));
    expect(result.seen.apiPorts.length).toBeGreaterThanOrEqual(2);
    expect(result.seen.images).toEqual(expect.arrayContaining(['pgvector/pgvector:pg17', 'redis:7']));
  });

  it('refuses to start the API without MEMLOOM_API_KEYS in the shell', () => {
    const r = validateCompose(raw, ctx, {}, dockerfile.env);
    expect(r.errors.some((e) => e.includes('compose service api') && e.includes('MEMLOOM_API_KEYS'))).toBe(true);
  });

  it('wires services to postgres and redis, after migrate', () => {
    for (const name of ['migrate', 'api', 'worker', 'watcher', 'scheduler']) {
      const svc = asObj(services[name]);
      const env = composeEnv(svc.environment);
      expect(env.DATABASE_URL, name).toBe('postgresql://memloom:memloom@postgres:5432/memloom');
      expect(env.REDIS_URL, name).toBe('redis://redis:6379');
      const deps = asObj(svc.depends_on);
      expect(asObj(deps.postgres).condition, name).toBe('service_healthy');
      if (name !== 'migrate') {
        expect(asObj(deps.redis).condition, name).toBe('service_healthy');
        expect(asObj(deps.migrate).condition, name).toBe('service_completed_successfully');
      }
    }
    expect(asObj(asObj(services.postgres).healthcheck).test).toBeDefined();
    expect(asObj(asObj(services.redis).healthcheck).test).toBeDefined();
  });

  it('lets workers scale and the watcher share the events volume', () => {
    const worker = asObj(services.worker);
    expect(worker.container_name).toBeUndefined();
    expect(worker.ports).toBeUndefined();
    const watcher = asObj(services.watcher);
    const eventsDir = composeEnv(watcher.environment).EVENTS_DIR;
    expect(asArr(watcher.volumes).some((v) => String(v).endsWith(`:${eventsDir}`))).toBe(true);
    expect(asObj(asObj(raw).volumes)).toHaveProperty('events');
  });
});

describe('infra/compose.dev.yml', () => {
  it('is a valid postgres + redis override', () => {
    const raw = parseYaml(read('infra/compose.dev.yml'));
    const r = validateCompose(raw, ctx, REQUIRED_SHELL_ENV, dockerfile.env);
    expect(r.errors).toEqual([]);
    expect(Object.keys(asObj(asObj(raw).services)).sort()).toEqual(['postgres', 'redis']);
    expect(r.seen.images.sort()).toEqual(['pgvector/pgvector:pg17', 'redis:7']);
  });
});

describe('infra/k8s', () => {
  const docs = k8sDocs.map((d) => d.doc);
  const result = validateK8s(docs, ctx);
  const find = (kind: string, name: string) => asObj(docs.find((d) => d.kind === kind && nameOf(d) === name));

  it('has the expected files, each parsing to Kubernetes objects', () => {
    expect(k8sFiles).toEqual(expect.arrayContaining(['namespace.yaml', 'configmap.yaml', 'secret.example.yaml', 'api.yaml', 'worker.yaml', 'watcher.yaml', 'scheduler.yaml', 'migrate-job.yaml', 'keda-scaledobject.yaml']));
    for (const { file, doc } of k8sDocs) {
      expect(str(doc.apiVersion), file).toBeDefined();
      expect(str(doc.kind), file).toBeDefined();
      expect(nameOf(doc), file).not.toBe('');
      if (doc.kind !== 'Namespace') expect(asObj(doc.metadata).namespace, `${file} ${nameOf(doc)}`).toBe('memloom');
    }
  });

  it('uses real commands, queues, configuration names, ports, probe paths, KEDA lists and pinned images', () => {
    expect(result.errors).toEqual([]);
    expect(new Set(result.seen.commands)).toEqual(new Set(['api', 'worker', 'watcher', 'scheduler', 'migrate']));
    expect(new Set(result.seen.queues)).toEqual(new Set(QUEUE_NAMES));
    expect(result.seen.env).toEqual(expect.arrayContaining(['DATABASE_URL', 'REDIS_URL', 'MEMLOOM_API_KEYS', 'LLM_API_KEY', 'EMBEDDINGS_API_KEY', 'HOST', 'PORT']));
    expect(result.seen.probePaths).toEqual(expect.arrayContaining(['/healthz', '/readyz']));
    expect(result.seen.listNames.length).toBe(QUEUE_NAMES.length);
  });

  it('probes readiness on /readyz and liveness on /healthz', () => {
    const c = asObj(asArr(asObj(asObj(asObj(find('Deployment', 'memloom-api').spec).template).spec).containers)[0]);
    expect(asObj(asObj(c.readinessProbe).httpGet).path).toBe('/readyz');
    expect(asObj(asObj(c.livenessProbe).httpGet).path).toBe('/healthz');
  });

  it('gives workers time to drain and keeps the watcher single', () => {
    const workers = docs.filter((d) => d.kind === 'Deployment' && nameOf(d).startsWith('memloom-worker-'));
    expect(workers.length).toBeGreaterThanOrEqual(2);
    for (const w of workers) expect(Number(asObj(asObj(asObj(w.spec).template).spec).terminationGracePeriodSeconds), nameOf(w)).toBeGreaterThanOrEqual(60);
    const watcher = asObj(find('Deployment', 'memloom-watcher').spec);
    expect(watcher.replicas).toBe(1);
    expect(asObj(watcher.strategy).type).toBe('Recreate');
    const volumes = asArr(asObj(asObj(watcher.template).spec).volumes).map(asObj);
    const claim = str(asObj(volumes.find((v) => v.persistentVolumeClaim)?.persistentVolumeClaim).claimName);
    expect(docs.some((d) => d.kind === 'PersistentVolumeClaim' && nameOf(d) === claim)).toBe(true);
    expect(asObj(find('Job', 'memloom-migrate').spec)).toBeDefined();
  });

  it('keeps secrets out of the ConfigMap', () => {
    const data = asObj(find('ConfigMap', 'memloom-config').data);
    for (const secret of ['DATABASE_URL', 'REDIS_URL', 'MEMLOOM_API_KEYS', 'LLM_API_KEY', 'EMBEDDINGS_API_KEY']) expect(data, secret).not.toHaveProperty(secret);
    expect(Object.keys(asObj(find('Secret', 'memloom-secrets').stringData)).sort()).toEqual(['DATABASE_URL', 'EMBEDDINGS_API_KEY', 'LLM_API_KEY', 'MEMLOOM_API_KEYS', 'REDIS_URL']);
  });
});

describe('the validators reject wrong samples', () => {
  it('compose: unknown command, unknown queue, unknown variable, wrong port, bad probe path, unpinned image', () => {
    const bad = parseYaml(`
services:
  nope:
    image: memloom:latest
    command: memloom nope
  api:
    build: .
    command: memloom api
    environment: { FOO_BAR: x, HOST: 0.0.0.0, PORT: "9000", MEMLOOM_API_KEYS: "k:default", EMBEDDINGS_PROVIDER: magic }
    ports: ["8787:8787"]
    healthcheck: { test: ["CMD", "curl", "-f", "http://127.0.0.1:9000/nothing"] }
  worker:
    build: .
    command: ["node", "bin/memloom.js", "worker", "--queues", "triage,bogus"]
  open:
    build: .
    command: ["memloom", "api"]
    environment: { HOST: 0.0.0.0 }
    ports: ["8787:8787"]
  redis:
    image: redis
`);
    const { errors } = validateCompose(bad, ctx);
    const expectError = (pattern: RegExp) => expect(errors.some((e) => pattern.test(e)), `${pattern} in\n${errors.join('\n')}`).toBe(true);
    expectError(/"memloom nope" is not a CLI command/);
    expectError(/unknown queue "bogus"/);
    expectError(/FOO_BAR is not a memloom configuration name/);
    expectError(/port 8787 but the API listens on PORT=9000/);
    expectError(/probe path \/nothing is not a route/);
    expectError(/image memloom:latest is not pinned/);
    expectError(/image redis is not pinned/);
    expectError(/configuration rejected: invalid EMBEDDINGS_PROVIDER/);
    expectError(/service open: HOST=0\.0\.0\.0 needs MEMLOOM_API_KEYS/);
  });

  it('k8s: unknown queue list, untargeted queue, wrong probe, wrong targetPort, unknown env, missing ConfigMap', () => {
    const bad = parseYamlAll(`
apiVersion: apps/v1
kind: Deployment
metadata: { name: memloom-worker-x }
spec:
  template:
    metadata: { labels: { app: w } }
    spec:
      containers:
        - name: worker
          image: example/memloom:1.0.0
          command: ["memloom"]
          args: ["worker", "--queues", "embed"]
          envFrom: [{ configMapRef: { name: missing } }]
          env: [{ name: REDIS_HOST, value: redis }]
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: memloom-api }
spec:
  template:
    metadata: { labels: { app: api } }
    spec:
      containers:
        - name: api
          image: example/memloom:1.0.0
          command: ["memloom", "serve"]
          args: []
          env: [{ name: HOST, value: 0.0.0.0 }, { name: MEMLOOM_API_KEYS, value: "k:default" }]
          ports: [{ name: http, containerPort: 8080 }]
          readinessProbe: { httpGet: { path: /ready, port: http } }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: memloom-api2 }
spec:
  template:
    metadata: { labels: { app: api2 } }
    spec:
      containers:
        - name: api
          image: example/memloom:1.0.0
          command: ["memloom", "api"]
          env: [{ name: HOST, value: 0.0.0.0 }, { name: MEMLOOM_API_KEYS, value: "k:default" }]
          ports: [{ name: http, containerPort: 8787 }]
          livenessProbe: { httpGet: { path: /v1/events, port: 8787 } }
---
apiVersion: v1
kind: Service
metadata: { name: memloom-api2 }
spec:
  selector: { app: api2 }
  ports: [{ port: 80, targetPort: 9090 }]
---
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: { name: memloom-worker-x }
spec:
  scaleTargetRef: { name: memloom-worker-x }
  minReplicaCount: 1
  maxReplicaCount: 5
  triggers:
    - { type: redis, metadata: { listName: "memloom:nosuch:wait" } }
    - { type: redis, metadata: { listName: "memloom:extract:wait" } }
    - { type: redis, metadata: { listName: "bull:embed:wait" } }
`).map(asObj);
    const { errors } = validateK8s(bad, ctx);
    const expectError = (pattern: RegExp) => expect(errors.some((e) => pattern.test(e)), `${pattern} in\n${errors.join('\n')}`).toBe(true);
    expectError(/envFrom ConfigMap\/missing is not defined/);
    expectError(/REDIS_HOST is not a memloom configuration name/);
    expectError(/"memloom serve" is not a CLI command/);
    expectError(/declares port 8080 but serves no HTTP/);
    expectError(/probe path \/v1\/events requires an API key/);
    expectError(/Service\/memloom-api2 targetPort: port 9090/);
    expectError(/listName memloom:nosuch:wait names unknown queue "nosuch"/);
    expectError(/memloom-worker-x does not consume queue "extract"/);
    expectError(/uses prefix bull, the workers' QUEUE_PREFIX is memloom/);
  });

  it('Dockerfile: root user, dev dependencies, wrong command, Node version', () => {
    const { errors } = validateDockerfile(
      ['FROM node:22', 'WORKDIR /app', 'ENV FOO_BAR=1', 'RUN npm ci', 'EXPOSE 3000', 'CMD ["node", "bin/memloom.js", "serve"]'].join('\n'),
      ctx,
    );
    for (const pattern of [/not Node 20/, /FOO_BAR/, /npm ci --omit=dev/, /USER is root/, /"memloom serve" is not a CLI command/, /port 3000/, /no HEALTHCHECK/, /NODE_ENV=production/]) {
      expect(errors.some((e) => pattern.test(e)), `${pattern} in\n${errors.join('\n')}`).toBe(true);
    }
  });

  it('interpolation fails on a missing required variable', () => {
    expect(() => interpolate('${X:?set X}', {})).toThrow(/set X/);
    expect(interpolate('${X:-d}/${Y}/$$', { Y: 'y' })).toBe('d/y/$');
  });
});
