// One-shot runs of the diagnostics helper (probe) against the real runtime: the lab's C# program
// run natively (test/targets/dotnet), cdbh-diag built by scripts/build-dotnet-diag.sh.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import {
  NoDiagnosticsChannelError,
  probeDotnet,
} from '../../../../src/engine/dialects/dotnet-diag/index.js';
import { diagHelperSuite, startNativeDotnet } from '../../../helpers/dotnet-native.js';

describe('dotnet-diag one-shot runs (real runtime)', function () {
  diagHelperSuite(this);

  it('refuses a process that is not .NET with NoDiagnosticsChannelError (exit 3)', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const error = await probeDotnet({ pid: child.pid ?? 0 }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(NoDiagnosticsChannelError);
      expect((error as NoDiagnosticsChannelError).reason).to.equal('not-dotnet');
      expect((error as Error).message).to.match(/is not a \.NET process/);
    } finally {
      child.kill();
    }
  });

  it('tells a .NET process whose channel is off (DOTNET_EnableDiagnostics=0) from a non-.NET one', async () => {
    const target = await startNativeDotnet(['hold', '60000'], { DOTNET_EnableDiagnostics: '0' });
    await target.waitForLine(/^holding /);
    const error = await probeDotnet({ pid: target.pid, env: target.env }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(NoDiagnosticsChannelError);
    expect((error as NoDiagnosticsChannelError).reason).to.equal('no-channel');
    expect((error as Error).message).to.match(
      /runs the \.NET runtime .* publishes no diagnostics channel/,
    );
  });

  it('probes a .NET process: the runtime folder it loaded', async () => {
    const target = await startNativeDotnet(['hold', '60000']);
    await target.waitForLine(/^holding /);
    const probe = await probeDotnet({ pid: target.pid, env: target.env });
    expect(probe.pid).to.equal(target.pid);
    expect(probe.runtime).to.match(/Microsoft\.NETCore\.App\/\d+\.\d+\.\d+$/);
  });
});
