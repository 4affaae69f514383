import type { Id, Row, Transaction } from '../../driver';
import { BadRequestError, ValidationError } from '../../errors';
import { parseReadOptions } from '../../query';
import { modelsTouchedByDelete } from '../../resource/references';
import { runHook } from '../hooks';
import { plainObject } from '../writes/read-body';
import type { RequestContext } from '../request-context';
import type { BulkWriteResult, ResourceService, WriteResult, WriteScope } from '../resource-service';
import type { FieldErrors } from '../writes/validate-input';
import { checkNestedAccess, prepareNested, type PreparedOps } from './check-nested';
import { resolveNested, type NestedRelation } from './nested-config';
import { hasNested, namesRelation, parseNestedItem, type NestedBudget, type NestedItem } from './parse-nested';
import { runNested, type NestedWritten } from './run-nested';

/**
 * Nested writes (decisions 58-59): a parent with its related records and links in one request.
 * The body becomes a write plan (parse-nested.ts), each part is checked by its own resource's
 * rules before the transaction (check-nested.ts), and the parent's own store or update runs the
 * plan inside its transaction (run-nested.ts): any error leaves nothing written. The answer is
 * the parent as a show with the nested relations loaded.
 */
export class NestedWrites {
  readonly relations: ReadonlyMap<string, NestedRelation>;

  constructor(
    private readonly parent: ResourceService,
    serviceOf: (model: string) => ResourceService | undefined,
  ) {
    this.relations = resolveNested(parent, serviceOf);
  }

  /** True for a resource route's body holding a relation key (opted in, or to be refused by name). */
  applies(items: unknown[], scope: WriteScope): boolean {
    // a scoped write (a relation route's) never nests; If-Match alone does not scope a write
    if (Object.keys(scope).some((key) => key !== 'ifMatch')) return false;
    return items.some((item) => hasNested(this.parent.entry.info, item));
  }

  /** POST with nested parts: the parents in one insert, then their records and links in the same transaction. */
  async store(items: unknown[], many: boolean, ctx: RequestContext): Promise<WriteResult | BulkWriteResult> {
    const prefix = (i: number) => (many ? `${this.parent.name}.${i}.` : '');
    const errors: FieldErrors = {};
    const budget = this.budget();
    const parsed = items.map((item, i) => parseNestedItem(item, this.parent.entry.info, this.relations, 'create', prefix(i), errors, budget));
    const attributes = parsed.map((p) => p.attributes);
    const prepared = await this.check(parsed, null, ctx, errors, () => this.parent.prepare(attributes, 'create', prefix, ctx));
    let outcome: Outcome | null = null;
    const result = await this.parent.storeItems(attributes, many, ctx, {
      within: async (tx, ids) => {
        outcome = await this.run(prepared, ids, true, ctx, tx);
      },
    });
    return this.answer(result, outcome!, ctx);
  }

  /** POST /validate with nested parts: every check of a store (rights, each part's rules), nothing written. */
  async validate(body: unknown, ctx: RequestContext): Promise<{ success: true }> {
    const errors: FieldErrors = {};
    const parsed = parseNestedItem(plainObject(body ?? {}, 'The request body'), this.parent.entry.info, this.relations, 'create', '', errors, this.budget());
    await this.check([parsed], null, ctx, errors, () => this.parent.prepare([parsed.attributes], 'create', () => '', ctx), false);
    await this.parent.prepare([parsed.attributes], 'create', () => '', ctx);
    return { success: true };
  }

  /** PUT/PATCH with nested parts: the parent's update, then its records and links in the same transaction. */
  async update(rawId: string, body: unknown, ctx: RequestContext, ifMatch?: string): Promise<WriteResult> {
    const errors: FieldErrors = {};
    const parsed = parseNestedItem(plainObject(body ?? {}, 'The request body'), this.parent.entry.info, this.relations, 'update', '', errors, this.budget());
    const id = this.parent.database.parseId(this.parent.name, rawId);
    const prepared = await this.check([parsed], id, ctx, errors, () => this.parent.prepare([parsed.attributes], 'update', () => '', ctx));
    let outcome: Outcome | null = null;
    // decision 81: the parent's If-Match, compared by the parent's write
    const result = await this.parent.update(rawId, parsed.attributes, ctx, {
      ifMatch,
      within: async (tx, ids) => {
        outcome = await this.run(prepared, ids, false, ctx, tx);
      },
    });
    return this.answer(result, outcome!, ctx) as Promise<WriteResult>;
  }

  /** Bulk updates take no nested parts (decision 58 names POST and PUT/PATCH of one record): a 400 naming the first relation key, whatever it holds. */
  refuseInBulkUpdate(items: unknown[], key: string): never {
    const info = this.parent.entry.info;
    items.forEach((item, i) => {
      const relation = item !== null && typeof item === 'object' ? Object.keys(item).find((k) => namesRelation(info, k)) : undefined;
      if (relation === undefined) return;
      const path = `${key}.${i}.${relation}`;
      if (!this.relations.has(relation)) throw new BadRequestError(`Relation "${path}" of ${info.name} does not accept nested writes.`, path);
      throw new BadRequestError(`"${path}": nested writes are taken by POST /${this.parent.entry.declaration.name} and PUT/PATCH /${this.parent.entry.declaration.name}/{id}, not by bulk updates.`, path);
    });
    throw new Error('refuseInBulkUpdate: no nested part found');
  }

