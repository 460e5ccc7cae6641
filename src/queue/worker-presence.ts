// Whether any worker takes the collector's jobs: said once when the answer changes (none → the
// command line that starts one; some → how many), never per poll, so a collector left waiting
// for workers prints one line, not one every two seconds.
import type { Queue } from 'bullmq';
import type { AnalyzeEngineName } from '../report/analyze/analyze-record.js';
import { TRIAGE_ENGINES } from './queue-job.js';

export interface WorkerPresenceContext {
  /** The BullMQ queue name the jobs go to (engineQueueName). */
  queueName: string;
  /** The name the user gave (--queue-name), shown in the hint when it is not the default. */
  givenName: string;
  /** The Redis target as shown to the user. */
  display: string;
  engines: readonly AnalyzeEngineName[];
}

export class WorkerPresence {
  #said: boolean | undefined;

  constructor(
    private readonly queue: Pick<Queue, 'getWorkersCount'>,
    private readonly context: WorkerPresenceContext,
    private readonly say: (message: string) => void,
  ) {}

  /** Asks Redis how many workers there are while `waiting` dumps wait; says it if it changed. */
  async check(waiting: number): Promise<void> {
    if (waiting === 0) return;
    const count = await this.queue.getWorkersCount();
    const none = count === 0;
    if (none !== this.#said) this.say(none ? this.#noneMessage(waiting) : this.#someMessage(count));
    this.#said = none;
  }

  #noneMessage(waiting: number): string {
    const { engines, queueName, givenName, display } = this.context;
    const what =
      engines.length === 1
        ? engines[0]!
        : engines.length === TRIAGE_ENGINES.length
          ? 'any-engine'
          : engines.join('/');
    const nameFlag = givenName === 'cdb-harness' ? '' : ` --queue-name ${givenName}`;
    return `no worker is taking ${what} jobs from queue "${queueName}": ${waiting} dump${waiting === 1 ? '' : 's'} waiting (start one: cdb-harness worker --queue ${display} --engine ${engines.join('|')}${nameFlag})`;
  }

  #someMessage(count: number): string {
    return `${count} worker${count === 1 ? '' : 's'} on queue "${this.context.queueName}"`;
  }
}
