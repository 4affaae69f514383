import type { Id } from '../../driver';
import { BadRequestError, ForbiddenError } from '../../errors';
import type { PivotEntry } from '../writes/pivot-input';
import { checkReferences } from '../writes/check-references';
import { runHook } from '../hooks';
import type { RequestContext } from '../request-context';
import type { ResourceService } from '../resource-service';
import { addError, type FieldErrors } from '../writes/validate-input';
import type { NestedRelation } from './nested-config';
import type { NestedItem, NestedOps } from './parse-nested';

/** A link to write, its id parsed (null: no id of the related model, an error at `path`). */
export interface PreparedLink {
  id: Id | null;
  rawId: unknown;
  values: Record<string, unknown>;
  path: string;
}

/** One parent item's part of one relation, checked and cast: what the transaction writes. */
export interface PreparedOps {
  /** Index of the parent item in the request (its id comes from the insert, or the path). */
  item: number;
  ops: NestedOps;
  /** Records to create, validated, without the foreign key (set once the parent's id is known). */
  create: Record<string, unknown>[];
  update: Array<{ id: Id | null; rawId: unknown; changes: Record<string, unknown> }>;
  delete: Array<{ id: Id | null; rawId: unknown }>;
  attach: PreparedLink[];
  detach: Array<{ id: Id | null; rawId: unknown; path: string }>;
  sync: PreparedLink[] | null;
}

/**
 * Decision 59: each part needs its own right: create/update/delete on the related resource for
 * its records, update on the parent for links. Answered in memory, before anything is read.
 */
export function checkNestedAccess(parent: ResourceService, items: NestedItem[], ctx: RequestContext): void {
  const policy = parent.pipeline.policy;
  const refuse = (service: ResourceService, action: 'create' | 'update' | 'delete') => {
    if (policy.possession(service.entry.info, action, ctx) === null) throw new ForbiddenError(`${service.entry.declaration.name}.${action === 'create' ? 'store' : action === 'delete' ? 'destroy' : 'update'}`);
  };
  for (const item of items) {
    for (const ops of item.nested) {
      const related = ops.relation.related;
      if (ops.create.length > 0) refuse(related, 'create');
      if (ops.update.length > 0) refuse(related, 'update');
      if (ops.delete.length > 0) refuse(related, 'delete');
      if (ops.attach.length > 0 || ops.detach.length > 0 || ops.sync !== null) refuse(parent, 'update');
    }
  }
}

/** The value the foreign key holds while a new parent's children are validated (its id is not known yet). */
function placeholderId(parent: ResourceService): Id {
  return parent.entry.info.idType === 'integer' ? 1 : '000000000000000000000000';
}

const isScalar = (raw: unknown): boolean => typeof raw === 'string' || typeof raw === 'number';

const parseId = (related: ResourceService, raw: unknown): Id | null => (isScalar(raw) ? related.database.parseId(related.name, String(raw)) : null);

/**
 * Every nested part checked by its own resource's rules (fillable, field write policy, values,
 * schema, references, the before hooks), one relation at a time over all the request's items, so
 * the checks cost the same whatever the number of nested records. Errors go into `errors`.
 */
