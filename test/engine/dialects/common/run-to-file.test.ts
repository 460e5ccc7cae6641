// runToFiles ends when the process exits, even when a child it left behind still holds its
// stdout/stderr (what Wine's services.exe does to a winedbg that booted the prefix).
import { expect } from 'chai';
import { AbortedError } from '../../../../src/errors.js';
import { runToFiles } from '../../../../src/engine/dialects/common/run-to-file.js';

describe('runToFiles', function () {
  this.timeout(20_000);

  it('returns at the exit of the process, not when an inherited output closes', async () => {
    const started = performance.now();
    // The background sleep inherits stdout and stderr and outlives the shell by 5 s.
    const result = await runToFiles('sh', ['-c', 'sleep 5 & echo "$!" >&2; echo listed'], {
      env: process.env,
      timeoutMs: 10_000,
    });
    expect(performance.now() - started).to.be.below(3000);
    expect(result).to.include({ stdout: 'listed\n', exitCode: 0, timedOut: false });
    // stderr is the pid of the sleep the shell left behind: end it (ours) now.
    expect(result.stderr).to.match(/^\d+\n$/);
    process.kill(Number(result.stderr.trim()));
  });

  it('kills at the deadline, reports a missing program, and throws when aborted', async () => {
    const slow = await runToFiles('sleep', ['10'], { env: process.env, timeoutMs: 200 });
    expect(slow).to.include({ timedOut: true, exitCode: null });
    const missing = await runToFiles('/no/such/winedbg', [], { env: process.env, timeoutMs: 1000 });
    expect(missing.spawnError).to.match(/ENOENT/);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    let error: unknown;
    try {
      await runToFiles('sleep', ['10'], {
        env: process.env,
        timeoutMs: 5000,
        signal: controller.signal,
      });
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(AbortedError);
  });
});
