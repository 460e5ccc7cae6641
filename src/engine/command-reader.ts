// Reading one command's reply: feeds the clean text stream to a CommandOutput and settles twice,
// when the command's output is complete and when the stream has been read on to the marker and
// the prompt after it (only then may the next command be written).
import type { CommandOutput } from './command-output.js';
import type { Reader } from './stop-reader.js';

export class CommandReader implements Reader {
  /** The command's output is all there; the result can be handed out. */
  readonly complete: Promise<void>;
  /** The marker and the prompt after it have arrived: the stream is framed again. */
  readonly done: Promise<void>;
  private resolveComplete: () => void = () => undefined;
  private rejectComplete: (error: Error) => void = () => undefined;
  private resolveDone: () => void = () => undefined;
  private rejectDone: (error: Error) => void = () => undefined;
  finished = false;
  /** The caller stopped waiting for this command (timeout, abort, output limit). */
  abandoned = false;

  constructor(
    readonly output: CommandOutput,
    private readonly onHardLimit: () => void,
  ) {
    this.complete = new Promise((resolve, reject) => {
      this.resolveComplete = resolve;
      this.rejectComplete = reject;
    });
    this.done = new Promise((resolve, reject) => {
      this.resolveDone = resolve;
      this.rejectDone = reject;
    });
    this.complete.catch(() => undefined);
    this.done.catch(() => undefined);
  }

  feed(text: string): void {
    if (this.finished) return;
    const state = this.output.feed(text);
    if (state === 'done') {
      this.finished = true;
      this.resolveComplete();
      this.resolveDone();
    } else if (state === 'complete') {
      this.resolveComplete();
    } else if (state === 'hard-limit') {
      this.onHardLimit();
    }
  }

  fail(error: Error): void {
    if (this.finished) return;
    this.finished = true;
    this.rejectComplete(error);
    this.rejectDone(error);
  }
}
