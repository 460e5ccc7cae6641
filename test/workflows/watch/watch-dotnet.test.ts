// watch on Linux .NET with no debugger, end to end: the real CLI, the lab's C# program run natively
// (test/targets/dotnet), the real runtime and its diagnostics channel through cdbh-diag.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processGone } from '../../../src/workflows/watch/dotnet-target.js';
import { lineOfEvent } from '../../../src/workflows/watch/watch-dotnet.js';
import { exceptionSignature } from '../../../src/workflows/watch/signature.js';
import type {
  WatchExceptionLine,
  WatchSummary,
} from '../../../src/workflows/watch/watch-records.js';
import { validate } from '../../../src/report/schemas.js';
import { runCli } from '../../helpers/cli.js';
import { diagHelperSuite, startNativeDotnet } from '../../helpers/dotnet-native.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

function readLines(out: string): WatchExceptionLine[] {
  return readFileSync(join(out, 'exceptions.ndjson'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as WatchExceptionLine);
}

describe('watch: the exceptions.ndjson line of one runtime event', () => {
  // The shape of a real ExceptionThrown_V1 line from cdbh-diag (lab program, .NET 10.0.12).
  const event = {
    kind: 'exception' as const,
    seq: 4,
    t: Date.parse('2026-12-06T04:47:12.594Z'),
    type: 'CdbHarness.Targets.WidgetException',
    message: 'cdbh: widget failed',
    hresult: '0x80131500',
    flags: 19,
    threadId: 10879,
    eip: '0x0',
    frames: [
      'System.Private.CoreLib!System.Runtime.EH.DispatchEx',
      'cdbh-dotnet!CdbHarness.Targets.Program.ThrowWithInner',
      'cdbh-dotnet!CdbHarness.Targets.Program.Exceptions',
      'cdbh-dotnet!CdbHarness.Targets.Program.Main',
    ],
  };

  it('has the cdb path fields (CLR code, type, message, HRESULT, hex thread) and drops the dispatcher frame', () => {
    const line = lineOfEvent(event, 7, 10, event.t + 30);
    expect(line).to.include({
      index: 7,
      chance: 'first',
      code: '0xe0434352',
      clrType: 'CdbHarness.Targets.WidgetException',
      clrMessage: 'cdbh: widget failed',
      hresult: '0x80131500',
      threadId: '0x2a7f',
      eventSeq: 4,
      eventDeliveryMs: 30,
      suspendedMs: 0,
    });
    expect(line.frames[0]).to.equal('cdbh-dotnet!CdbHarness.Targets.Program.ThrowWithInner');
    expect(line.exceptionFlags).to.deep.equal(['hasInnerException', 'nested']);
    // The signature is the debugger path's own (signature.ts), over the frames left.
    expect(line.signature).to.equal(
      exceptionSignature({
        code: '0xe0434352',
        clrType: event.type,
        frames: event.frames.slice(1),
      }),
    );
  });

  it('keeps at most --frames frames', () => {
    expect(lineOfEvent(event, 1, 1, event.t).frames).to.have.length(1);
  });
});

describe('watch on Linux .NET (real runtime, no debugger)', function () {
  diagHelperSuite(this);

  // null, inner, threads come first: data only; then two InvalidOperationExceptions; the program
  // then holds in a catch block for a minute, running. It starts once the watch says it is on.
  const ORDER = 'null,inner,threads,invalid-op,invalid-op,hold';

  /**
   * Starts the lab program's `exceptions` mode held at its --wait-file, runs the CLI's
   * `watch --pid PID … --out DIR --json` on it and lets the program go once the watch is on.
   * The run must exit 0; its summary and exceptions.ndjson lines come back.
   */
  async function watchLabProgram(programArgs: string[], watchArgs: string[]) {
    const out = makeTempDir('watch-dotnet');
    const release = join(out, 'go');
    const target = await startNativeDotnet(['exceptions', '--wait-file', release, ...programArgs]);
    const args = ['watch', '--pid', String(target.pid), ...watchArgs, '--out', out, '--json'];
    const run = await runCli(args, {
      env: { ...target.env, CDB_PATH: '' },
      timeoutMs: 150_000,
      onStderr: (soFar) => {
        if (/^Watching /m.test(soFar) && !existsSync(release)) writeFileSync(release, '');
      },
    });
    expect(run.code, run.stderr).to.equal(0);
    return { target, summary: JSON.parse(run.stdout) as WatchSummary, lines: readLines(out) };
  }

  for (const filter of [
    ['-f', 'InvalidOperationException'],
    ['--include', 'type:System.InvalidOperationException'],
  ]) {
    it(`-e 1 ${filter.join(' ')} -ma -n 1: one dump on the first such throw, every other exception logged, the program left running`, async () => {
      const { target, summary, lines } = await watchLabProgram(
        ['-i', '200', '--acts', ORDER, '--hold', '60000'],
        ['-e', '1', ...filter, '-ma', '-n', '1'],
      );
      expect(summary).to.include({
        engine: 'dotnet-diag',
        dumps: 1,
        endReason: 'max-dumps',
        targetAlive: true,
      });
      expect(summary.eventsLost).to.equal(0);
      const types = lines.map((l) => l.clrType);
      expect(types).to.include.members([
        'System.NullReferenceException',
        'System.FormatException',
        'CdbHarness.Targets.WidgetException',
        'System.TimeoutException',
        'System.InvalidOperationException',
      ]);
      expect(types.filter((t) => t === 'System.TimeoutException')).to.have.length(4);
      const dumped = lines.filter((l) => l.action === 'dumped');
      expect(dumped).to.have.length(1);
      const first = lines.find((l) => l.clrType === 'System.InvalidOperationException');
      expect(dumped[0]).to.equal(first);
      expect(dumped[0]?.dumpVerified).to.equal(true);
      expect(dumped[0]?.dumpStartAfterThrowMs).to.be.a('number');
      expect(dumped[0]?.frames[0]).to.equal(
        'cdbh-dotnet!CdbHarness.Targets.Program.ThrowInvalidOperation',
      );
      expect(existsSync(dumped[0]?.dumpPath ?? '')).to.equal(true);
      expect(
        lines.filter((l) => l.action !== 'dumped').every((l) => l.reason !== undefined),
      ).to.equal(true);
      for (const line of lines) expect(validate('watchException', line).errors).to.deep.equal([]);
      expect(validate('watchSummary', summary).errors).to.deep.equal([]);
      // Each exception once: the runtime's sequence numbers have no gap and no repeat.
      const seqs = lines.map((l) => l.eventSeq);
      expect(new Set(seqs).size).to.equal(seqs.length);
      expect(target.exited()).to.equal(false);
    });
  }

  it('a target that exits mid-watch: the log kept, exit 0, target-exited; an uncaught exception is logged too', async () => {
    const { summary, lines } = await watchLabProgram(
      ['-i', '100', '--acts', 'invalid-op,threads,unhandled'],
      ['--include', 'message:/nothing matches this/'],
    );
    expect(summary).to.include({ endReason: 'target-exited', targetAlive: null, dumps: 0 });
    // The uncaught ArgumentException's event is logged when the runtime flushes it before its
    // abort (most runs); an abort can also cut it off, so only the caught ones are required.
    expect(lines.map((l) => l.clrType)).to.include('System.InvalidOperationException');
    // A filter that matches nothing: every line logged as data, none dumped.
    expect(lines.every((l) => l.action === 'skipped' && l.reason === 'filter')).to.equal(true);
    expect(lines.length).to.be.within(5, 6);
  });

  it('a process that is not .NET: a clear error, exit 3', async () => {
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      const out = makeTempDir('watch-dotnet');
      const run = await runCli(
        ['watch', '--pid', String(child.pid), '--engine', 'dotnet-diag', '--out', out],
        { timeoutMs: 60_000 },
      );
      expect(run.code, run.stderr).to.equal(3);
      expect(run.stderr).to.match(/is not a \.NET process/);
    } finally {
      child.kill();
    }
  });

  // The launched program inherits the CLI's stderr, so the run ends when the program does: a short
  // --hold. Its throws all come from one thread that then sleeps: before the helper's heartbeat
  // (Streaming.cs) they were held until the program exited in about half the runs.
  it('launches a .NET program after --, held at its start until the session is on: its first throw is seen', async () => {
    const out = makeTempDir('watch-dotnet');
    const program = join('build', 'dotnet', 'linux-x64', 'cdbh-dotnet');
    const dir = makeTempDir('watch-dotnet-tmp');
    const run = await runCli(
      [
        'watch',
        '--out',
        out,
        '--json',
        '-f',
        'type:InvalidOperationException',
        '-n',
        '1',
        '-mm',
        '--',
        program,
        'exceptions',
        '-i',
        '0',
        '--acts',
        'invalid-op,hold',
        '--hold',
        '5000',
      ],
      { env: { ...process.env, TMPDIR: dir, CDB_PATH: '' }, timeoutMs: 120_000 },
    );
    expect(run.code, run.stderr).to.equal(0);
    const summary = JSON.parse(run.stdout) as WatchSummary;
    expect(summary).to.include({ engine: 'dotnet-diag', dumps: 1 });
    const lines = readLines(out);
    expect(lines[0]?.clrType).to.equal('System.InvalidOperationException');
    expect(lines[0]?.action).to.equal('dumped');
    // It has exited by now (the run ended with its stderr); a kill is for a run that went wrong.
    if (summary.process.pid !== undefined && !processGone(summary.process.pid))
      process.kill(summary.process.pid, 'SIGTERM');
  });
});
