// `analyze --queue --watch-folder`: which files of an upload folder are ready to enqueue. A file
// is taken once its size and mtime held over two scans (the quiet period: one poll, 2 s by
// default), so an upload still being written is left alone. A file taken that changes afterwards
// (an upload that paused longer than the quiet period, then went on) is taken again once it holds
// still: its new record supersedes the first (summary and report read each input's last record,
// records-file.ts readLatestRecords), and the caller forgets the first one's job if it still
// waits for it.
import { stat } from 'node:fs/promises';

export class FolderWatch {
  /** Files taken, with their size and mtime then. */
  readonly #taken = new Map<string, string>();
  /** Files seen changing, with their size and mtime at the last scan. */
  readonly #settling = new Map<string, string>();

  /** Files enqueued at the start (the first scan, taken as they are). */
  async taken(files: readonly string[]): Promise<void> {
    for (const file of files) {
      const now = await state(file);
      if (now !== undefined) this.#taken.set(file, now);
    }
  }

  /**
   * One scan of the folder (`found`: the files it lists now). `ready`: files to enqueue;
   * `retaken`: those of them taken before (their earlier record is superseded).
   */
  async scan(found: readonly string[]): Promise<{ ready: string[]; retaken: string[] }> {
    const ready: string[] = [];
    const retaken: string[] = [];
    for (const file of found) {
      const now = await state(file);
      if (now === undefined) continue;
      const was = this.#taken.get(file);
      if (was === now) {
        this.#settling.delete(file);
        continue;
      }
      if (this.#settling.get(file) !== now) {
        this.#settling.set(file, now);
        continue;
      }
      this.#settling.delete(file);
      this.#taken.set(file, now);
      ready.push(file);
      if (was !== undefined) retaken.push(file);
    }
    return { ready, retaken };
  }
}

/** `size:mtimeMs` of a file, or undefined when it is gone. */
async function state(file: string): Promise<string | undefined> {
  const info = await stat(file).catch(() => undefined);
  return info === undefined ? undefined : `${info.size}:${info.mtimeMs}`;
}
