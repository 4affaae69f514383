import { ApiError } from '../errors';
import type { Filter } from '../query/ast';
import type { ModelInfo } from '../resource/model-info';
import { stripHidden, type CatalogView } from '../service/policy/catalog-view';
import type { EventBuffer } from './event-buffer';
import { matchesFilter } from './match-filter';
import { eventFrame, type SseStream } from './sse-stream';
import type { ChangeEvent } from './types';

/** What one subscription receives (decision 61), under the rights of its last check (decision 70). */
export interface SubscriberRules {
  /** The resource as declared (matching reads every field; the view decides what is shown). */
  info: ModelInfo;
  /** The subscriber's `oper`/`attr`, on own fields. */
  filter: Filter | null;
  /** The records the subscriber may see: ownership, the resources' `scope` hooks (soft delete aside). */
  scope: Filter | null;
  /** The subscriber's read policy. */
  view: CatalogView;
  /** `select` with the key (null: every readable field). */
  select: string[] | null;
  /** Subscribers with equal keys see an event rendered the same: rendered once for all of them. */
  renderKey: string;
  /** The authenticated user's id (a write to that user's record re-checks the stream first); null: anonymous. */
  userId: string | null;
}

/**
 * Frames of one event shared by the subscribers of one class (same view, select, filter and
 * scope, so the same filter outcome): null where the class does not see the event.
 */
export type RenderCache = Map<string, string | null>;

/** The render caches of the events a fan-out cycle carries, by position in the replay buffer. */
export type CycleRenders = Map<number, RenderCache>;

/**
 * A filter as text, dates and non-finite numbers tagged (a date and a string of the same text
 * compare differently; JSON writes NaN and Infinity as null): equal texts, equal filters.
 */
function filterKey(filter: Filter | null): string {
  return JSON.stringify(filter, function (this: Record<string, unknown>, key, value: unknown) {
    const raw = this[key];
    if (raw instanceof Date) return { $date: raw.getTime() };
    return typeof raw === 'number' && !Number.isFinite(raw) ? { $number: String(raw) } : value;
  });
}

/**
 * The class of subscribers who see every event the same way (issue 52): the rendering's key
 * (read policy, select), then the filter and the scope, so the match is decided once per class.
 * Different texts for equal filters only cost a rendering; equal texts always mean equal filters.
 */
export function classKeyOf(rules: SubscriberRules): string {
  return `${rules.renderKey}\u0000${filterKey(rules.filter)}\u0000${filterKey(rules.scope)}`;
}

/** Why a stream was closed on a re-check (decision 70). */
export type Revocation = 'unauthenticated' | 'forbidden';

export interface SubscriberHooks {
  /**
   * Authenticates the request again and derives the rules anew; throws the answer a new request
   * would get. `memo`: authentications shared by the re-checks of one turn.
   */
  recheck(memo?: Map<string, Promise<unknown>>): Promise<SubscriberRules>;
  /** A re-check that failed for another reason (the database behind authentication is down). */
  failed(error: unknown): void;
}

/** A 401 revokes as unauthenticated; a 403, or a filter or select naming a field now hidden (400), as forbidden. */
function revocationOf(error: unknown): Revocation | null {
  if (!(error instanceof ApiError)) return null;
  if (error.status === 401) return 'unauthenticated';
  return error.status === 403 || error.status === 400 ? 'forbidden' : null;
}

/**
 * One open stream on one resource. It owes its subscriber the events of the resource's replay
 * buffer from `cursor` on: while it keeps up, each event is sent as it is published (rendered once
 * per class of subscribers); when its socket falls behind, a resume, or after a re-check, it
 * renders from the buffer as the socket drains (decision 71).
 */
export class Subscriber {
  private cursor: number;
  /** Events from here on were published while the stream was open: a resume's backlog is not lag. */
  private lagFrom: number;
  /** Waiting for a re-check of rights: nothing is rendered meanwhile (decision 70). */
  private held = false;
  private checking = false;
  private again = false;
  /** classKeyOf(rules), kept with the rules it was made from. */
  private classKey: string;

  constructor(
    readonly model: string,
    public rules: SubscriberRules,
    readonly stream: SseStream,
    private readonly buffer: EventBuffer,
    /** REST_CHANGES_MAX_BUFFERED_BYTES: lag past this is skipped with a `reset`. */
    private readonly maxLag: number,
    private readonly hooks: SubscriberHooks,
  ) {
    this.cursor = buffer.next;
    this.lagFrom = buffer.next;
    this.classKey = classKeyOf(rules);
  }

  /** Position of the next event this stream owes (the fan-out resets those that were keeping up). */
  get position(): number {
    return this.cursor;
  }

  /** With `lastEventId`: the events after it, as the socket drains; one `reset` when it is no longer buffered. */
  resume(lastEventId: string): void {
    // what was published before the stream opened is the resume's backlog, not lag
    this.lagFrom = this.buffer.next;
    const after = this.buffer.after(lastEventId);
    if (after === null) this.reset();
    else this.cursor = after;
    this.pull();
  }

