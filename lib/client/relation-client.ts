type Id = string | number;

export type Send = <R>(method: string, path: string, body?: unknown, query?: Record<string, unknown>) => Promise<R>;

/** Pivot input of bulk attach, sync and toggle: ids, objects with the related key, or id -> pivot values. */
export type PivotInput = Id[] | Array<Record<string, unknown>> | Record<string, Record<string, unknown>>;

/** The relation routes under one parent (spec "Relation endpoints"); bulk answers may be 207 partial successes. */
export class RelationClient<R extends object> {
  constructor(
    private readonly send: Send,
    private readonly dataKey: string,
  ) {}

  list(query: Record<string, unknown> = {}): Promise<{ data: Array<R & { pivot?: Record<string, unknown> }> }> {
    return this.send('GET', '', undefined, query);
  }

  show(relatedId: Id): Promise<R & { pivot?: Record<string, unknown> }> {
    return this.send('GET', `/${encodeURIComponent(String(relatedId))}`);
  }

  create(record: Record<string, unknown>): Promise<{ success: true; model: R }> {
    return this.send('POST', '', { [this.dataKey]: record });
  }

  /** Attach one related record, with pivot columns. */
  attach(relatedId: Id, pivot: Record<string, unknown> = {}, relatedKey = 'id'): Promise<{ attached: Id[] }> {
    return this.send('POST', '/attach', { ...pivot, [relatedKey]: relatedId });
  }

  /** bulk_attach (default), sync or toggle. */
  attachMany(input: PivotInput, scenario: 'bulk_attach' | 'sync' | 'toggle' = 'bulk_attach'): Promise<{ attached: Id[]; detached?: Id[]; updated?: Id[] }> {
    return this.send('POST', '/attach', { [this.dataKey]: input }, { _scenario: scenario });
  }

  detach(relatedIds: Id[]): Promise<{ detached: number }> {
    return this.send('DELETE', '/detach', relatedIds, { _scenario: 'bulk_detach' });
  }

  updatePivot(relatedId: Id, pivot: Record<string, unknown>): Promise<R & { pivot: Record<string, unknown> }> {
    return this.send('PUT', `/${encodeURIComponent(String(relatedId))}/pivot`, pivot);
  }
}
