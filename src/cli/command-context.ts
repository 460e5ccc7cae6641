// What every subcommand module gets: the commander program to attach to, and a way to report
// the exit code its action decided (commander's async actions return nothing useful).
import type { Command } from 'commander';

export interface CommandContext {
  program: Command;
  setExitCode(code: number): void;
}

export type RegisterCommand = (context: CommandContext) => void;
