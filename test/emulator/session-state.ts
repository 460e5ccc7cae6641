// The record a test reads after the session to learn what a real cdb would have done to the target:
// did the harness quit with `q` (killing a live target) or `qd` (detaching), was cdb killed, did the
// target survive. Rewritten after every change, atomically, so it is current even if the emulator
// is killed with SIGKILL.
import { renameSync, writeFileSync } from 'node:fs';
import type { TargetKind } from './emulator-args.js';

export type EndReason =
  | 'q'
  | 'qd'
  | 'qq'
  | 'Q'
  /** The pty closed or the emulator got SIGHUP/SIGTERM: the debugger process was killed. */
  | 'killed'
  /** A scenario fault made the debugger exit mid-command. */
  | 'crashed'
  /** The target process ended and cdb ended with it. */
  | 'target-exited'
  | 'attach-failed';

export interface SessionRecord {
  emulatorPid: number;
  argv: string[];
  target: TargetKind;
  ended: EndReason | null;
  /** False once a real cdb would have terminated the target (or the target exited by itself). */
  targetAlive: boolean;
  detached: boolean;
  noninvasive: boolean;
  detachOnExit: boolean;
  /** Every command cdb executed, one entry per `;`-separated command, in order. */
  commands: string[];
  interrupts: number;
  dumps: string[];
  exitCode: number | null;
}

export class SessionState {
  readonly record: SessionRecord;

  constructor(
    private readonly file: string | undefined,
    init: Pick<SessionRecord, 'argv' | 'target' | 'noninvasive' | 'detachOnExit'>,
  ) {
    this.record = {
      emulatorPid: process.pid,
      ...init,
      ended: null,
      targetAlive: true,
      detached: false,
      commands: [],
      interrupts: 0,
      dumps: [],
      exitCode: null,
    };
    this.save();
  }

  update(change: (record: SessionRecord) => void): void {
    change(this.record);
    this.save();
  }

  private save(): void {
    if (this.file === undefined) return;
    const temp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(this.record, null, 2)}\n`);
    renameSync(temp, this.file);
  }
}
