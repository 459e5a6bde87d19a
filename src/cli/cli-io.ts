/** What a command module exports and what it talks through (tests pass their own `CliIo`), and how a command words a file it could not read. */

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

/** Why a file could not be read, in words (`no such file`) rather than the bare error code. */
export function fileErrorText(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'a directory, not a file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return code ?? message;
}
