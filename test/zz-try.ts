import { spawnSync } from 'node:child_process';
import { killAllTargets, startTarget, wineEnv, sleep } from './helpers/wine.js';
import { readCommit } from '../src/workflows/dump/dump-series.js';
const target = await startTarget('commitsteps', ['16', '1500', '3']);
for (let i = 0; i < 4; i++) {
  const r = spawnSync('wine', ['build/native/commit-probe.exe', String(target.pid)], { env: wineEnv(), encoding: 'utf8' });
  const w = await readCommit(target.pid, { engine: 'winedbg', env: wineEnv() });
  console.log(r.status, r.stdout.trim(), 'winedbg', w.bytes);
  await sleep(1200);
}
console.log(target.log());
console.log(spawnSync('wine', ['build/native/commit-probe.exe', '99999'], { env: wineEnv(), encoding: 'utf8' }).stdout);
await killAllTargets();
