import type { Id, PivotRow, Row, Transaction } from '../driver';
import { BadRequestError, NotFoundError, UnauthenticatedError } from '../errors';
import type { Filter } from '../query/ast';
import { byIdsQuery } from '../service/reads/read-by-ids';
import type { RequestContext } from '../service/request-context';
import type { ResolvedRelation } from './relation-config';
import { partialSuccess, RelatedIdsNotFoundError, RelatedNotFoundError, type PartialSuccess } from './relation-errors';

/** Which parent a request names: `/{parent}/{parent_id}/...` or the authenticated user (`/me/...`). */
export type ParentRef = { kind: 'explicit'; rawId: string } | { kind: 'implicit' };

/**
 * What every relation operation stands on: the parent and related services, the parent check,
 * ids parsed and rendered, not-found answers and the pivot transaction. All database work goes
 * through the services' database door (`service.database`), never a driver.
 */
export class RelationBase {
  constructor(
    readonly config: ResolvedRelation,
    /** Path of the relation list, for `suggested_fix` (`/products/{id}/tags`). */
    protected readonly listPath: (parentId: string) => string,
  ) {}

  protected get parent() {
    return this.config.parent;
  }

  protected get related() {
    return this.config.related;
  }

  protected get relatedKey(): string {
    return this.related.entry.info.key;
  }

  /** The parent's pivot rows of this relation, through its database door. */
  protected get pivots() {
    return this.parent.database.pivots;
  }

  protected pivotsRead(parentId: Id, ids: Id[] | null, tx?: Transaction): Promise<PivotRow[]> {
    return this.pivots.read(this.parent.name, this.config.relation.name, parentId, ids, tx);
  }

  /** The parent's id, checked to exist and to be visible to the caller (404 naming it otherwise). */
  async parentId(ref: ParentRef, ctx: RequestContext, tx?: Transaction): Promise<Id> {
    const id = this.parentIdOf(ref, ctx);
    // the caller is the parent (implicit): no visibility check (a user may see their own related records without a grant on users)
    if (ref.kind !== 'implicit' && (await this.parent.visibleIds([id], ctx, tx)).length === 0) throw this.parentNotFound(ref);
    this.underParent(id, ctx);
    return id;
  }

  protected parentNotFound(ref: ParentRef): NotFoundError {
    return new NotFoundError(`No ${this.parent.name} found with id ${ref.kind === 'implicit' ? 'me' : ref.rawId}.`);
  }

  /** Hooks of the related resource see which parent the request is under (RequestContext.parent). */
  protected underParent(id: Id, ctx: RequestContext): void {
    ctx.parent = { model: this.parent.name, id, relation: this.config.relation.name };
  }

  /** A related id of the path, or the relation's 404 when it cannot be one. */
  protected relatedId(rawId: string, parentId: Id): Id {
    const id = this.parseRelated(rawId);
    if (id === null) throw this.notFound(rawId, parentId);
    return id;
  }

  protected parseRelated(raw: unknown): Id | null {
    return typeof raw === 'string' || typeof raw === 'number' ? this.related.database.parseId(this.related.name, String(raw)) : null;
  }

  /**
   * The value one-to-many records hold in their foreign key for this parent: its id, or the value
   * of the relation's localKey (one read of that field; the parent was checked to be visible).
   */
  async link(parentId: Id): Promise<unknown> {
    const localKey = this.config.localKey;
    if (localKey === null || this.config.kind !== 'oneToMany') return parentId;
    const info = this.parent.entry.info;
    const { rows } = await this.parent.database.list(byIdsQuery(info, [parentId], { select: [info.key, localKey], relations: [] }));
    return rows[0]?.[localKey] ?? null;
  }

  /** The link value a created or updated record is given; a parent whose localKey is null has no records to link. */
  protected async linkToWrite(parentId: Id): Promise<unknown> {
    const value = await this.link(parentId);
    if (value === null || value === undefined) throw new BadRequestError(`This ${this.parent.name} has no ${this.config.localKey}: records of "${this.config.segment}" link to it through that field.`, this.config.localKey ?? undefined);
    return value;
  }

