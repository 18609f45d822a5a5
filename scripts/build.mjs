#!/usr/bin/env node
// Compiles memloom to JavaScript: the client and the hook to dist/client (scripts/build-client.mjs)
// and the server, CLI, MCP server and workers to dist/server (tsconfig.build.json), with the
// plain-JavaScript thread entries and the console's static files copied beside the compiled modules. bin/memloom.js runs
// dist/server when its stamp is newer than every source file; the template of new embedded
// databases goes to dist/pgdata-template.tgz (src/db/pgdata-template.ts). Run by `prepare` (npm ci / npm
// install / npm pack) and `pretest`. Without TypeScript installed (a production install) there is
// nothing to build with: say so and exit 0; bin/memloom.js then runs the sources through tsx.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SOURCE_DIRS } from '../bin/build-state.js';
import { buildClient } from './build-client.mjs';
import { bundleMcp } from './build-bundle.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
const out = path.join(root, 'dist/server');

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* files(full);
    else yield full;
  }
}

export async function buildServer() {
  if (!existsSync(tsc)) {
    process.stderr.write('build: typescript is not installed (production install); memloom runs its sources through tsx\n');
    return false;
  }
  const started = Date.now();
  // A process started while this build runs takes the sources, not half-written modules.
  rmSync(path.join(out, 'BUILD_STAMP'), { force: true });
  execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
  // The console's static files go beside the compiled route that serves them (apps/console).
  const consoleDir = path.join(root, 'apps/console');
  for (const dir of SOURCE_DIRS) {
    for (const file of files(path.join(root, dir))) {
      if (!file.endsWith('.mjs') && !file.startsWith(`${consoleDir}${path.sep}`)) continue;
      const target = path.join(out, path.relative(root, file));
      mkdirSync(path.dirname(target), { recursive: true });
      copyFileSync(file, target);
    }
  }
  await bundleMcp(root, out);
  // Written last: a build that stopped half-way has no new stamp, so it is not run.
  writeFileSync(path.join(out, 'BUILD_STAMP'), `${started}\n`);
  return true;
}

/**
 * The template of new embedded databases (src/db/pgdata-template.ts), from the compiled build: kept
 * when it is current. Without it memloom still starts (initdb, then every migration), slower.
 */
export async function buildTemplate() {
  const started = Date.now();
  const { writeTemplate } = await import(pathToFileURL(path.join(out, 'src/db/pgdata-template-build.js')).href);
  const { createLogger } = await import(pathToFileURL(path.join(out, 'src/logger.js')).href);
  try {
    const wrote = await writeTemplate(createLogger({ LOG_LEVEL: 'warn', PRETTY_LOGS: false }));
    if (wrote) process.stderr.write(`build: embedded database template made in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  } catch (err) {
    process.stderr.write(`build: no embedded database template (a first start runs initdb and every migration): ${err.stack ?? err}\n`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildClient();
  if (await buildServer()) await buildTemplate();
}
