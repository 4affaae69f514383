import type { Id, Transaction } from '../driver';
import { BadRequestError } from '../errors';
import type { RequestContext } from '../service/request-context';
import type { BulkWriteResult, WriteResult } from '../service/resource-service';
import { RelationBase } from './relation-base';
import { RelationBody } from './relation-body';

type Found = { found: Map<number, Id>; missing: Array<string | number> };

/** Bulk id checks of the relation routes, each one query whatever the id count, and pivots of written records. */
export class RelationLookups extends RelationBase {
  protected readonly body = new RelationBody(this.config);

  /** Decision 49: the ids of a bulk delete or detach. */
  idList(body: unknown): unknown[] {
    return this.body.idList(body);
  }

  /** Splits bulk ids into those related to the parent (index -> id) and the rest, in one query. */
  protected async split(rawIds: unknown[], parentId: Id, ctx: RequestContext): Promise<Found> {
    if (rawIds.length === 0) throw new BadRequestError('At least one id is required.', 'ids');
    if (rawIds.length > 10_000) throw new BadRequestError('At most 10000 ids per request.', 'ids');
    const parsed = rawIds.map((raw) => this.parseRelated(raw));
    if (rawIds.some((raw) => typeof raw !== 'string' && typeof raw !== 'number')) throw new BadRequestError('Each id must be a string or a number.', 'ids');
    const candidates = parsed.filter((id): id is Id => id !== null);
    if (new Set(candidates.map(String)).size !== candidates.length) throw new BadRequestError('Each id may appear only once.', 'ids');
    const narrow = await this.narrowFor(parentId, candidates);
    const visible = new Set((await this.related.visibleIds(candidates, ctx, undefined, narrow)).map(String));
    return sortOut(rawIds as Array<string | number>, parsed, visible);
  }

  /** Which related ids exist and are visible to the caller (attach targets), in one query. */
  protected async existing(rawIds: Array<string | number>, ctx: RequestContext, tx?: Transaction): Promise<Found> {
    const parsed = rawIds.map((raw) => this.related.database.parseId(this.related.name, String(raw)));
    const visible = new Set((await this.related.visibleIds(parsed.filter((id): id is Id => id !== null), ctx, tx)).map(String));
    return sortOut(rawIds, parsed, visible);
  }

  /** Written many-to-many records get their `pivot` (one pivot read). */
  protected async pivotsOf(result: WriteResult | BulkWriteResult, parentId: Id): Promise<void> {
    if (!this.config.pivot) return;
    const rows = 'model' in result ? [result.model] : result.models.map((m) => m.model);
    this.withPivots(rows, parentId, await this.pivotsRead(parentId, rows.map((r) => r[this.relatedKey] as Id)));
  }
}

function sortOut(rawIds: Array<string | number>, parsed: Array<Id | null>, visible: Set<string>): Found {
  const found = new Map<number, Id>();
  const missing: Array<string | number> = [];
  parsed.forEach((id, i) => (id !== null && visible.has(String(id)) ? found.set(i, id) : missing.push(rawIds[i])));
  return { found, missing };
}
