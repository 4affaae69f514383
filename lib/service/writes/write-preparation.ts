import { ResourceReads } from '../reads/resource-reads';
import type { YupLikeSchema } from '../../resource/yup-like';
import type { Id, Row, Transaction } from '../../driver';
import { ForbiddenError, MissingIdsError, RefusedChangeError, ValidationError } from '../../errors';
import type { Filter, ListQuery } from '../../query/ast';
import { allOf } from '../../query/walk';
import type { AccessAction } from '../policy/access-policy';
import { changeGuard, rolesRule, type ChangeGuard } from '../declarations/grantable-roles';
import { ownerFilter, ownerValue } from '../policy/ownership';
import { checkReferences } from './check-references';
import { checkValues } from './check-values';
import { byIdsQuery } from '../reads/read-by-ids';
import type { RequestContext } from '../request-context';
import { addError, pickFillable, validateItem, type FieldErrors } from './validate-input';
import { stamp } from '../resource-service-types';
import type { WriteScope, WriteRules } from '../resource-service-types';

/** What writes check before and inside their transaction: input rules, ownership, visibility, hierarchy cycles. */
export class WritePreparation extends ResourceReads {
  /** Fillable attributes, validated and cast, belongsTo references checked; 422 with every error. */
  async prepare(items: unknown[], mode: 'create' | 'update', prefix: (index: number) => string, ctx: RequestContext, forced: Record<string, unknown> = {}): Promise<Record<string, unknown>[]> {
    const errors: FieldErrors = {};
    const records = await this.prepareRange(items, 0, items.length, prefix, this.writeRules(mode, ctx, forced), errors);
    await this.db(() => checkReferences(this.entry, this.registry, records, (i, field) => `${prefix(i)}${field}`, errors));
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    return records;
  }

  /** What checking one request's records needs, looked up once per request. */
  writeRules(mode: 'create' | 'update', ctx: RequestContext, forced: Record<string, unknown>): WriteRules {
    const { info, declaration } = this.entry;
    return {
      // yup's own schema behind the published structural type (YupLikeSchema)
      schema: (mode === 'create' ? declaration.validation?.create : declaration.validation?.update),
      prohibited: this.pipeline.policy.prohibitedFields(info, ctx),
      // decision 81: a new record starts at version 1, whatever the body says
      stamped: { ...this.ownerStamp(mode, ctx), ...(mode === 'create' && info.versionField ? { [info.versionField]: 1 } : {}), ...forced },
      roles: rolesRule(declaration.grantableRoles, declaration.rolesField, ctx),
    };
  }

  /**
   * Items `from` to `to` (exclusive) checked and cast: fillable fields, values against the model,
   * the schema; errors keyed by each item's own index. References are checked by the caller.
   */
  async prepareRange(items: unknown[], from: number, to: number, prefix: (index: number) => string, rules: WriteRules, errors: FieldErrors): Promise<Record<string, unknown>[]> {
    const { info } = this.entry;
    const records: Record<string, unknown>[] = [];
    for (let index = from; index < to; index += 1) {
      const item = items[index];
      if (item === null || typeof item !== 'object' || Array.isArray(item)) {
        addError(errors, prefix(index).replace(/\.$/, '') || 'body', 'Each record must be a JSON object.');
        records.push({});
        continue;
      }
      // only own fillable keys are copied out of the body (never __proto__ and the like)
      const raw = item as Record<string, unknown>;
      const at = prefix(index);
      // fieldsByRole: each field the caller's roles may not write is an error of its own (decision 39)
      if (rules.prohibited.size > 0) for (const field in raw) if (rules.prohibited.has(field) && Object.prototype.hasOwnProperty.call(raw, field)) addError(errors, `${at}${field}`, `The ${field} field is prohibited.`);
      // grantableRoles: a role name the caller may not grant is an error of the roles field (decision 68)
      if (rules.roles && Object.prototype.hasOwnProperty.call(raw, rules.roles.field) && !rules.prohibited.has(rules.roles.field)) {
        const refused = rules.roles.check(raw[rules.roles.field]);
        if (refused) addError(errors, `${at}${rules.roles.field}`, refused);
      }
      const attributes = stamp(pickFillable(raw, info.fillable), rules.stamped);
      // the types as sent, before a schema's casts could turn `[1]` into 1
      checkValues(info, attributes, at, errors);
      // what the server sets (owner, a relation's parent key) stays set even when not fillable
      const validated = validateItem(rules.schema, attributes, info.fillable, at, errors);
      const record = stamp(validated instanceof Promise ? await validated : validated, rules.stamped);
      checkValues(info, record, at, errors);
      records.push(record);
    }
    return records;
  }

