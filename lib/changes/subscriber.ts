import type { Filter } from '../query/ast';
import type { ModelInfo } from '../resource/model-info';
import { stripHidden, type CatalogView } from '../service/catalog-view';
import { matchesFilter } from './match-filter';
import { eventFrame, type SseStream } from './sse-stream';
import type { ChangeEvent } from './types';

/** What one subscription receives (decision 61): computed once when the stream opens. */
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
}

/** Frames of one event shared by the subscribers with the same view and select. */
export type RenderCache = Map<string, string>;

/** One open stream on one resource. */
export class Subscriber {
  constructor(
    readonly model: string,
    readonly rules: SubscriberRules,
    readonly stream: SseStream,
  ) {}

  /** Sends the event when the subscriber may see its record and it matches their filter. */
  deliver(event: ChangeEvent, renders: RenderCache): void {
    const { info, filter, scope } = this.rules;
    if (!matchesFilter(scope, event.record, info) || !matchesFilter(filter, event.record, info)) return;
    // the whole frame, made once for every subscriber who sees the event the same way
    let frame = renders.get(this.rules.renderKey);
    if (frame === undefined) {
      frame = eventFrame(event.id, event.kind, JSON.stringify({ id: event.key, model: this.render(event.record) }));
      renders.set(this.rules.renderKey, frame);
    }
    this.stream.frame(frame);
  }

  /** The record as a show would answer this subscriber: hidden fields removed, then `select`. */
  private render(record: Record<string, unknown>): Record<string, unknown> {
    const [row] = stripHidden([{ ...record }], this.model, [], this.rules.view);
    const { select } = this.rules;
    if (!select) return row;
    const wanted = new Set(select);
    return Object.fromEntries(Object.entries(row).filter(([key]) => wanted.has(key)));
  }
}
