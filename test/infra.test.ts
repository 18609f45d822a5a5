/**
 * Static checks of the deployment files against the code (nothing here can run: no Docker engine).
 * Parses Dockerfile, docker-compose.yml, infra/compose.dev.yml and infra/k8s/*.yaml, and checks that
 * every CLI command, queue name, configuration variable, API port, probe path, KEDA list name and
 * image reference matches what the code defines. The validators are plain functions returning error
 * strings; the last block feeds them deliberately broken samples so the checks provably can fail.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOG } from '../workers/catalog.js';
import {
  ROOT,
  read,
  parseYaml,
  parseYamlAll,
  asObj,
  asArr,
  str,
  extractObjectKeys,
  DEFAULT_PORT,
  codeContext,
  interpolate,
  composeEnv,
} from './support/infra-context.js';
import { validateCompose, nameOf, validateK8s, validateDockerfile } from './support/infra-validators.js';

const ctx = codeContext();
const REQUIRED_SHELL_ENV = { MEMLOOM_API_KEYS: 'test-key:default' };
const dockerfile = validateDockerfile(read('Dockerfile'), ctx);
const k8sFiles = readdirSync(path.join(ROOT, 'infra/k8s'))
  .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
  .sort();
const k8sDocs = k8sFiles.flatMap((f) => parseYamlAll(read(`infra/k8s/${f}`)).map((d) => ({ file: f, doc: asObj(d) })));

describe('what the code defines (extraction must not come back empty)', () => {
  it('finds the CLI commands in apps/cli/registry.ts', () => {
    expect([...ctx.commands]).toEqual(expect.arrayContaining(['start', 'api', 'worker', 'watcher', 'scheduler', 'migrate']));
  });
  it('finds queues, configuration names, probe routes and the queue prefix', () => {
    expect(ctx.queues).toEqual(new Set(CATALOG.keys()));
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
    expect(result.seen.images).toEqual(expect.arrayContaining(['pgvector/pgvector:0.8.0-pg15', 'redis:7']));
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
    expect(r.seen.images.sort()).toEqual(['pgvector/pgvector:0.8.0-pg15', 'redis:7']);
  });
});

describe('infra/k8s', () => {
  const docs = k8sDocs.map((d) => d.doc);
  const result = validateK8s(docs, ctx);
  const find = (kind: string, name: string) => asObj(docs.find((d) => d.kind === kind && nameOf(d) === name));

  it('has the expected files, each parsing to Kubernetes objects', () => {
    expect(k8sFiles).toEqual(
      expect.arrayContaining([
        'namespace.yaml',
        'configmap.yaml',
        'secret.example.yaml',
        'api.yaml',
        'worker.yaml',
        'watcher.yaml',
        'scheduler.yaml',
        'migrate-job.yaml',
        'keda-scaledobject.yaml',
      ]),
    );
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
    expect(new Set(result.seen.queues)).toEqual(new Set(CATALOG.keys()));
    expect(result.seen.env).toEqual(
      expect.arrayContaining(['DATABASE_URL', 'REDIS_URL', 'MEMLOOM_API_KEYS', 'LLM_API_KEY', 'EMBEDDINGS_API_KEY', 'HOST', 'PORT']),
    );
    expect(result.seen.probePaths).toEqual(expect.arrayContaining(['/healthz', '/readyz']));
    expect(result.seen.listNames.length).toBe(CATALOG.size);
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
    for (const secret of ['DATABASE_URL', 'REDIS_URL', 'MEMLOOM_API_KEYS', 'LLM_API_KEY', 'EMBEDDINGS_API_KEY'])
      expect(data, secret).not.toHaveProperty(secret);
    expect(Object.keys(asObj(find('Secret', 'memloom-secrets').stringData)).sort()).toEqual([
      'DATABASE_URL',
      'EMBEDDINGS_API_KEY',
      'LLM_API_KEY',
      'MEMLOOM_API_KEYS',
      'REDIS_URL',
    ]);
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
    const expectError = (pattern: RegExp) =>
      expect(
        errors.some((e) => pattern.test(e)),
        `${pattern} in\n${errors.join('\n')}`,
      ).toBe(true);
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
    const expectError = (pattern: RegExp) =>
      expect(
        errors.some((e) => pattern.test(e)),
        `${pattern} in\n${errors.join('\n')}`,
      ).toBe(true);
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
    for (const pattern of [
      /not Node 20/,
      /FOO_BAR/,
      /npm ci --omit=dev/,
      /USER is root/,
      /"memloom serve" is not a CLI command/,
      /port 3000/,
      /no HEALTHCHECK/,
      /NODE_ENV=production/,
    ]) {
      expect(
        errors.some((e) => pattern.test(e)),
        `${pattern} in\n${errors.join('\n')}`,
      ).toBe(true);
    }
  });

  it('interpolation fails on a missing required variable', () => {
    // biome-ignore-start lint/suspicious/noTemplateCurlyInString: compose's own ${...} syntax
    expect(() => interpolate('${X:?set X}', {})).toThrow(/set X/);
    expect(interpolate('${X:-d}/${Y}/$$', { Y: 'y' })).toBe('d/y/$');
    // biome-ignore-end lint/suspicious/noTemplateCurlyInString: compose's own ${...} syntax
  });
});
