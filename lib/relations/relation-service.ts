import type { Id, Row, Transaction } from '../driver';
import { ValidationError } from '../errors';
import type { Filter } from '../query/ast';
import type { RequestContext } from '../service/request-context';
import { plainObject } from '../service/writes/read-body';
import { readPivotInput, readPivotObject, type PivotEntry } from '../service/writes/pivot-input';
import type { ParentRef } from './relation-base';
import type { PartialSuccess } from './relation-errors';
import { RelationRecords } from './relation-records';
import { pivotDiff, type PivotScenario, type WantedLink } from '../driver/pivot-diff';

export type { ParentRef } from './relation-base';

/**
 * The relation routes' operations for one configured relation (spec "Relation endpoints"): the
 * related records (relation-records.ts) and, for many-to-many, the links themselves (here). Each
 * runs a constant number of statements whatever the id count: the parent check, one membership
 * read, one bulk write per kind of change, one reload; every mutation in one transaction.
 */
export class RelationService extends RelationRecords {
  /**
   * The attach route: attach (default: `{<relatedKey>: id, <pivot column>: value}`), bulk_attach,
   * sync and toggle. Idempotent: ids already attached are left as they are (decision 32).
   */
  async attach(ref: ParentRef, body: unknown, scenario: PivotScenario, ctx: RequestContext): Promise<Record<string, unknown> | PartialSuccess> {
    const entries = this.entriesOf(body, scenario);
    if (this.pivots.guardedLink && this.parent.database.capabilities.pipelinedTransactions) {
      const answer = await this.guardedAttach(ref, entries, scenario, ctx);
      if (answer) return answer;
    }
    const rawIds = entries.map((e) => e.rawId);
    const name = this.config.relation.name;
    let missing: Array<string | number> = [];
    // the parent check, the related ids' check and the lock on this parent's links are
    // independent: issued together, inside the transaction where the driver pipelines it
    const pipelined = this.parent.database.capabilities.pipelinedTransactions;
    const before = pipelined ? null : await this.linkChecks(ref, rawIds, ctx);
    const outcome = await this.parent.database.transaction(async (tx) => {
      const { parentId, found } = before ?? (await this.linkChecks(ref, rawIds, ctx, tx));
      if (before) await this.lockLinks(parentId, tx);
      missing = found.missing;
      if (scenario === 'attach' && missing.length > 0) throw this.notFound(entries[0].rawId, parentId);
      const wanted: WantedLink[] = entries.flatMap((e, i) => (found.found.has(i) ? [{ id: found.found.get(i)!, values: e.values }] : []));
      // one writer of this parent's links at a time (the lock), so what is read here is the set
      // this request changes; the report comes from what the database says it changed
      if (this.pivots.link) {
        // set-based when the driver can (one statement on PostgreSQL): same answer, no per-id work here
        tx.endsWithNext = true; // nothing is checked after it: the driver may commit with it
        return { parentId, ...(await this.pivots.link(this.parent.name, name, parentId, wanted, scenario === 'bulk_attach' ? 'attach' : scenario, tx)) };
      }
      const current = await this.pivotsRead(parentId, scenario === 'sync' ? null : wanted.map((w) => w.id), tx);
      const diff = pivotDiff(scenario, wanted, current);
      const detached = await this.detachIds(parentId, diff.detach, tx);
      if (diff.update.length > 0) await this.pivots.update(this.parent.name, name, diff.update.map((w) => ({ parentId, relatedId: w.id, values: w.values })), tx);
      const inserted = new Set((await this.pivots.attach(this.parent.name, name, diff.attach.map((w) => ({ parentId, relatedId: w.id, values: w.values })), tx)).map((id) => String(id).toLowerCase()));
      return { parentId, attached: diff.attach.filter((w) => inserted.has(String(w.id).toLowerCase())).map((w) => w.id), detached, updated: diff.update.map((w) => w.id) };
    }, ctx);
    return this.attachAnswer(scenario, outcome, missing, ctx);
  }

