import type { Command } from './command';

/** `-h`, `--help` and `help` ask for help wherever they stand; after `--` they are arguments. */
export function wantsHelp(args: readonly string[]): boolean {
  for (const a of args) {
    if (a === '--') return false;
    if (a === '-h' || a === '--help') return true;
  }
  return false;
}

/** Every command with its one-line summary, then how to ask for more. */
export function overallHelp(commands: Record<string, Command>): string {
  const width = Math.max(...Object.keys(commands).map((n) => n.length));
  return [
    'usage: npm run admin -- <command> [options]',
    '       npm run admin -- <command> --help   (its options and examples)',
    '       npm run admin -- --version',
    '',
    'Every command prints one JSON object with --json, exits 0 on success and 2 on bad input.',
    'It works on the DATA_DIR (or DATABASE_URL) of the environment, beside a running server.',
    '',
    'commands:',
    ...Object.entries(commands)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
  ].join('\n');
}

/** One command: what it does, its usage and examples. */
export function commandHelp(name: string, command: Command): string {
  return [
    `usage: npm run admin -- ${command.usage}`,
    '',
    command.summary,
    ...(command.examples?.length ? ['', 'examples:', ...command.examples.map((e) => `  ${e}`)] : []),
  ].join('\n');
}