  /** Decision 75: the request's count of nested items, against REST_MAX_NESTED_RECORDS. */
  private budget(): NestedBudget {
    return { max: this.parent.config.maxNestedRecords, used: 0 };
  }

  /** Rights first (403 before any 422), then every part's checks; with an error, the parent's own errors join them. */
  private async check(parsed: NestedItem[], parentId: Id | null, ctx: RequestContext, errors: FieldErrors, parentErrors: () => Promise<unknown>, runHooks = true): Promise<PreparedOps[]> {
    checkNestedAccess(this.parent, parsed, ctx);
    const prepared = await prepareNested(this.parent, parsed, parentId, ctx, errors, runHooks);
    if (Object.keys(errors).length === 0) return prepared;
    try {
      await parentErrors();
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      for (const [path, messages] of Object.entries(error.errors)) errors[path] = [...(errors[path] ?? []), ...messages];
    }
    throw new ValidationError(errors);
  }

  /** Inside the parent's transaction: the nested parts, then the parents as a show with those relations. */
  private async run(prepared: PreparedOps[], ids: Id[], fresh: boolean, ctx: RequestContext, tx: Transaction): Promise<Outcome> {
    const written = await runNested(this.parent, prepared, ids, fresh, ctx, tx);
    const view = this.parent.viewOf(ctx).model(this.parent.name);
    // only the relations the caller may read are loaded into the answer
    const names = [...new Set(prepared.map((p) => p.ops.relation.name))].filter((name) => Object.prototype.hasOwnProperty.call(view.relations, name));
    const options = parseReadOptions({ relations: names }, view, this.parent.viewOf(ctx), this.parent.config);
    const rows = names.length > 0 ? await this.parent.read(ids, { select: null, relations: options.relations }, ctx, tx) : [];
    const createdRows = await Promise.all(written.map((w) => (hooked(w.related, 'afterCreate') && w.created.length > 0 ? w.related.read(w.created, { select: null, relations: [] }, ctx, tx) : [])));
    const updatedRows = await Promise.all(written.map((w) => (hooked(w.related, 'afterUpdate') && w.updated.length > 0 ? w.related.read(w.updated, { select: null, relations: [] }, ctx, tx) : [])));
    return { names, rows, written, createdRows, updatedRows };
  }

  /**
   * After the commit: caches of every model touched, each related resource's after hooks, and
   * the parent's rows (as its own hooks answered them) with the nested relations loaded.
   * Change feed: every nested record is written through its resource's database door (service/database.ts) inside the
   * parent's transaction, so the feed's recording driver sees it and emits after the commit.
   */
  private async answer(result: WriteResult | BulkWriteResult, outcome: Outcome, ctx: RequestContext): Promise<WriteResult | BulkWriteResult> {
    for (const [i, w] of outcome.written.entries()) {
      const hooks = w.related.entry.declaration.hooks ?? {};
      if (w.created.length > 0 || w.updated.length > 0) ctx.touched.add(w.related.name);
      if (w.deleted.length > 0) for (const model of modelsTouchedByDelete(this.parent.registry, w.related.name)) ctx.touched.add(model);
      if (outcome.createdRows[i].length > 0) await runHook(hooks.afterCreate, outcome.createdRows[i], ctx);
      if (outcome.updatedRows[i].length > 0) await runHook(hooks.afterUpdate, outcome.updatedRows[i], ctx);
      if (w.deleted.length > 0 && hooks.afterDelete) await runHook(hooks.afterDelete, w.deleted, ctx);
    }
    for (const relation of this.relations.values()) if (relation.kind === 'manyToMany') ctx.touched.add(relation.related.name);
    ctx.touched.add(this.parent.name);
    const key = this.parent.entry.info.key;
    const byId = new Map(outcome.rows.map((row) => [String(row[key]), row]));
    const withRelations = (row: Row): Row => {
      const loaded = byId.get(String(row[key]));
      if (loaded) for (const name of outcome.names) row[name] = loaded[name];
      return row;
    };
    if ('model' in result) return { success: true, model: withRelations(result.model) };
    return { success: true, models: result.models.map((m) => ({ success: true as const, model: withRelations(m.model) })) };
  }
}

interface Outcome {
  names: string[];
  rows: Row[];
  written: NestedWritten[];
  createdRows: Row[][];
  updatedRows: Row[][];
}

function hooked(service: ResourceService, hook: 'afterCreate' | 'afterUpdate'): boolean {
  return Boolean(service.entry.declaration.hooks?.[hook]);
}
