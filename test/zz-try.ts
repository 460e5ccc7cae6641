import { spawnSync } from 'node:child_process';
import { killAllTargets, startTarget, wineEnv } from './helpers/wine.js';
import { makeTempDir } from './helpers/temp-dir.js';
const target = await startTarget('leak', []);
const out = makeTempDir('ht');
const r = spawnSync('node', ['bin/cdb-harness.js', 'heap-trend', String(target.pid), '--engine', 'cdb', '--debugger', 'build/dbgeng/cdb', '--interval', '1s', '--samples', '3', '--out', out], { env: wineEnv(), encoding: 'utf8', timeout: 240000 });
console.log('exit', r.status); console.log(r.stdout.slice(-2500)); console.log('ERR', r.stderr.slice(-2500));
console.log(spawnSync('sh', ['-c', `ls ${out}; head -c 3000 ${out}/samples.ndjson`], {encoding:'utf8'}).stdout);
await killAllTargets();