  /**
   * With only an "own" grant for a write, the owner field is the caller whatever the body says
   * (a create is theirs; an update cannot give a record away).
   */
  protected ownerStamp(mode: 'create' | 'update', ctx: RequestContext): Record<string, unknown> {
    const { owner, key } = this.entry.info;
    if (!owner || owner === key || !ctx.user) return {};
    if (this.pipeline.policy.possession(this.entry.info, mode, ctx) !== 'own') return {};
    return { [owner]: ownerValue(this.entry.info, ctx) };
  }

  /**
   * Decision 40: with only an "own" grant for `action`, a record the caller may read but does not
   * own is a 403 (one query, only for such callers; records they may not read were already 404s).
   */
  protected async assertOwned(ids: Id[], action: AccessAction, ctx: RequestContext, tx: Transaction, trashed?: 'with'): Promise<void> {
    const info = this.entry.info;
    if (this.pipeline.policy.possession(info, action, ctx) !== 'own') return;
    const mine: ListQuery = { ...byIdsQuery(info, ids, { select: [info.key], relations: [] }), trashed };
    const filter = allOf(mine.filter, ownerFilter(info, ctx));
    const { rows } = await this.database.list({ ...mine, filter }, tx);
    if (rows.length < ids.length) throw new ForbiddenError();
  }

  /**
   * First in a write that moves records in a hierarchy (sets the parent field): the driver's lock
   * orders concurrent moves of this model, so the cycle check of each sees the moves committed
   * before it. Without it, A.parent = B and B.parent = A in parallel both pass their checks.
   */
  protected async lockHierarchy(items: Array<{ changes: Record<string, unknown> }>, tx: Transaction): Promise<void> {
    const field = this.entry.info.hierarchyField;
    if (!field || !this.database.locksHierarchy) return;
    if (items.some((item) => item.changes[field] !== undefined && item.changes[field] !== null)) await this.database.lockHierarchy(this.name, tx);
  }