  /**
   * The attach route in one round trip where the driver can (PivotCapability.guardedLink): the
   * parent's and the related ids' checks are conditions of the write itself, so the lock and the
   * write go out with BEGIN and COMMIT; the answers are the checked path's. Null when the driver
   * cannot here (the caller takes the checked path).
   */
  private async guardedAttach(ref: ParentRef, entries: PivotEntry[], scenario: PivotScenario, ctx: RequestContext): Promise<Record<string, unknown> | PartialSuccess | null> {
    const parentId = this.parentIdOf(ref, ctx);
    const parsed = entries.map((e) => this.parseRelated(e.rawId));
    const wanted: WantedLink[] = entries.flatMap((e, i) => (parsed[i] === null ? [] : [{ id: parsed[i]!, values: e.values }]));
    // the caller as the parent (implicit) is not checked, as parentId() does not
    const guard = { ...(ref.kind === 'implicit' ? {} : { parent: this.parent.rootScope(null, ctx) }), related: this.related.rootScope(null, ctx) };
    const mode = scenario === 'bulk_attach' || scenario === 'attach' ? 'attach' : scenario;
    const outcome = await this.parent.database.transaction(async (tx) => {
      tx.endsWithNext = true; // nothing is checked after the write: the driver may commit with it
      return this.pivots.guardedLink!(this.parent.name, this.config.relation.name, parentId, wanted, mode, guard, tx);
    }, ctx);
    if (!outcome) return null;
    if (!outcome.parentVisible) throw this.parentNotFound(ref);
    this.underParent(parentId, ctx);
    const visible = new Set(outcome.visible.map(String));
    const missing = entries.flatMap((e, i) => (parsed[i] !== null && visible.has(String(parsed[i])) ? [] : [e.rawId]));
    // a single attach of an id the caller cannot see wrote nothing (the write left it out)
    if (scenario === 'attach' && missing.length > 0) throw this.notFound(entries[0].rawId, parentId);
    return this.attachAnswer(scenario, { parentId, ...outcome }, missing, ctx);
  }

  private attachAnswer(scenario: PivotScenario, outcome: { parentId: Id; attached: Id[]; detached: Id[]; updated: Id[] }, missing: Array<string | number>, ctx: RequestContext): Record<string, unknown> | PartialSuccess {
    this.touch(ctx);
    const answer: Record<string, unknown> = { attached: outcome.attached };
    if (scenario === 'sync' || scenario === 'toggle') answer.detached = outcome.detached;
    if (scenario === 'sync') answer.updated = outcome.updated;
    return missing.length > 0 ? this.partial(outcome.parentId, [], missing, answer) : answer;
  }

  /**
   * The parent's visibility and the related ids' existence, with the lock on the parent's links
   * when inside the transaction (`tx`): issued together, awaited in order (the parent's 404 wins).
   */
  private async linkChecks(ref: ParentRef, rawIds: Array<string | number>, ctx: RequestContext, tx?: Transaction): Promise<{ parentId: Id; found: Awaited<ReturnType<RelationService['existing']>> }> {
    const id = this.parentIdOf(ref, ctx);
    const checks = [this.parentId(ref, ctx, tx), this.existing(rawIds, ctx, tx), tx ? this.lockLinks(id, tx) : Promise.resolve()] as const;
    checks.forEach((c) => c.catch(() => undefined)); // each is awaited below, in order
    const parentId = await checks[0];
    const found = await checks[1];
    await checks[2];
    return { parentId, found };
  }

  /** The links an attach route asks for: one object (`attach`) or a set of ids with pivot values. */
  private entriesOf(body: unknown, scenario: PivotScenario): PivotEntry[] {
    const pivot = this.config.pivot!;
    if (scenario !== 'attach') {
      const { key, value } = this.body.idSet(body);
      return readPivotInput(value, pivot, this.config.writablePivot, key);
    }
    const obj = plainObject(this.body.wrapped(body) ?? {}, 'The request body');
    const rawId = obj[pivot.relatedKey] ?? obj.id;
    if (typeof rawId !== 'string' && typeof rawId !== 'number') throw new ValidationError({ [pivot.relatedKey]: [`The ${pivot.relatedKey} field is required and must be an id.`] });
    // decision 75: `id` and the related key naming different records is an error, never one silently taken
    if (obj.id !== undefined && obj.id !== null && String(obj.id) !== String(rawId)) throw new ValidationError({ [pivot.relatedKey]: [`The id and ${pivot.relatedKey} name different records; send one of them.`] });
    return [{ rawId, values: readPivotObject(obj, pivot, this.config.writablePivot, 'The request body'), path: pivot.relatedKey }];
  }

