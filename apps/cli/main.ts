import 'dotenv/config';
import { ConfigError, loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { isMemloomError } from '../../src/errors.js';
import { parseArgs } from './args.js';
import { UNREACHABLE_HINT } from './remote.js';
import { booleanFlags, commandUsage, findCommand, globalUsage, unknownFlags } from './registry.js';

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const name = argv.find((a) => !a.startsWith('-'));
  const spec = name ? findCommand(name) : undefined;
  const args = parseArgs(argv, booleanFlags(spec));
  if (!name || name === 'help') {
    process.stdout.write(`${globalUsage()}\n`);
    if (!name && !args.flags.has('help')) process.exitCode = argv.length === 0 ? 0 : 2;
    return;
  }
  if (!spec) {
    process.stderr.write(`memloom: unknown command "${name}"\n\n${globalUsage()}\n`);
    process.exitCode = 2;
    return;
  }
  if (args.flags.has('help')) {
    process.stdout.write(`${commandUsage(spec)}\n`);
    return;
  }
  const unknown = unknownFlags(spec, args);
  if (unknown.length > 0) {
    process.stderr.write(
      `memloom ${spec.name}: unknown option${unknown.length > 1 ? 's' : ''} ${unknown.map((f) => `--${f}`).join(', ')}\n\n${commandUsage(spec)}\n`,
    );
    process.exitCode = 2;
    return;
  }
  const positionals = [...args.positionals];
  positionals.splice(positionals.indexOf(name), 1);
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`memloom: ${err.message}\n`);
      process.exitCode = 2;
      return;
    }
    throw err;
  }
  const log = createLogger(config);
  try {
    const command = await spec.load();
    await command(config, log, { ...args, positionals });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`memloom ${spec.name}: ${err.message}\n`);
      process.exitCode = 2;
      return;
    }
    if (isMemloomError(err)) {
      // "fetch failed" alone told nobody where memloom was expected or what to do.
      const hint = err.code === 'API_UNREACHABLE' ? `${err.message.endsWith('.') ? '' : '.'} ${UNREACHABLE_HINT}` : '';
      process.stderr.write(`memloom ${spec.name}: ${err.message}${hint}\n`);
      log.debug({ err }, 'command failed');
    } else log.error({ err }, 'command failed');
    log.flush?.();
    process.exitCode = 1;
    // The process may hold open handles (pools, servers) after a failed start.
    setTimeout(() => process.exit(1), 200).unref();
  }
}

await main();