  /** A newly published event at `seq`: sent now when the stream is keeping up, else owed (sent by `pull`). */
  deliver(event: ChangeEvent, seq: number, renders: RenderCache): void {
    if (this.held || this.cursor !== seq || !this.stream.canTake) return;
    this.cursor = seq + 1;
    this.send(event, renders);
  }

  /**
   * Renders what the stream owes while its socket takes it. Behind by more than `maxLag` bytes
   * (events published since it opened, plus what its socket holds), or behind events the buffer
   * dropped, it gets one `reset` and goes on from the newest event.
   */
  pull(renders: CycleRenders | null = null, hurry = true): void {
    if (this.held || this.stream.isClosed || this.stream.isBlocked || this.cursor >= this.buffer.next) return;
    // a stream at the start of the fan-out cycle's events was keeping up: they are not its lag
    // (the feed bounds that backlog for all its streams, delivery.ts)
    const keepingUp = renders?.has(this.cursor) === true;
    if (this.cursor < this.buffer.first || (!keepingUp && this.buffer.bytesFrom(Math.max(this.cursor, this.lagFrom)) + this.stream.unsent > this.maxLag)) {
      this.reset();
      return;
    }
    let sent = false;
    while (this.cursor < this.buffer.next && this.stream.canTake) {
      const event = this.buffer.at(this.cursor)!;
      sent = this.send(event, renders?.get(this.cursor) ?? null) || sent;
      this.cursor += 1;
    }
    // in a fan-out cycle the stream is written right after; else at the next turn
    if (sent && hurry) this.stream.hurry();
  }

  /**
   * The fan-out shed its resource's backlog (issue 52): one `reset`, then on from the newest
   * event, as a reader past its lag bound (decision 71). Only a stream that was keeping up is
   * shed; one behind its own socket already answers to its own bound.
   */
  shed(): void {
    if (this.held || this.stream.isClosed) return;
    this.reset();
  }

  /** `event: reset` with the newest event's id (a reconnect resumes after it), then on from there. */
  private reset(): void {
    this.stream.event(this.buffer.newest()?.id ?? null, 'reset', '{}');
    this.cursor = this.buffer.next;
    this.lagFrom = this.cursor;
    this.stream.hurry();
  }

  /** Sends the event when the subscriber may see its record and it matches their filter. */
  private send(event: ChangeEvent, renders: RenderCache | null): boolean {
    // the match and the whole frame, decided once for every subscriber of the class
    let frame = renders?.get(this.classKey);
    if (frame === undefined) {
      const { info, filter, scope } = this.rules;
      const seen = matchesFilter(scope, event.record, info) && matchesFilter(filter, event.record, info);
      frame = seen ? eventFrame(event.id, event.kind, JSON.stringify({ id: event.key, model: this.render(event.record) })) : null;
      renders?.set(this.classKey, frame);
    }
    if (frame === null) return false;
    this.stream.frame(frame);
    return true;
  }

  /** The record as a show would answer this subscriber: hidden fields removed, then `select`. */
  private render(record: Record<string, unknown>): Record<string, unknown> {
    const [row] = stripHidden([{ ...record }], this.model, [], this.rules.view);
    const { select } = this.rules;
    if (!select) return row;
    const wanted = new Set(select);
    return Object.fromEntries(Object.entries(row).filter(([key]) => wanted.has(key)));
  }

  /**
   * Re-runs the application's authentication, the list permission and the read rules (decision
   * 70). `hold`: nothing is rendered until the answer (after a write to the subscriber's own user
   * record). With fewer rights the stream goes on under them; without a user or the permission it
   * gets `event: revoked` and ends. A check that fails otherwise holds the stream until one succeeds.
   */
  refresh(hold: boolean, memo?: Map<string, Promise<unknown>>): void {
    if (this.stream.isClosed) return;
    if (hold) this.held = true;
    if (this.checking) {
      // the answer on its way may predate the write that asked for this one
      this.again = true;
      return;
    }
    this.checking = true;
    this.hooks.recheck(memo).then(
      (rules) => this.checked(rules, null),
      (error: unknown) => this.checked(null, error),
    );
  }

  /** Nothing is rendered until the next re-check answers (a write to the subscriber's user record is settling). */
  hold(): void {
    this.held = true;
  }

  /** Events of the buffer not yet considered for this subscriber (0 when it keeps up). */
  get owed(): number {
    return this.buffer.next - this.cursor;
  }

  /** True while a re-check holds the stream. */
  get isHeld(): boolean {
    return this.held;
  }

  private checked(rules: SubscriberRules | null, error: unknown): void {
    this.checking = false;
    if (this.stream.isClosed) return;
    if (rules) {
      this.rules = rules;
      this.classKey = classKeyOf(rules);
    }
    if (this.again) {
      this.again = false;
      this.refresh(false);
      return;
    }
    if (rules) {
      this.held = false;
      this.pull();
      return;
    }
    const reason = revocationOf(error);
    if (reason) {
      this.held = true;
      this.stream.event(null, 'revoked', JSON.stringify({ reason }));
      this.stream.end();
      return;
    }
    this.held = true;
    this.hooks.failed(error);
  }
}
