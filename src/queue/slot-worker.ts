// One `cdb-harness worker` serves several BullMQ queues (its engine's, and each engine set that
// holds its engine: queue-job.ts), but `--jobs N` is one budget: N dumps at once in all. BullMQ's
// `concurrency` is per Worker object and it has no budget shared across queues
// (https://github.com/taskforcesh/bullmq/issues/610), so each queue's Worker is a SlotWorker that
// takes a job out of Redis only with a slot of the shared budget reserved for it: a job is never
// held locked by a busy worker while another could run it.
//
// Where the slot is taken: BullMQ moves a job from waiting to active in `moveToActive` (the main
// loop's fetch), and, when a job finishes, in the same Redis call that completes it (`fetchNext`,
// one round trip instead of two). A job fetched that way inherits the finished job's slot; a
// finished job's slot is handed on like that only when no other queue is waiting for a slot, so
// one busy queue cannot starve the others.
import { Worker, type Job, type Processor, type WorkerOptions } from 'bullmq';

/** A fetch waiting for a slot: `granted` is true with the slot reserved, false if cancelled. */
export interface SlotTicket {
  granted: Promise<boolean>;
  /** No slot wanted any more (a slot already granted stays the caller's). */
  cancel: () => void;
}

/** The shared budget: `size` slots, waiters served first come, first served. */
export class SlotBudget {
  private free: number;
  private readonly waiters: ((got: boolean) => void)[] = [];
  private closed = false;

  constructor(readonly size: number) {
    this.free = size;
  }

  /** How many fetches wait for a slot. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** A slot now, or none (never waits). */
  tryTake(): boolean {
    if (this.closed || this.free === 0) return false;
    this.free--;
    return true;
  }

  take(): SlotTicket {
    if (this.tryTake() || this.closed) {
      return { granted: Promise.resolve(!this.closed), cancel: () => undefined };
    }
    let wake!: (got: boolean) => void;
    const granted = new Promise<boolean>((resolve) => (wake = resolve));
    this.waiters.push(wake);
    return {
      granted,
      cancel: () => {
        const at = this.waiters.indexOf(wake);
        if (at < 0) return;
        this.waiters.splice(at, 1);
        wake(false);
      },
    };
  }

  give(): void {
    const next = this.waiters.shift();
    if (next !== undefined) next(true);
    else this.free++;
  }

  /** Stopping: waiting fetches get no slot (they return no job). */
  close(): void {
    this.closed = true;
    for (const wake of this.waiters.splice(0)) wake(false);
  }
}

export class SlotWorker<D, R> extends Worker<D, R> {
  /** Tokens whose job holds a slot (a job fetched by `fetchNext` keeps its predecessor's token). */
  private readonly holding = new Set<string>();
  /** Jobs this Worker holds that its main loop has not started yet. */
  private unstarted = 0;
  /** Cancels this Worker's fetch waiting for a slot. */
  private stopWaiting: (() => void) | undefined;

  constructor(
    queue: string,
    processor: Processor<D, R>,
    options: WorkerOptions,
    private readonly budget: SlotBudget,
  ) {
    // Each queue's Worker may fetch up to the whole budget; the budget decides.
    super(queue, processor, { ...options, concurrency: budget.size });
  }

  protected override async moveToActive(token: string, name?: string): Promise<Job<D, R>> {
    // A job that just finished under this token hands its slot on (BullMQ's WaitingError path).
    const inherited = this.holding.has(token);
    if (!inherited && !this.budget.tryTake()) {
      // BullMQ's main loop waits for each fetch before it starts the jobs it fetched: waiting for
      // a slot with a fetched job not started would hold that job's slot for ever. Then: no job
      // now, and the loop starts what it has.
      if (this.unstarted > 0) return undefined as unknown as Job<D, R>;
      const ticket = this.budget.take();
      this.stopWaiting = ticket.cancel;
      const got = await ticket.granted;
      this.stopWaiting = undefined;
      if (!got) return undefined as unknown as Job<D, R>;
    }
    let job: Job<D, R> | undefined;
    try {
      // Closing while waiting for the slot: take no new job.
      if (this.closing === undefined) job = await super.moveToActive(token, name);
    } finally {
      if (job === undefined && !inherited) this.budget.give();
    }
    if (job !== undefined) {
      this.holding.add(token);
      if (!inherited) this.unstarted++;
    }
    return job as Job<D, R>;
  }

  override async processJob(
    job: Job<D, R>,
    token: string,
    fetchNextCallback: () => boolean = () => true,
  ): Promise<void | Job<D, R>> {
    this.unstarted = Math.max(0, this.unstarted - 1);
    this.holding.add(token);
    let next: void | Job<D, R> = undefined;
    try {
      next = await super.processJob(
        job,
        token,
        () => fetchNextCallback() && this.budget.waiting === 0,
      );
    } finally {
      if (next === undefined) {
        this.holding.delete(token);
        this.budget.give();
      } else {
        // Fetched with the finished job's slot: the main loop must be free to start it.
        this.unstarted++;
        this.stopWaiting?.();
      }
    }
    return next;
  }
}
