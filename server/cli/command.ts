/**
 * One operator CLI command (`npm run admin -- <name>`). server/cli/admin.ts keeps the table of
 * them, merged with the areas' own (webhooks/cli.ts, retention/cli.ts): a new command is one
 * entry there, and `--help` lists it with its summary, usage and examples.
 */
export type Flags = Record<string, string | boolean | undefined>;

interface CommandResult {
  json: unknown;
  text: string;
  /** A streaming command (webhooks:tail) has printed its lines already. */
  streamed?: boolean;
  /** Exit code when the command ran but found a problem (`doctor`); 0 by default. */
  exitCode?: number;
}

export interface Command {
  /** One line: what the command does, shown by `--help`. */
  summary: string;
  /** Its options, after the command name: `integration:create --merchant NAME [--json]`. */
  usage: string;
  /** Whole command lines a reader can copy, shown by `<command> --help`. */
  examples?: readonly string[];
  options: Record<string, { type: 'string' | 'boolean' }>;
  run: (f: Flags) => Promise<CommandResult>;
}
