// How `analyze` ends when it is told to stop, and who may write into its --out (issue 30, item
// 13): SIGTERM (systemd, Kubernetes, `kill`) is a stop like Ctrl-C (the records in flight, then
// an interrupted summary, exit 130), and a second run into an --out another run is writing is
// refused instead of doubling every record. Real CLI processes on generated dumps.
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { dumpBatch } from '../../queue/queue-helpers.js';
import type { AnalyzeSummary } from '../../../src/report/analyze/analyze-record.js';

describe('analyze: SIGTERM and a second run into the same --out', function () {
  this.timeout(180_000);

  it('treats SIGTERM like Ctrl-C: summary written, interrupted, exit 130', async () => {
    const input = dumpBatch(400);
    const out = makeTempDir('sigterm-out');
    let signalled = false;
    const run = await runCli(
      ['analyze', input, '--engine', 'builtin', '--jobs', '1', '--threads', '0', '--out', out],
      {
        onStderr: (soFar, child) => {
          if (!signalled && /\b\d+\/400 +ok [1-9]/.test(soFar)) {
            signalled = true;
            child.kill('SIGTERM');
          }
        },
      },
    );
    expect(signalled, run.stderr).to.equal(true);
    expect(run.code, run.stderr).to.equal(130);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as AnalyzeSummary;
    expect(summary.interrupted).to.equal(true);
    expect(summary.dumps).to.be.within(1, 399);
    expect(existsSync(join(out, 'report.html'))).to.equal(true);
    // The lock is gone with the run.
    expect(existsSync(join(out, '.cdb-harness.lock'))).to.equal(false);
  });

  it('refuses a second run into an --out another run is writing', async () => {
    const input = dumpBatch(400);
    const out = makeTempDir('locked-out');
    let second: Awaited<ReturnType<typeof runCli>> | undefined;
    let started = false;
    const first = await runCli(
      ['analyze', input, '--engine', 'builtin', '--jobs', '1', '--threads', '0', '--out', out],
      {
        timeoutMs: 170_000,
        onStderr: (soFar, child) => {
          if (started || !/\b\d+\/400 +ok [1-9]/.test(soFar)) return;
          started = true;
          void runCli(['analyze', input, '--engine', 'builtin', '--out', out, '--resume']).then(
            (run) => {
              second = run;
              child.kill('SIGINT');
            },
          );
        },
      },
    );
    expect(started, first.stderr).to.equal(true);
    expect(second?.code, second?.stderr).to.equal(2);
    expect(second?.stderr).to.match(/--out .* is in use by another analyze run \(pid \d+ on /);
    // The first run's records: each dump once.
    const files = readFileSync(join(out, 'records.ndjson'), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => (JSON.parse(l) as { file: string }).file);
    expect(new Set(files).size).to.equal(files.length);
    expect(first.code, first.stderr).to.equal(130);
  });
});
