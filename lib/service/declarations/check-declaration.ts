import { DeclarationError } from '../../errors/declaration-error';
import { checkGrantableRoles, DEFAULT_ROLES_FIELD } from './grantable-roles';
import type { ResourceDeclaration } from '../../declaration';
import type { ModelInfo } from '../../resource/model-info';

const KINDS = ['belongsTo', 'hasOne', 'hasMany', 'belongsToMany'];
const ON_DELETE = ['restrict', 'cascade', 'setNull'];
const MANAGED = new Set(['id', 'created_at', 'updated_at']);

/** A declaration mistake, found at start-up: names the resource, the key and what to do. */
const label = (decl: Partial<ResourceDeclaration>): string => decl.MODEL ?? decl.name ?? '(unnamed)';

/** What can be checked before the model is described: required keys and closed vocabularies. */
export function checkDeclarationShape(decl: ResourceDeclaration): void {
  const who = label(decl);
  if (typeof decl.name !== 'string' || !/^[A-Za-z0-9_-]+$/.test(decl.name)) throw new DeclarationError(who, 'name', 'give the route segment, e.g. name: "products" (letters, digits, - and _).');
  if (typeof decl.MODEL !== 'string' || decl.MODEL === '') throw new DeclarationError(who, 'MODEL', 'give the model identifier, e.g. MODEL: "product".');
  if (!decl.model) throw new DeclarationError(who, 'model', 'pass the mongoose model or Sequelize model class.');
  if (!Array.isArray(decl.fillable)) throw new DeclarationError(who, 'fillable', 'list the writable fields, e.g. fillable: ["name"] (an empty list for a read-only resource).');
  // a typo must never switch the refusal of unknown body fields off (decision 77)
  if (decl.unknownFields !== undefined && decl.unknownFields !== 'refuse' && decl.unknownFields !== 'ignore') {
    throw new DeclarationError(who, 'unknownFields', `"${String(decl.unknownFields)}" is not a choice; use "refuse" (the default: unknown body fields are a 422) or "ignore".`);
  }
  const grantable = checkGrantableRoles(decl.grantableRoles);
  if (grantable) throw new DeclarationError(who, 'grantableRoles', grantable);
  for (const [name, rel] of Object.entries(decl.relations ?? {})) {
    if (!KINDS.includes(rel.kind)) throw new DeclarationError(who, `relations.${name}.kind`, `"${String(rel.kind)}" is not a relation kind; use one of ${KINDS.join(', ')}.`);
    if (rel.onDelete !== undefined && !ON_DELETE.includes(rel.onDelete)) {
      // a typo must never switch a restrict rule off
      throw new DeclarationError(who, `relations.${name}.onDelete`, `"${String(rel.onDelete)}" is not a delete rule; use one of ${ON_DELETE.join(', ')}.`);
    }
    if (rel.onDelete !== undefined && rel.kind !== 'belongsTo') throw new DeclarationError(who, `relations.${name}.onDelete`, 'only a belongsTo relation has a delete rule; declare it on the referencing side.');
    if (rel.kind === 'belongsToMany' && rel.pivot && (!rel.pivot.table || !rel.pivot.parentKey || !rel.pivot.relatedKey)) {
      throw new DeclarationError(who, `relations.${name}.pivot`, 'a pivot needs table, parentKey and relatedKey.');
    }
  }
}

function unknownFields(info: ModelInfo, names: string[]): string[] {
  return names.filter((n) => !MANAGED.has(n) && !Object.prototype.hasOwnProperty.call(info.fields, n));
}

/**
 * What needs the described models: every field named exists, every foreign key is a field of the
 * model that holds it, every pivot table and column exists (`pivotColumns` asks the driver).
 */
