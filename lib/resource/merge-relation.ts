import { DeclarationError } from '../errors/declaration-error';
import type { RelationDeclaration } from './relation-declaration';
import type { RelationInfo } from './model-info';

/**
 * One relation as every driver describes it: the declaration wins; what it omits comes from what
 * the driver derived from the model (mongoose ref/virtual, Sequelize association) when that is a
 * relation of the same kind, then from naming conventions (`<relation>_id`, `<MODEL>_id`).
 */
export function mergeDeclaredRelation(name: string, decl: RelationDeclaration, derived: RelationInfo | undefined, MODEL: string): RelationInfo {
  const same = derived && derived.kind === decl.kind ? derived : undefined;
  const fallbackFk = decl.kind === 'belongsTo' ? `${name}_id` : `${MODEL}_id`;
  const rel: RelationInfo = {
    name,
    kind: decl.kind,
    target: decl.target,
    foreignKey: decl.foreignKey ?? decl.pivot?.parentKey ?? same?.foreignKey ?? fallbackFk,
  };
  if (decl.kind === 'belongsTo') rel.onDelete = decl.onDelete ?? same?.onDelete ?? 'restrict';
  if (decl.kind === 'hasOne' || decl.kind === 'hasMany') {
    const localKey = decl.localKey ?? same?.localKey;
    if (localKey !== undefined) rel.localKey = localKey;
  }
  if (decl.kind === 'belongsToMany') {
    const pivot = decl.pivot ?? same?.pivot;
    if (!pivot) {
      throw new DeclarationError(MODEL, `relations.${name}.pivot`, 'a belongsToMany goes through a pivot table or collection: declare pivot: {table, parentKey, relatedKey} (an array of ids stored in the record is not a relation).');
    }
    rel.pivot = {
      table: pivot.table,
      parentKey: pivot.parentKey,
      relatedKey: pivot.relatedKey,
      columns: pivot.columns ?? same?.pivot?.columns ?? [],
      columnTypes: { ...(same?.pivot?.columnTypes ?? {}), ...(pivot.columnTypes ?? {}) },
    };
    rel.foreignKey = rel.pivot.parentKey;
  }
  return rel;
}
