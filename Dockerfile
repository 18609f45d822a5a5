# syntax=docker/dockerfile:1
#
# memloom image: one image for every role. The role is the command:
#   docker run … memloom:local memloom api | watcher | worker --queues triage,chunk,embed | scheduler | migrate
# The default command is `memloom start` (all roles in one process). Without DATABASE_URL that is the
# embedded mode (PGlite under MEMLOOM_HOME): single process only; mount a volume at /data.
#
# The image runs the compiled build (dist/, from `npm run build` in the build stage): no TypeScript
# compiler and no tsx at run time.

ARG NODE_IMAGE=node:20-bookworm-slim

# ---- build --------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json tsconfig.client.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY scripts ./scripts
COPY src ./src
COPY apps ./apps
COPY workers ./workers
# The build makes the template of new embedded databases from the migrations (src/db/pgdata-template.ts).
COPY prisma ./prisma
RUN node scripts/build.mjs

# ---- dependencies -------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# --omit=dev: the embedders are regular dependencies. --ignore-scripts: no dependency needs
# an install script (esbuild and msgpackr take their prebuilt binaries from optional packages), so
# the build never depends on a postinstall download.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm cache clean --force

# ---- runtime ------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    MEMLOOM_HOME=/data/memloom \
    EVENTS_DIR=/data/events \
    PORT=8787

COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY prisma ./prisma
COPY bin ./bin
COPY --from=build /app/dist ./dist

# `memloom` on PATH (what npm would link for the package's "bin"); state directories for the
# non-root user. Application files stay owned by root: the process cannot modify its own code.
RUN chmod 0755 bin/memloom.js \
 && ln -s /app/bin/memloom.js /usr/local/bin/memloom \
 && mkdir -p /data/memloom /data/events \
 && chown -R node:node /data

USER node
EXPOSE 8787

# Only meaningful for roles that serve HTTP (start, api); compose and Kubernetes disable or replace
# it for workers, the watcher and the scheduler.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8787) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# SIGTERM drains in-flight jobs (up to 30 s) and exits 0: give the container a stop timeout above that.
STOPSIGNAL SIGTERM
CMD ["node", "bin/memloom.js", "start"]
