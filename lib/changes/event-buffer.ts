import type { ChangeEvent } from './types';

/** One buffered event, with its size and the bytes pushed before it (so any backlog's size is one subtraction). */
interface Entry {
  event: ChangeEvent;
  bytes: number;
  before: number;
  /** When it was pushed (ms, this process's clock): how long the fan-out has left it waiting. */
  at: number;
}

/**
 * The recent events of one resource, oldest first (decision 71): at most `maxEvents` and at most
 * `maxBytes` (the records' JSON size; the newest event always stays, however large). Each event
 * gets a position (`seq`), counting from 0 for the buffer's life: a stream remembers the position
 * of the next event it owes its subscriber, so a slow or resuming reader is served from here as
 * its socket drains, and costs no memory of its own.
 */
export class EventBuffer {
  private entries: Entry[] = [];
  /** Index in `entries` of the oldest event held (the array is compacted now and then). */
  private head = 0;
  /** Position of the oldest event held. */
  private firstSeq = 0;
  private bytes = 0;
  private pushed = 0;

  constructor(
    private readonly maxEvents: number,
    private readonly maxBytes: number,
  ) {}

  /** Position of the oldest event held (equal to `next` when empty). */
  get first(): number {
    return this.firstSeq;
  }

  /** Position the next pushed event will take. */
  get next(): number {
    return this.firstSeq + this.entries.length - this.head;
  }

  /** Bytes held. */
  get size(): number {
    return this.bytes;
  }

  /** Adds an event of `bytes` and drops the oldest past either bound; its position. */
  push(event: ChangeEvent, bytes: number, at = Date.now()): number {
    const seq = this.next;
    this.entries.push({ event, bytes, before: this.pushed, at });
    this.pushed += bytes;
    this.bytes += bytes;
    while (this.next - this.firstSeq > 1 && (this.next - this.firstSeq > this.maxEvents || this.bytes > this.maxBytes)) {
      this.bytes -= this.entries[this.head].bytes;
      // the dropped entry must not keep its record alive
      this.entries[this.head] = undefined as unknown as Entry;
      this.head += 1;
      this.firstSeq += 1;
    }
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
    return seq;
  }

  /** The event at `seq`; null when it is no longer (or not yet) held. */
  at(seq: number): ChangeEvent | null {
    if (seq < this.firstSeq || seq >= this.next) return null;
    return this.entries[this.head + seq - this.firstSeq].event;
  }

  /** When the event at `seq` was pushed (ms); null when it is no longer (or not yet) held. */
  pushedAt(seq: number): number | null {
    if (seq < this.firstSeq || seq >= this.next) return null;
    return this.entries[this.head + seq - this.firstSeq].at;
  }

  /** The newest event; null when empty. */
  newest(): ChangeEvent | null {
    return this.at(this.next - 1);
  }

  /** Position right after the event `id`; null when `id` is not (or no longer) held. */
  after(id: string): number | null {
    for (let seq = this.next - 1; seq >= this.firstSeq; seq -= 1) if (this.entries[this.head + seq - this.firstSeq].event.id === id) return seq + 1;
    return null;
  }

  /** Bytes of the events from `seq` to the newest (those still held). */
  bytesFrom(seq: number): number {
    if (seq >= this.next) return 0;
    const from = Math.max(seq, this.firstSeq);
    return this.pushed - this.entries[this.head + from - this.firstSeq].before;
  }
}
