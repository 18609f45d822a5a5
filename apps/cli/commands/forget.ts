import { ConfigError, type Config } from '../../../src/config.js';
import { createDeps } from '../../../src/deps.js';
import { ForgetScope, forget, type ForgetResult } from '../../../src/forget/index.js';
import type { Logger } from '../../../src/logger.js';
import { flagString, type ParsedArgs } from '../args.js';
import { viaApiOrDirect } from '../remote.js';

const USAGE = 'usage: memloom forget --session S [--user U] | --user U | --dataset D | --event E [--url URL] [--api-key KEY] [--tenant T]';
const FLAG_TO_KEY = { session: 'session_id', user: 'user_id', dataset: 'dataset', event: 'event_id' } as const;

export interface ForgetIo {
  stdout: NodeJS.WritableStream;
}

/**
 * `memloom forget --session S [--user U] | --user U | --dataset D | --event E`: forgets one scope
 * and prints the counts JSON on stdout (`--session` with `--user`: that user's session only).
 *
 * Through the API when `--url` is given (the API key picks the tenant), or in embedded mode when
 * a memloom already runs on this MEMLOOM_HOME (the API its data-directory lock names) or answers on
 * HOST:PORT: its process owns the embedded database, which must not be opened twice. Otherwise the database is opened directly (`--tenant`, default `default`).
 */
export async function forgetCommand(config: Config, log: Logger, args: ParsedArgs, io: ForgetIo = { stdout: process.stdout }): Promise<void> {
  const scope = parseScope(args);
  const result = await viaApiOrDirect<ForgetResult>(config, args, { path: '/v1/forget', body: scope, what: 'forget', failed: 'FORGET_FAILED' }, async () => {
    const deps = await createDeps(config, log);
    try {
      return await forget(deps, flagString(args, 'tenant') ?? 'default', scope);
    } finally {
      await deps.close();
    }
  });
  io.stdout.write(`${JSON.stringify(result)}\n`);
}

function parseScope(args: ParsedArgs): ForgetScope {
  const given = Object.entries(FLAG_TO_KEY).filter(([flag]) => args.flags.has(flag));
  const sessionOfUser = given.length === 2 && args.flags.has('session') && args.flags.has('user');
  if (given.length !== 1 && !sessionOfUser) throw new ConfigError(USAGE);
  const scope = Object.fromEntries(given.map(([flag, key]) => [key, flagString(args, flag)]));
  const parsed = ForgetScope.safeParse(scope);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const flag = given.find(([, key]) => key === issue?.path[0])?.[0] ?? given[0]?.[0];
    throw new ConfigError(`invalid --${flag}: ${issue?.message ?? 'bad value'}\n${USAGE}`);
  }
  return parsed.data;
}
