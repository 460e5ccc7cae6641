// A private X server (Xvfb, Debian package xvfb) for tests that need Wine to make windows (dump
// -h): started on a display number no other X server holds, killed and reaped by stop().
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { pollUntil } from './wine.js';

export interface Xvfb {
  display: string;
  stop(): Promise<void>;
}

export function xvfbAvailable(): boolean {
  return spawnSync('sh', ['-c', 'command -v Xvfb'], { stdio: 'ignore' }).status === 0;
}

/** Starts Xvfb on the first free display from :90 and waits for its socket. */
export async function startXvfb(): Promise<Xvfb> {
  let number = 90;
  while (existsSync(`/tmp/.X${number}-lock`) || existsSync(`/tmp/.X11-unix/X${number}`)) number++;
  const display = `:${number}`;
  const child: ChildProcess = spawn(
    'Xvfb',
    [display, '-nolisten', 'tcp', '-screen', '0', '640x480x24'],
    {
      stdio: 'ignore',
    },
  );
  let exited = false;
  child.on('exit', () => (exited = true));
  const stop = async () => {
    if (!exited) child.kill('SIGTERM');
    await pollUntil(() => (exited ? true : undefined), 5000, `Xvfb ${display} to exit`);
  };
  try {
    await pollUntil(
      () => (existsSync(`/tmp/.X11-unix/X${number}`) ? true : exited ? true : undefined),
      10_000,
      `Xvfb ${display} to listen`,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  if (exited) throw new Error(`Xvfb ${display} exited at start`);
  return { display, stop };
}
