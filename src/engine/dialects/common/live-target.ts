// What both dialects need to know about live targets: which targets are live (a live target must
// be detached from, never killed, when the session ends), and which pids can be attached to.
import { UsageError } from '../../../errors.js';
import type { SessionTarget } from './types.js';

export function isLiveTarget(target: SessionTarget): boolean {
  return target.kind === 'attach' || target.kind === 'attach-name' || target.kind === 'launch';
}

/** A pid reaches the debugger's command line as a number; refuse one no process can have. */
export function refuseBadPid(pid: number): void {
  if (!Number.isInteger(pid) || pid <= 0) {
    throw new UsageError(`Not a process id: ${pid}`);
  }
}
