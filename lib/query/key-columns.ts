import type { ModelInfo } from '../resource/model-info';
import type { LoadNode } from './parse-relations';

function withKeys(key: string, columns: string[], extra: string[]): string[] {
  const out = [key];
  for (const c of [...columns, ...extra]) if (!out.includes(c)) out.push(c);
  return out;
}

/** Fields of `model` needed to attach its loads: belongsTo foreign keys, and the localKey of a to-many on a non-primary key. */
function belongsToKeys(children: Iterable<LoadNode>): string[] {
  return [...children].flatMap((c) => (c.relation.kind === 'belongsTo' ? [c.relation.foreignKey] : c.relation.localKey !== undefined ? [c.relation.localKey] : []));
}

/**
 * Root columns with the keys needed to attach related records (decision 12): the primary key
 * and the foreign key of every loaded belongsTo relation. null stays null (all fields).
 */
export function rootColumns(model: ModelInfo, select: string[] | null, loads: Map<string, LoadNode>): string[] | null {
  if (select === null) return null;
  return withKeys(model.key, select, belongsToKeys(loads.values()));
}

/**
 * A relation's columns with its keys: the target's primary key, for hasOne/hasMany the foreign
 * key on the target, and the foreign keys of its own belongsTo children. Pivot columns are not
 * target fields, so belongsToMany adds nothing beyond the key.
 */
export function loadColumns(node: LoadNode): string[] | null {
  if (node.columns === 'all' || node.columns === 'unset') return null;
  const extra = node.relation.kind === 'hasOne' || node.relation.kind === 'hasMany' ? [node.relation.foreignKey] : [];
  return withKeys(node.target.key, node.columns, [...extra, ...belongsToKeys(node.children.values())]);
}
