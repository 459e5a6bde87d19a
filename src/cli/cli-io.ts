/** What a command module exports and what it talks through (tests pass their own `CliIo`). */

/** Where a command writes and what it reads from its surroundings (tests pass their own). */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

/** What every `*-command.ts` module exports. Resolves to the process exit code. */
export interface CliCommandModule {
  runCommand(args: string[], io: CliIo): Promise<number>;
  /** Usage and options, printed by `switchboard <command> --help`. */
  HELP?: string;
}
