// A real redis-server (the Debian package scripts/install-system-deps.sh installs) for one test:
// a free 127.0.0.1 port, its own temp folder, append-only persistence when asked (the tests that
// restart it), stopped and reaped after. restart() keeps the port and the folder, so clients
// reconnect to the same URL and an append-only Redis comes back with its jobs.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { makeTempDir } from './temp-dir.js';

export function redisAvailable(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

export class RedisServer {
  private child: ChildProcess | undefined;
  private constructor(
    readonly port: number,
    readonly dir: string,
    private readonly appendOnly: boolean,
  ) {}

  /** The redis-server process (benchmarks read its CPU time from /proc). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(options: { appendOnly?: boolean } = {}): Promise<RedisServer> {
    const server = new RedisServer(
      await freePort(),
      makeTempDir('redis'),
      options.appendOnly === true,
    );
    await server.launch();
    return server;
  }

  private async launch(): Promise<void> {
    const args = [
      '--port',
      String(this.port),
      '--bind',
      '127.0.0.1',
      '--dir',
      this.dir,
      '--save',
      '',
      '--daemonize',
      'no',
      ...(this.appendOnly
        ? ['--appendonly', 'yes', '--appendfsync', 'always']
        : ['--appendonly', 'no']),
    ];
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    let log = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`redis-server did not start:\n${log}`)),
        15_000,
      );
      const onData = (chunk: Buffer) => {
        log += chunk.toString();
        // Sample: "1234:M 27 Nov 2026 19:00:00.000 * Ready to accept connections tcp"
        if (/Ready to accept connections/.test(log)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited (${String(code)}):\n${log}`));
      });
    });
    child.removeAllListeners('exit');
  }

  /** Stops it (SIGKILL: a crash; SIGTERM: a clean shutdown) and waits for the exit. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
  }

  async restart(downMs = 1_000): Promise<void> {
    await this.stop('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, downMs));
    await this.launch();
  }
}
