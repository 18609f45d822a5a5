import {
  asObj,
  asArr,
  str,
  DEFAULT_PORT,
  LOOPBACK,
  newResult,
  shellWords,
  findInvocations,
  checkInvocations,
  checkEnvName,
  checkConfigValues,
  checkImage,
  checkProbePath,
  checkApiPort,
  isApiCommand,
  deepInterpolate,
  composeEnv,
  argvOf,
  DEFAULT_CMD,
  containerPort,
  healthcheckUrls,
  type Obj,
  type Context,
  type Result,
} from './infra-context.js';
export function validateCompose(raw: unknown, ctx: Context, interpolationEnv: Record<string, string> = {}, imageEnv: Record<string, string> = {}): Result {
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

export interface PodSpecRef {
  where: string;
  doc: Obj;
  podLabels: Obj;
  podAnnotations: Obj;
  spec: Obj;
}

export function podSpecs(docs: Obj[]): PodSpecRef[] {
  const out: PodSpecRef[] = [];
  for (const doc of docs) {
    const kind = str(doc.kind) ?? '';
    const name = str(asObj(doc.metadata).name) ?? '?';
    let template: Obj | undefined;
    if (['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'ReplicaSet'].includes(kind)) template = asObj(asObj(doc.spec).template);
    if (kind === 'CronJob') template = asObj(asObj(asObj(asObj(doc.spec).jobTemplate).spec).template);
    if (kind === 'Pod') template = { metadata: doc.metadata, spec: doc.spec };
    if (template)
      out.push({
        where: `${kind}/${name}`,
        doc,
        podLabels: asObj(asObj(template.metadata).labels),
        podAnnotations: asObj(asObj(template.metadata).annotations),
        spec: asObj(template.spec),
      });
  }
  return out;
}

export const byKind = (docs: Obj[], kind: string) => docs.filter((d) => d.kind === kind);
export const nameOf = (d: Obj) => str(asObj(d.metadata).name) ?? '';

/** Validates a set of Kubernetes documents (ConfigMaps/Secrets referenced by envFrom must be among them). */
export function validateK8s(docs: Obj[], ctx: Context): Result {
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
      // METRICS_PORT: /metrics of any process, apart from the API's port and its keys.
      const metricsPort = effective.METRICS_PORT ? Number(effective.METRICS_PORT) : undefined;
      const names = new Map<string, number>();
      for (const p of asArr(c.ports).map(asObj)) {
        const cp = Number(p.containerPort);
        if (cp === metricsPort) {
          if (str(p.name)) names.set(str(p.name) as string, cp);
          continue;
        }
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
      const onMetricsPort = scrapePort !== undefined && Number(scrapePort) === metricsPort;
      if (scrapePort !== undefined && !onMetricsPort) checkApiPort(`${pod.where} prometheus.io/port`, Number(scrapePort), port, r);
      const scrapePath = str(pod.podAnnotations['prometheus.io/path']);
      if (onMetricsPort && scrapePath !== undefined && scrapePath !== '/metrics')
        r.errors.push(`${pod.where}: METRICS_PORT serves /metrics, not ${scrapePath}`);
      if (!onMetricsPort && scrapePath !== undefined && !ctx.publicPaths.has(scrapePath))
        r.errors.push(`${pod.where}: prometheus.io/path ${scrapePath} requires an API key`);
    }
  }

  // Services: targetPort must reach the API port of the pods they select.
  for (const svc of byKind(docs, 'Service')) {
    const selector = asObj(asObj(svc.spec).selector);
    const targets = [...containerPortsByWorkload].filter(
      ([pod]) => Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => pod.podLabels[k] === v),
    );
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

export interface Instruction {
  op: string;
  args: string;
}

export function parseDockerfile(text: string): Instruction[] {
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

export const execForm = (args: string): string[] => {
  if (args.startsWith('[')) return JSON.parse(args) as string[];
  return shellWords(args);
};

/** KEY=VALUE pairs of ENV/ARG instructions (the legacy `ENV KEY value` form too). */
export function keyValues(args: string): Record<string, string> {
  const words = shellWords(args);
  if (words.length === 2 && !words[0]?.includes('=')) return { [words[0] as string]: words[1] as string };
  return Object.fromEntries(words.map((w) => (w.includes('=') ? [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)] : [w, ''])));
}

export function validateDockerfile(text: string, ctx: Context): Result & { env: Record<string, string> } {
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

  const users = ins.filter((i) => i.op === 'USER').map((i) => i.args.split(':')[0]);
  const user = users[users.length - 1];
  if (!user || user === 'root' || user === '0') r.errors.push('Dockerfile: the final USER is root');

  const entrypoint =
    ins
      .filter((i) => i.op === 'ENTRYPOINT')
      .map((i) => execForm(i.args))
      .pop() ?? [];
  const cmd =
    ins
      .filter((i) => i.op === 'CMD')
      .map((i) => execForm(i.args))
      .pop() ?? [];
  const invocations = findInvocations([...entrypoint, ...cmd]);
  if (invocations.length === 0) r.errors.push('Dockerfile: CMD runs no memloom command');
  checkInvocations('Dockerfile CMD', invocations, ctx, r);
  if (!invocations.some((inv) => inv.command === 'start')) r.errors.push('Dockerfile: the default command is not `memloom start`');

  const port = Number(env.PORT || DEFAULT_PORT);
  for (const e of ins.filter((i) => i.op === 'EXPOSE'))
    for (const p of e.args.split(/\s+/)) checkApiPort('Dockerfile EXPOSE', Number(p.replace(/\/\w+$/, '')), port, r);
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