export async function prepareNested(parent: ResourceService, items: NestedItem[], parentId: Id | null, ctx: RequestContext, errors: FieldErrors, runHooks = true): Promise<PreparedOps[]> {
  const prepared: PreparedOps[] = [];
  items.forEach((item, index) => {
    for (const ops of item.nested) {
      const related = ops.relation.related;
      const link = (e: PivotEntry): PreparedLink => ({ id: parseId(related, e.rawId), rawId: e.rawId, values: e.values, path: e.path });
      prepared.push({
        item: index,
        ops,
        create: [],
        update: ops.update.map((r) => ({ id: parseId(related, r.raw.id), rawId: r.raw.id, changes: {} })),
        delete: ops.delete.map((d) => ({ id: parseId(related, d.rawId), rawId: d.rawId })),
        attach: ops.attach.map(link),
        detach: ops.detach.map((d) => ({ id: parseId(related, d.rawId), rawId: d.rawId, path: d.path })),
        sync: ops.sync ? ops.sync.map(link) : null,
      });
    }
  });
  for (const p of prepared) {
    // a record is updated or deleted once per request (as in the bulk routes)
    const seen = new Set<string>();
    for (const n of [...p.update, ...p.delete]) {
      if (n.id === null) continue;
      if (seen.has(String(n.id))) throw new BadRequestError(`The id ${String(n.rawId)} appears more than once in "${p.ops.path}".`, p.ops.path);
      seen.add(String(n.id));
    }
    // an id that is no id of the related model names no record (one that is no scalar was refused when parsed)
    for (const l of [...p.attach, ...(p.sync ?? []), ...p.detach]) if (l.id === null && isScalar(l.rawId)) addError(errors, l.path, `The ${p.ops.relation.related.entry.info.name} named by ${l.path} does not exist.`);
  }
  const byRelation = new Map<NestedRelation, PreparedOps[]>();
  for (const p of prepared) if (p.ops.relation.kind === 'oneToMany') byRelation.set(p.ops.relation, [...(byRelation.get(p.ops.relation) ?? []), p]);
  for (const [relation, parts] of byRelation) await prepareRecords(parent, relation, parts, parentId, ctx, errors, runHooks);
  return prepared;
}

/** The records to create and the changes to apply of one one-to-many relation, over every item. */
async function prepareRecords(parent: ResourceService, relation: NestedRelation, parts: PreparedOps[], parentId: Id | null, ctx: RequestContext, errors: FieldErrors, runHooks: boolean): Promise<void> {
  const related = relation.related;
  // /validate checks without the before hooks (they run for writes only)
  const hooks = runHooks ? (related.entry.declaration.hooks ?? {}) : {};
  const fk = relation.foreignKey;
  const creates = parts.flatMap((p) => p.ops.create);
  if (creates.length > 0) {
    // the schema sees a foreign key (required, as a relation route's create would set it); written once the parent's id is known
    const rules = related.writeRules('create', ctx, { [fk]: parentId ?? placeholderId(parent) });
    const records = await related.prepareRange(creates.map((c) => c.raw), 0, creates.length, (i) => `${creates[i].path}.`, rules, errors);
    for (const record of records) delete record[fk];
    await related.translating(() => checkReferences(related.entry, related.registry, records, (i, field) => `${creates[i].path}.${field}`, errors));
    const hooked = Object.keys(errors).length > 0 ? records : await runHook(hooks.beforeCreate, records, ctx);
    let at = 0;
    for (const p of parts) {
      p.create = hooked.slice(at, at + p.ops.create.length);
      at += p.ops.create.length;
    }
  }
  const updates = parts.flatMap((p) => p.ops.update);
  if (updates.length > 0) {
    const rules = related.writeRules('update', ctx, {});
    const changes = await related.prepareRange(updates.map((u) => u.raw), 0, updates.length, (i) => `${updates[i].path}.`, rules, errors);
    await related.translating(() => checkReferences(related.entry, related.registry, changes, (i, field) => `${updates[i].path}.${field}`, errors));
    let at = 0;
    for (const p of parts) {
      p.update.forEach((u, i) => {
        u.changes = changes[at + i];
      });
      at += p.update.length;
    }
    if (Object.keys(errors).length === 0 && hooks.beforeUpdate) {
      for (const p of parts) {
        const known = p.update.filter((u) => u.id !== null);
        const replaced = await runHook(hooks.beforeUpdate, known.map((u) => ({ id: u.id as Id, changes: u.changes })), ctx);
        known.forEach((u, i) => (u.changes = replaced[i]?.changes ?? u.changes));
      }
    }
  }
  if (Object.keys(errors).length === 0 && hooks.beforeDelete) {
    for (const p of parts) {
      const ids = p.delete.flatMap((d) => (d.id === null ? [] : [d.id]));
      if (ids.length > 0) await hooks.beforeDelete(ids, ctx);
    }
  }
}