  /** detachRelation: `{detached: count}`; an id that is not attached counts 0 (decision 32). */
  async detach(ref: ParentRef, rawIds: unknown[], ctx: RequestContext): Promise<{ detached: number }> {
    const parentId = await this.parentId(ref, ctx);
    const ids = rawIds.flatMap((raw) => {
      const id = this.parseRelated(raw);
      return id === null ? [] : [id];
    });
    const detached = await this.pivotTransaction(parentId, ctx, (tx) => this.detachIds(parentId, ids, tx));
    this.touch(ctx);
    return { detached: detached.length };
  }

  /** updatePivotRelation, single: the related record with its updated `pivot`; not attached is a 404. */
  async updatePivot(ref: ParentRef, rawId: string, body: unknown, ctx: RequestContext): Promise<Row> {
    const parentId = await this.parentId(ref, ctx);
    const id = this.relatedId(rawId, parentId);
    const values = readPivotObject(this.body.wrapped(body) ?? {}, this.config.pivot!, this.config.writablePivot, 'The request body');
    const [row] = await this.pivotUpdate(parentId, [{ id, values }], ctx);
    if (!row) throw this.notFound(rawId, parentId);
    return row;
  }

  /** updatePivotRelation, bulk: `{<dataKey>: [{<relatedKey>: id, col: v}]}`; ids not attached make it partial (207). */
  async updatePivotMany(ref: ParentRef, body: unknown, ctx: RequestContext): Promise<{ success: true; models: Row[] } | PartialSuccess> {
    const parentId = await this.parentId(ref, ctx);
    const { key, value } = this.body.data(body);
    const entries = readPivotInput(value, this.config.pivot!, this.config.writablePivot, key);
    const parsed = entries.map((e) => ({ entry: e, id: this.parseRelated(e.rawId) }));
    const rows = await this.pivotUpdate(parentId, parsed.filter((p) => p.id !== null).map((p) => ({ id: p.id!, values: p.entry.values })), ctx);
    const done = new Set(rows.map((r) => String(r[this.relatedKey])));
    const missing = parsed.filter((p) => p.id === null || !done.has(String(p.id))).map((p) => p.entry.rawId);
    if (rows.length === 0) throw this.bulkNotFound(missing, parentId);
    return missing.length > 0 ? this.partial(parentId, rows, missing) : { success: true, models: rows };
  }

  /** Updates the pivot rows of attached ids (one statement) and answers those records with their pivots. */
  private async pivotUpdate(parentId: Id, items: WantedLink[], ctx: RequestContext): Promise<Row[]> {
    const name = this.config.relation.name;
    const links = await this.pivotTransaction(parentId, ctx, async (tx) => {
      const attached = new Set((await this.pivotsRead(parentId, items.map((i) => i.id), tx)).map((r) => String(r.relatedId)));
      const rows = items.filter((i) => attached.has(String(i.id)));
      await this.pivots.update(this.parent.name, name, rows.map((i) => ({ parentId, relatedId: i.id, values: i.values })), tx);
      return this.pivotsRead(parentId, rows.map((i) => i.id), tx);
    });
    this.touch(ctx);
    const records = await this.related.read(links.map((l) => l.relatedId), { select: null, relations: [] }, ctx);
    return this.withPivots(records, parentId, links);
  }

  /**
   * The filter that selects the related records of one parent on the related model (exports): one-to-many by
   * its foreign key; many-to-many through the inverse relation the related model declares over the
   * same pivot, else through the parent's pivot rows (one read).
   */
  async membersFilter(parentId: Id): Promise<Filter> {
    const { parent, related, relation: rel } = this.config;
    if (!rel.pivot) return this.membership(await this.link(parentId), null);
    const target = related.entry.info;
    const inverse = [...Object.values(target.relations), ...Object.values(target.hiddenRelations)].find(
      (r) => r.kind === 'belongsToMany' && r.target === parent.name && r.pivot?.table === rel.pivot?.table && r.pivot?.parentKey === rel.pivot?.relatedKey,
    );
    if (inverse) return { kind: 'related', relation: inverse.name, filter: { kind: 'condition', field: parent.entry.info.key, operator: '=', value: parentId } };
    return this.membership(parentId, await this.pivotsRead(parentId, null));
  }
}
