import type { PivotInfo, RelationInfo } from '../../resource/model-info';
import { DeclarationError } from '../../errors/declaration-error';
import type { ResourceService } from '../resource-service';

/** A relation opted in to nested writes (decision 58), resolved and checked at start. */
export interface NestedRelation {
  /** The relation's name: the body key its nested data is read under. */
  name: string;
  kind: 'oneToMany' | 'manyToMany';
  relation: RelationInfo;
  related: ResourceService;
  /** One-to-many: the related records' field holding the parent's id (set by the server). */
  foreignKey: string;
  pivot: PivotInfo | null;
  /** Many-to-many: the pivot columns a nested link may write. */
  writablePivot: string[];
}

/**
 * The `nestedWrites` of a resource, resolved: each name a hasMany (on the parent's primary key)
 * or belongsToMany relation of a registered resource; every mistake names the key to fix.
 */
export function resolveNested(parent: ResourceService, serviceOf: (model: string) => ResourceService | undefined): Map<string, NestedRelation> {
  const out = new Map<string, NestedRelation>();
  const info = parent.entry.info;
  (parent.entry.declaration.nestedWrites ?? []).forEach((entry, index) => {
    const name = typeof entry === 'string' ? entry : entry?.relation;
    const fail = (problem: string): never => {
      throw new DeclarationError(parent.name, `nestedWrites.${index}`, problem);
    };
    if (typeof name !== 'string') return fail('give a relation name or {relation, pivotColumns}.');
    const relation = info.relations[name] ?? info.hiddenRelations[name];
    if (!relation) return fail(`"${name}" is not a relation of ${parent.name} (relations: ${Object.keys(info.relations).join(', ') || 'none'}).`);
    if (relation.kind !== 'hasMany' && relation.kind !== 'belongsToMany') return fail(`"${name}" is a ${relation.kind} relation; nested writes take hasMany and belongsToMany relations.`);
    if (relation.kind === 'hasMany' && relation.localKey && relation.localKey !== info.key) return fail(`"${name}" links on ${relation.localKey}; nested writes take relations on the primary key.`);
    const related = serviceOf(relation.target);
    if (!related) return fail(`${relation.target} is not a registered resource.`);
    // one transaction: the related records live where the parent does (same driver, same connection)
    if (related!.entry.driver !== parent.entry.driver) return fail(`${relation.target} is served by another driver or connection than ${parent.name}; a nested write is one transaction.`);
    const pivot = relation.pivot ?? null;
    if (relation.kind === 'belongsToMany' && (!pivot || !parent.entry.driver.pivots)) return fail(`"${name}" has no pivot the ${parent.entry.driver.kind} driver can write.`);
    const columns = pivot?.columns ?? [];
    const declared = typeof entry === 'string' ? undefined : entry.pivotColumns;
    const writablePivot = declared && declared.length > 0 ? declared : columns;
    const unknown = writablePivot.filter((c) => !columns.includes(c));
    if (unknown.length > 0) fail(`pivotColumns ${unknown.join(', ')} not among the pivot columns of "${name}" (${columns.join(', ') || 'none'}).`);
    out.set(name, {
      name,
      kind: relation.kind === 'hasMany' ? 'oneToMany' : 'manyToMany',
      relation,
      related: related!,
      foreignKey: relation.foreignKey,
      pivot,
      writablePivot,
    });
  });
  return out;
}