  /** The filter of "related to this parent": the foreign key holding the parent's link value, or the pivot's ids. */
  protected membership(link: unknown, links: PivotRow[] | null): Filter {
    const nothing: Filter = { kind: 'condition', field: this.relatedKey, operator: 'null' };
    if (!links) return link === null || link === undefined ? nothing : { kind: 'condition', field: this.config.foreignKey, operator: '=', value: link as Id };
    if (links.length === 0) return nothing;
    return { kind: 'condition', field: this.relatedKey, operator: 'in', value: links.map((l) => l.relatedId) };
  }

  /** The membership filter for writes on `ids` (many-to-many: one pivot read of just those ids). */
  protected async narrowFor(parentId: Id, ids: Id[]): Promise<Filter> {
    if (!this.config.pivot) return this.membership(await this.link(parentId), null);
    return this.membership(parentId, await this.pivotsRead(parentId, ids));
  }

  /** A transaction that changes one parent's pivot rows: the driver's lock on them is its first statement. */
  protected pivotTransaction<T>(parentId: Id, ctx: RequestContext, work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.parent.database.transaction(async (tx) => {
      await this.lockLinks(parentId, tx);
      return work(tx);
    }, ctx);
  }

  protected lockLinks(parentId: Id, tx: Transaction): Promise<void> {
    return this.pivots.lock(this.parent.name, this.config.relation.name, parentId, tx);
  }

  /** The parent's id as the path gives it (or the caller's own, implicit), or its 401/404; not yet checked to be visible. */
  protected parentIdOf(ref: ParentRef, ctx: RequestContext): Id {
    if (ref.kind === 'implicit' && !ctx.user) throw new UnauthenticatedError();
    const raw = ref.kind === 'implicit' ? String(ctx.user!.id) : ref.rawId;
    const id = this.parent.database.parseId(this.parent.name, raw);
    if (id === null) throw new NotFoundError(`No ${this.parent.name} found with id ${raw}.`);
    return id;
  }

  protected async detachIds(parentId: Id, ids: Id[], tx: Transaction): Promise<Id[]> {
    if (ids.length === 0) return [];
    return this.pivots.detach(this.parent.name, this.config.relation.name, parentId, ids, tx);
  }

  /** Many-to-many records carry `pivot` with both keys and the pivot columns (decision 14). */
  protected withPivots(rows: Row[], parentId: Id, links: PivotRow[]): Row[] {
    const pivot = this.config.pivot!;
    const byId = new Map(links.map((l) => [String(l.relatedId), l]));
    for (const row of rows) {
      const link = byId.get(String(row[this.relatedKey]));
      if (link) row.pivot = { [pivot.parentKey]: parentId, [pivot.relatedKey]: row[this.relatedKey], ...link.values };
    }
    return rows;
  }

  protected touch(ctx: RequestContext): void {
    ctx.touched.add(this.parent.name);
    ctx.touched.add(this.related.name);
  }

  protected notFound(rawId: string | number, parentId: Id): RelatedNotFoundError {
    return new RelatedNotFoundError(this.related.name, this.config.segment, this.renderId(rawId), this.listPath(String(parentId)));
  }

  protected bulkNotFound(ids: Array<string | number>, parentId: Id): RelatedIdsNotFoundError {
    return new RelatedIdsNotFoundError(this.related.name, this.config.segment, ids.map((id) => this.renderId(id)), this.listPath(String(parentId)));
  }

  /** Decision 67: an id in an error body is rendered like the records' ids (an integer on integer keys); one that is no id stays as sent. */
  private renderId(raw: string | number): string | number {
    const id = this.parseRelated(raw);
    return typeof id === 'number' || typeof id === 'string' ? id : raw;
  }

  protected partial(parentId: Id, models: unknown[], missing: Array<string | number>, extra?: Record<string, unknown>): PartialSuccess {
    return partialSuccess(this.related.name, this.config.segment, this.listPath(String(parentId)), models, missing.map((id) => this.renderId(id)), extra);
  }
}
