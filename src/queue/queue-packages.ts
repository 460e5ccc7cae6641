// The job queue's npm packages, bullmq and ioredis, are optional peer dependencies of cdb-harness:
// with msgpackr and the rest they come to about 10 MB, for a feature most installs never use
// (`analyze --queue`, `worker`). npm does not install an optional peer by itself; whoever runs a
// queue adds them (`npm install bullmq ioredis`), and until then the queue commands stop here
// with that line, exit 3, before anything connects. The versions are package.json's
// peerDependencies (test/queue/queue-packages.test.ts keeps them equal).
import { createRequire } from 'node:module';
import { MissingPackageError } from '../errors.js';

/** The queue's packages and the versions this release is tested with. */
export const QUEUE_PACKAGES: Readonly<Record<string, string>> = {
  bullmq: '6.7.0',
  ioredis: '6.0.0',
};

/**
 * Throws MissingPackageError naming the install command when a queue package cannot be found
 * from `from` (this module's own location by default; tests give an empty project).
 */
export function requireQueuePackages(from: string | URL = import.meta.url): void {
  const resolveFrom = createRequire(from);
  const missing = Object.keys(QUEUE_PACKAGES).filter((name) => {
    try {
      resolveFrom.resolve(name);
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length === 0) return;
  const install = missing.map((name) => `${name}@${QUEUE_PACKAGES[name] ?? 'latest'}`).join(' ');
  throw new MissingPackageError(
    `the job queue (analyze --queue, worker) needs ${missing.join(' and ')}, which ${missing.length === 1 ? 'is' : 'are'} not installed: npm install ${install} (optional packages: everything else runs without them)`,
  );
}