  /**
   * Decision 44: after a write moved records in a hierarchy, no record may be its own ancestor
   * (itself or a descendant as parent, also across the items of one bulk request). One walk up
   * from the moved records inside the write's transaction, so concurrent moves cannot cross.
   */
  protected async assertNoCycle(items: Array<{ id: Id; changes: Record<string, unknown> }>, tx: Transaction, prefix: (index: number) => string): Promise<void> {
    const { hierarchyField: field, key } = this.entry.info;
    if (!field) return;
    const moved = items.map((item, index) => ({ item, index })).filter(({ item }) => item.changes[field] !== undefined && item.changes[field] !== null);
    if (moved.length === 0) return;
    const start: Filter = { kind: 'condition', field: key, operator: 'in', value: moved.map(({ item }) => item.id) };
    const query: ListQuery = { model: this.name, filter: null, select: [key, field], relations: [], order: [{ relations: [], field: key, direction: 'asc' }], page: null, limit: null, tree: { parentField: field, start, down: false, up: true, maxDepth: null, scope: null } };
    const { rows } = await this.database.list(query, tx);
    const parentOf = new Map(rows.map((r) => [String(r[key]), r[field] === null || r[field] === undefined ? null : String(r[field])]));
    const errors: FieldErrors = {};
    for (const { item, index } of moved) {
      const self = String(item.id);
      const seen = new Set<string>();
      for (let at = parentOf.get(self) ?? null; at !== null && !seen.has(at); at = parentOf.get(at) ?? null) {
        if (at === self) {
          addError(errors, `${prefix(index)}${field}`, `The ${field} cannot be the ${this.name} itself or one of its descendants.`);
          break;
        }
        seen.add(at);
      }
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  }


  protected async assertAllVisible(ids: Id[], ctx: RequestContext, tx: Transaction, scope: WriteScope = {}): Promise<void> {
    this.assertAllFound(ids, await this.changeableIds(ids, ctx, tx, scope.narrow), scope);
  }

  /**
   * Decision 69 where no visibility read carries it (destroy, restore, force delete: they read the
   * whole record under the read policy, `read`): judged on those rows when they hold the guarded
   * fields, else one read of those fields as stored (the read policy hid one), only for a caller
   * the rule applies to; a 403 when one of `ids` may not be changed.
   */
  protected async assertChangeable(ids: Id[], ctx: RequestContext, tx: Transaction, read: Row[], trashed?: 'with' | 'only'): Promise<void> {
    const guard = this.changeGuard(ctx);
    if (!guard) return;
    const whole = read.length === ids.length && read.every((row) => guard.fields.every((field) => Object.prototype.hasOwnProperty.call(row, field)));
    const rows = whole ? read : (await this.database.list({ ...byIdsQuery(this.entry.info, ids, { select: [this.entry.info.key, ...guard.fields], relations: [] }), trashed }, tx)).rows;
    for (const row of rows) {
      const refusal = guard.refusal(row);
      if (refusal) throw new RefusedChangeError(refusal);
    }
  }

  /** Decision 69 for this caller (null: every record they may see is theirs to change). */
  changeGuard(ctx: RequestContext): ChangeGuard | null {
    return changeGuard(this.entry.declaration, this.entry.info, ctx);
  }

  /**
   * visibleIds for a write that updates or deletes `ids`: where decision 69 applies, the records
   * are judged in the same read (their roles and superuser flag selected with the key), so no
   * statement is added; when all are visible and one may not be changed, a 403 (missing ones
   * stay the caller's 404).
   */
  async changeableIds(ids: Id[], ctx: RequestContext, tx?: Transaction, narrow: Filter | null = null): Promise<Id[]> {
    const guard = this.changeGuard(ctx);
    if (!guard || ids.length === 0) return this.visibleIds(ids, ctx, tx, narrow);
    const rows = await this.visibleRows(ids, guard.fields, ctx, tx, narrow);
    if (rows.length === new Set(ids.map(String)).size) {
      for (const row of rows) {
        const refusal = guard.refusal(row);
        if (refusal) throw new RefusedChangeError(refusal);
      }
    }
    const found = new Set(rows.map((r) => String(r[this.entry.info.key])));
    return ids.filter((id) => found.has(String(id)));
  }

  /** 404 listing the ids not among `found` (those visible, or those a write reached). */
  protected assertAllFound(ids: Id[], found: Id[], scope: WriteScope): void {
    if (found.length === ids.length) return;
    const seen = new Set(found.map(String));
    const missing = ids.filter((id) => !seen.has(String(id)));
    if (missing.length > 0) throw scope.notFound?.(missing) ?? new MissingIdsError(this.name, missing);
  }

  /**
   * True when the caller may write every existing record of this model: no scope narrows what
   * they see (read policies, soft delete, a relation route's parent) and no owner-only grant.
   */
  protected seesEveryRecord(ctx: RequestContext, scope: WriteScope): boolean {
    // decision 69: the records are judged before the write
    if (this.changeGuard(ctx)) return false;
    if (allOf(this.pipeline.scopeOf(ctx)(this.name), scope.narrow ?? null)) return false;
    return this.pipeline.policy.possession(this.entry.info, 'update', ctx) !== 'own';
  }
}
