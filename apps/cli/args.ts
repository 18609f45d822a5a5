/** Argv parsing: positionals plus `--flag value`, `--flag=value` and boolean `--flag`. */
export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string | true>;
}

/**
 * `booleans` are flags that never take a value (`--all`), so the word after one stays a
 * positional. Without the set, a flag followed by a word that does not start with `--` takes it.
 */
export function parseArgs(argv: string[], booleans: ReadonlySet<string> = new Set()): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === '-h') flags.set('help', true);
    else if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      if (eq > 0) flags.set(arg.slice(2, eq), arg.slice(eq + 1));
      else {
        const name = arg.slice(2);
        const next = argv[i + 1];
        if (!booleans.has(name) && name !== 'help' && next !== undefined && !next.startsWith('--')) {
          flags.set(name, next);
          i++;
        } else flags.set(name, true);
      }
    } else positionals.push(arg);
  }
  return { positionals, flags };
}

export function flagString(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags.get(name);
  return typeof v === 'string' ? v : undefined;
}
