// The queue's optional packages: found where npm put them, and when they are not, one error that
// names the install command and maps to exit code 3, before anything connects.
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { exitCodeFor } from '../../src/cli/exit-codes.js';
import { MissingPackageError } from '../../src/errors.js';
import { QUEUE_PACKAGES, requireQueuePackages } from '../../src/queue/queue-packages.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { REPO_ROOT } from '../helpers/wine.js';

interface Manifest {
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  devDependencies: Record<string, string>;
  dependencies: Record<string, string>;
}

describe('the queue packages (bullmq, ioredis)', () => {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as Manifest;

  it('are optional peers of package.json at the versions the code names, and no dependency', () => {
    expect(manifest.peerDependencies).to.deep.include(QUEUE_PACKAGES);
    for (const name of Object.keys(QUEUE_PACKAGES)) {
      expect(manifest.peerDependenciesMeta[name]?.optional, name).to.equal(true);
      expect(manifest.devDependencies[name], name).to.equal(QUEUE_PACKAGES[name]);
      expect(manifest.dependencies, name).to.not.have.property(name);
    }
  });

  it('are found from the package itself (this checkout has them)', () => {
    expect(() => requireQueuePackages()).to.not.throw();
  });

  it('when absent: one error naming both and the npm command, exit code 3', () => {
    const project = makeTempDir('noqueue');
    writeFileSync(join(project, 'package.json'), '{ "name": "no-queue", "private": true }\n');
    let caught: unknown;
    try {
      requireQueuePackages(pathToFileURL(join(project, 'index.js')));
    } catch (error) {
      caught = error;
    }
    expect(caught).to.be.instanceOf(MissingPackageError);
    const message = (caught as Error).message;
    expect(message).to.include('needs bullmq and ioredis, which are not installed');
    expect(message).to.include('npm install bullmq@6.7.0 ioredis@6.0.0');
    expect(exitCodeFor(caught)).to.equal(3);
  });
});
