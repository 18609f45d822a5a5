// `memloom mcp` as one bundled module beside the compiled CLI (dist/server/apps/cli/mcp.bundle.js).
// An agent starts `memloom mcp` at every session and waits for its answer to `initialize`; loaded
// module by module, zod (with its 64 locale files), the MCP SDK, ajv and zod-to-json-schema took
// about half of the ~390 ms. Bundled (esbuild, tree-shaken, one file) the same code starts in about
// 60% of the time. bin/memloom.js runs the bundle for `memloom mcp` only; every other command
// loads the compiled modules. Without esbuild (a production install) there is no bundle and
// `memloom mcp` runs the compiled modules too.
import { existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The bundle's path under the compiled build (dist/server). */
export const MCP_BUNDLE = 'apps/cli/mcp.bundle.js';

// Left to node_modules: pino starts its transports (pino-pretty on a terminal) in a worker thread
// that resolves them from pino's own folder, which a bundle does not have.
const EXTERNAL_PACKAGES = ['pino'];

/**
 * Bundles dist/server/apps/cli/main.js with the `mcp` command. The other commands stay dynamic
 * imports of the compiled modules beside the bundle (./commands/*.js), so the bundle is the whole
 * CLI, loading the rest only when asked. Returns false when esbuild is not installed.
 * @param {string} root the package's root directory
 * @param {string} out the compiled build's directory (dist/server)
 */
export async function bundleMcp(root, out) {
  const target = path.join(out, MCP_BUNDLE);
  rmSync(target, { force: true });
  let esbuild;
  try {
    esbuild = await import(createRequire(path.join(root, 'package.json')).resolve('esbuild'));
  } catch {
    process.stderr.write('build: esbuild is not installed; `memloom mcp` runs the compiled modules\n');
    return false;
  }
  const entry = path.join(out, 'apps/cli/main.js');
  if (!existsSync(entry)) throw new Error(`build: ${entry} is missing`);
  await esbuild.build({
    entryPoints: [entry],
    outfile: target,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: EXTERNAL_PACKAGES,
    logLevel: 'warning',
    // CommonJS packages inside (ajv, dotenv) require Node's built-ins.
    banner: { js: "import { createRequire as __memloomRequire } from 'node:module'; const require = __memloomRequire(import.meta.url);" },
    plugins: [
      {
        name: 'commands-stay-modules',
        setup(build) {
          // Every command but `mcp` (and the hook it may run) stays the compiled module it is.
          build.onResolve({ filter: /^\.\.?\/(commands|hook)\// }, (args) => {
            if (args.kind !== 'dynamic-import' || args.path === './commands/mcp.js') return undefined;
            return { path: args.path, external: true };
          });
        },
      },
    ],
  });
  return true;
}
