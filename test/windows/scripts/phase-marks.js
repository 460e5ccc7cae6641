// Preloaded (`node --import …/phase-marks.js bin/cdb-harness.js …`) by bench/windows-phases.ts,
// into Windows node under Wine and into Linux node alike: writes where a CLI run's time goes as
// JSON to the file $PHASE_MARKS_FILE when the process exits. Every mark is epoch milliseconds
// (performance.timeOrigin + performance.now()), so the bench can set them against its own clock
// (the process's start before node's, its end after the exit event). node-pty is the same module
// instance the CLI loads (one CommonJS cache entry per file), wrapped here to mark the first
// debugger session: spawn called and returned, first output, `q` written, exit reported.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

const at = () => performance.timeOrigin + performance.now();
const marks = {
  origin: performance.timeOrigin,
  bootstrapped: performance.timeOrigin + performance.nodeTiming.bootstrapComplete,
};
const first = (name) => {
  if (marks[name] === undefined) marks[name] = at();
};

if (isMainThread) {
  const pty = createRequire(process.argv[1] ?? import.meta.url)('@lydell/node-pty');
  const spawn = pty.spawn;
  pty.spawn = (...args) => {
    first('spawnCalled');
    const child = spawn(...args);
    first('spawnReturned');
    child.onData(() => first('firstOutput'));
    child.onExit(() => first('ptyExit'));
    const write = child.write.bind(child);
    child.write = (data) => {
      if (data === 'q\r') first('quitWritten');
      return write(data);
    };
    return child;
  };
  process.on('exit', () => {
    marks.exit = at();
    writeFileSync(process.env.PHASE_MARKS_FILE, JSON.stringify(marks));
  });
}