export function checkDeclarationFields(
  decl: ResourceDeclaration,
  info: ModelInfo,
  modelOf: (name: string) => ModelInfo | undefined,
  pivotColumns: ((table: string) => string[] | null) | undefined,
): void {
  const who = decl.MODEL;
  const fields = Object.keys(info.fields).join(', ');
  const check = (key: string, names: string[]): void => {
    const unknown = unknownFields(info, names);
    if (unknown.length > 0) throw new DeclarationError(who, key, `${unknown.map((u) => `"${u}"`).join(', ')} ${unknown.length === 1 ? 'is not a field' : 'are not fields'} of the model; fields: ${fields}.`);
  };
  check('fillable', decl.fillable);
  check('writeOnly', decl.writeOnly ?? []);
  for (const [role, names] of Object.entries(decl.fieldsByRole ?? {})) check(`fieldsByRole.${role}`, names);
  if (decl.grantableRoles) check('rolesField', [decl.rolesField ?? DEFAULT_ROLES_FIELD]);
  if (decl.superuserField !== undefined) check('superuserField', [decl.superuserField]);
  if (decl.HIERARCHY_FIELD_ID !== undefined && !Object.prototype.hasOwnProperty.call(info.fields, decl.HIERARCHY_FIELD_ID)) {
    throw new DeclarationError(who, 'HIERARCHY_FIELD_ID', `"${decl.HIERARCHY_FIELD_ID}" is not a field of the model; name its self-referencing parent key (fields: ${fields}).`);
  }
  if (decl.owner !== undefined && !Object.prototype.hasOwnProperty.call(info.fields, decl.owner)) {
    throw new DeclarationError(who, 'owner', `"${decl.owner}" is not a field of the model; name the field holding the owner's user id (fields: ${fields}).`);
  }
  if (info.softDelete && !Object.prototype.hasOwnProperty.call(info.fields, info.softDelete)) {
    throw new DeclarationError(who, 'softDelete', `"${info.softDelete}" is not a field of the model; add a nullable date field for the deletion time (fields: ${fields}).`);
  }
  if (info.softDelete && info.fields[info.softDelete].type !== 'date') {
    throw new DeclarationError(who, 'softDelete', `"${info.softDelete}" must be a date field (the deletion time).`);
  }
  for (const rel of [...Object.values(info.relations), ...Object.values(info.hiddenRelations)]) {
    const declared = decl.relations?.[rel.name];
    if (!declared) continue;
    const target = modelOf(rel.target);
    if (!target) continue;
    const holder = rel.kind === 'belongsTo' ? info : rel.kind === 'belongsToMany' ? null : target;
    if (holder && !Object.prototype.hasOwnProperty.call(holder.fields, rel.foreignKey)) {
      throw new DeclarationError(who, `relations.${rel.name}.foreignKey`, `"${rel.foreignKey}" is not a field of ${holder.name}; name the column that holds the reference.`);
    }
    if (declared.localKey !== undefined && rel.kind !== 'hasOne' && rel.kind !== 'hasMany') {
      throw new DeclarationError(who, `relations.${rel.name}.localKey`, `only a hasOne or hasMany relation has a localKey (this one is ${rel.kind}).`);
    }
    if (rel.localKey !== undefined && !Object.prototype.hasOwnProperty.call(info.fields, rel.localKey)) {
      throw new DeclarationError(who, `relations.${rel.name}.localKey`, `"${rel.localKey}" is not a field of ${info.name}; name the key column whose value ${rel.target}.${rel.foreignKey} holds.`);
    }
    if (rel.kind === 'belongsToMany' && rel.pivot && pivotColumns) {
      const columns = pivotColumns(rel.pivot.table);
      if (columns === null) throw new DeclarationError(who, `relations.${rel.name}.pivot.table`, `no table or collection model "${rel.pivot.table}" is known to the database layer; define its model (Sequelize define / mongoose model).`);
      const missing = [rel.pivot.parentKey, rel.pivot.relatedKey, ...rel.pivot.columns].filter((c) => !columns.includes(c));
      if (missing.length > 0) throw new DeclarationError(who, `relations.${rel.name}.pivot`, `${missing.map((m) => `"${m}"`).join(', ')} not in pivot ${rel.pivot.table} (columns: ${columns.join(', ')}).`);
    }
  }
}
