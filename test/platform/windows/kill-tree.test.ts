// The Windows kill-tree's decisions, with taskkill and the process table stood in for (its real
// run under Windows node is test/windows/pty.windows.ts).
import { expect } from 'chai';
import { killTreeWindows, type CommandResult } from '../../../src/platform/windows/kill-tree.js';
import { TargetError } from '../../../src/errors.js';

function rig(results: CommandResult[], aliveAfter: number) {
  const calls: string[] = [];
  let runs = 0;
  return {
    calls,
    options: {
      deadlineMs: 200,
      alive: () => runs < aliveAfter,
      run: (file: string, args: readonly string[]) => {
        calls.push([file, ...args].join(' '));
        return Promise.resolve(results[runs++] ?? { exitCode: 1, output: '' });
      },
    },
  };
}

describe('killTreeWindows', () => {
  it('stops after taskkill /T /F when it worked', async () => {
    const { calls, options } = rig([{ exitCode: 0, output: 'SUCCESS' }], 1);
    await killTreeWindows(42, options);
    expect(calls).to.deep.equal(['taskkill /T /F /PID 42']);
  });

  it('falls back to taskkill /F when /T is rejected (Wine 8)', async () => {
    const { calls, options } = rig(
      [
        { exitCode: 1, output: 'Error: Unknown or invalid command line option specified.' },
        { exitCode: 0, output: '' },
      ],
      2,
    );
    await killTreeWindows(42, options);
    expect(calls).to.deep.equal(['taskkill /T /F /PID 42', 'taskkill /F /PID 42']);
  });

  it('throws a TargetError naming what each step said when the process survives', async () => {
    const { options } = rig(
      [
        { exitCode: 1, output: 'Error: Unknown or invalid command line option specified.' },
        { exitCode: 1, output: 'access denied' },
      ],
      99,
    );
    const error = await killTreeWindows(999_999_999, options).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(TargetError);
    expect((error as Error).message).to.match(
      /taskkill \/T \/F: exit 1 Error: Unknown.*taskkill \/F: exit 1 access denied/,
    );
  });
});
