// `--cyborg FILE`, minidump-stackwalk's habit (rust-minidump's minidump-stackwalk: "--cyborg
// <path>: combine --human and --json", https://github.com/rust-minidump/rust-minidump/tree/main/minidump-stackwalk):
// the text a person reads goes to stdout as without it, and the JSON that --json would print goes
// to FILE, so one run serves a person and a program. The file is opened before any work starts
// (a path that cannot be written is a usage error with nothing done), written through a stream
// (inspect's JSON of many dumps is never one string) and closed before the command exits.
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Command } from 'commander';
import { errorMessage, IoError, UsageError } from '../errors.js';

export interface CyborgCliOptions {
  json?: boolean;
  cyborg?: string;
}

/** Adds `--cyborg <file>` beside the command's `--json` (`json` says what that JSON is). */
export function addCyborgOption(command: Command, json: string): Command {
  return command.option(
    '--cyborg <file>',
    `the text on stdout as usual, and ${json} (what --json prints) written to FILE (minidump-stackwalk --cyborg)`,
  );
}

/** Where a command's JSON goes: stdout (`--json`), a file (`--cyborg`), or nowhere. */
export interface JsonSink {
  /** False when the JSON goes nowhere (neither option). */
  readonly active: boolean;
  /** True when the text goes to stdout (no --json, or --cyborg). */
  readonly textOnStdout: boolean;
  /** True with --cyborg: the JSON goes to a file. */
  readonly toFile: boolean;
  write(text: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The sink for these options. `--json` with `--cyborg` is refused: one prints the JSON instead
 * of the text, the other beside it.
 */
export async function openJsonSink(options: CyborgCliOptions): Promise<JsonSink> {
  if (options.cyborg !== undefined && options.json === true) {
    throw new UsageError(
      '--json prints the JSON instead of the text, --cyborg FILE writes it to FILE beside the text: give one',
    );
  }
  if (options.cyborg === undefined) {
    const json = options.json === true;
    return {
      active: json,
      textOnStdout: !json,
      toFile: false,
      write: (text) => (json ? writeTo(process.stdout, text) : Promise.resolve()),
      close: () => Promise.resolve(),
    };
  }
  const file = options.cyborg;
  // Opened now, so a folder that is missing or read-only is said before any work starts.
  let handle;
  try {
    handle = await open(file, 'w');
  } catch (error) {
    throw new UsageError(`--cyborg ${file}: cannot write it (${errorMessage(error)})`);
  }
  const stream = createWriteStream('', { fd: handle.fd, autoClose: false });
  const failure: { error?: Error } = {};
  stream.on('error', (error) => (failure.error = error));
  return {
    active: true,
    textOnStdout: true,
    toFile: true,
    write: (text) => writeTo(stream, text),
    async close() {
      stream.end();
      await once(stream, 'finish').catch(() => undefined);
      await handle.close();
      if (failure.error !== undefined) {
        throw new IoError(`--cyborg ${file}: ${failure.error.message}`);
      }
    },
  };
}

/** Writes, waiting when the stream's buffer is full (output never piles up in memory). */
async function writeTo(stream: NodeJS.WritableStream | WriteStream, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain');
}
