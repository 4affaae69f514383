import type { PivotInfo, RelationInfo } from '../resource/model-info';
import { DeclarationError } from '../errors/declaration-error';
import type { ResourceService } from '../service/resource-service';

/** The spec's `mutation` block of a relation configuration. */
export interface RelationMutation {
  /** Request keys the mutation data is read from (default: the relation segment, then the body itself). */
  dataKey?: string | string[];
  /** deleteRelation deletes the related record (default true); false only unlinks it. */
  deleteRelated?: boolean;
  /** Many-to-many: the pivot columns a client may write (default, or an empty list: every pivot column); others are ignored. */
  pivotColumns?: string[];
}

/**
 * `oneToManyConfig` of the spec, keyed by relation segment. Everything the relation declaration
 * already says is derived: only differences need writing (an empty object is a valid config).
 */
export interface OneToManyConfig {
  /** The has-many relation of the parent (default: the segment). */
  relationship?: string;
  relatedModel?: string;
  parentModel?: string;
  foreignKey?: string;
  localKey?: string;
  mutation?: RelationMutation;
}

/** `manyToManyConfig` of the spec, keyed by relation segment. */
export interface ManyToManyConfig {
  relationship?: string;
  relatedModel?: string;
  parentModel?: string;
  /** The pivot table / collection. */
  pivotModel?: string;
  parentKey?: string;
  relatedKey?: string;
  mutation?: RelationMutation;
}

export interface RelationRoutesOptions {
  oneToMany?: Record<string, OneToManyConfig>;
  manyToMany?: Record<string, ManyToManyConfig>;
  /**
   * Also serve these relations at `/<prefix>/<segment>` with the authenticated user as the parent
   * (register them on the resource that holds your users). `explicit: false` drops `/<resource>/:id/<segment>`.
   */
  implicitParent?: { prefix: string; explicit?: boolean };
}

/** A relation route's configuration with everything derived and checked. */
export interface ResolvedRelation {
  segment: string;
  kind: 'oneToMany' | 'manyToMany';
  parent: ResourceService;
  related: ResourceService;
  relation: RelationInfo;
  /** One-to-many: the field of the related model holding the parent's id (or its localKey's value). */
  foreignKey: string;
  /** One-to-many on a key column of the parent other than its primary key (the spec's localKey), else null. */
  localKey: string | null;
  pivot: PivotInfo | null;
  dataKeys: string[];
  /** True when the configuration declares mutation.dataKey: bodies must then hold it (decision 67). */
  dataKeyDeclared: boolean;
  deleteRelated: boolean;
  /** Many-to-many: the pivot columns a client may write. */
  writablePivot: string[];
}

/** Resolves and checks one configured relation at start-up: every mistake names the key to fix. */
export function resolveRelation(
  parent: ResourceService,
  segment: string,
  kind: 'oneToMany' | 'manyToMany',
  config: OneToManyConfig & ManyToManyConfig,
  serviceOf: (model: string) => ResourceService | undefined,
): ResolvedRelation {
  const where = `${kind}.${segment}`;
  const fail = (key: string, problem: string): never => {
    throw new DeclarationError(parent.name, `${where}${key ? `.${key}` : ''}`, problem);
  };
  if (!/^[A-Za-z0-9_-]+$/.test(segment)) fail('', 'a relation segment is letters, digits, - and _.');
  const info = parent.entry.info;
  const name = config.relationship ?? segment;
  const relation = info.relations[name] ?? info.hiddenRelations[name];
  if (!relation) fail('relationship', `"${name}" is not a relation of ${parent.name} (relations: ${Object.keys(info.relations).join(', ') || 'none'}).`);
  const wanted = kind === 'oneToMany' ? ['hasMany', 'hasOne'] : ['belongsToMany'];
  if (!wanted.includes(relation.kind)) fail('relationship', `"${name}" is a ${relation.kind} relation; ${kind} routes need ${wanted.join(' or ')}.`);
  const related = serviceOf(relation.target);
  if (!related) fail('relatedModel', `${relation.target} is not a registered resource.`);
  if (config.relatedModel !== undefined && config.relatedModel !== relation.target && config.relatedModel !== related!.entry.declaration.name) {
    fail('relatedModel', `"${config.relatedModel}" does not match the relation's target ${relation.target}.`);
  }
  if (config.parentModel !== undefined && config.parentModel !== parent.name && config.parentModel !== parent.entry.declaration.name) {
    fail('parentModel', `"${config.parentModel}" is not ${parent.name}.`);
  }
  // the spec's localKey: any key column of the parent; the relation declares it (relations.<name>.localKey)
  const localKey = relation.localKey ?? info.key;
  if (config.localKey !== undefined && config.localKey !== localKey) {
    fail('localKey', `the relation "${name}" links ${relation.target}.${relation.foreignKey} to ${parent.name}.${localKey}; to link another key column, declare relations.${name}.localKey: "${config.localKey}" on ${parent.name}.`);
  }
  if (config.foreignKey !== undefined && config.foreignKey !== relation.foreignKey) fail('foreignKey', `the relation's foreign key is "${relation.foreignKey}".`);
  const pivot = relation.pivot ?? null;
  if (kind === 'manyToMany') {
    if (!pivot) fail('pivotModel', `relation "${name}" declares no pivot.`);
    if (config.pivotModel !== undefined && config.pivotModel !== pivot!.table) fail('pivotModel', `the relation's pivot is "${pivot!.table}".`);
    if (config.parentKey !== undefined && config.parentKey !== pivot!.parentKey) fail('parentKey', `the pivot's parent key is "${pivot!.parentKey}".`);
    if (config.relatedKey !== undefined && config.relatedKey !== pivot!.relatedKey) fail('relatedKey', `the pivot's related key is "${pivot!.relatedKey}".`);
    if (!parent.database.hasPivots) fail('', `the ${parent.database.kind} driver cannot write pivot rows.`);
  }
  const columns = pivot?.columns ?? [];
  // spec: "default empty meaning all": an empty list (declared or not) allows every pivot column
  const declaredPivot = config.mutation?.pivotColumns;
  const writablePivot = declaredPivot && declaredPivot.length > 0 ? declaredPivot : columns;
  const unknown = writablePivot.filter((c) => !columns.includes(c));
  if (unknown.length > 0) fail('mutation.pivotColumns', `${unknown.join(', ')} not among the pivot columns (${columns.join(', ') || 'none'}).`);
  const dataKey = config.mutation?.dataKey;
  return {
    segment,
    kind,
    parent,
    related: related!,
    relation,
    foreignKey: relation.foreignKey,
    localKey: kind === 'oneToMany' && localKey !== info.key ? localKey : null,
    pivot,
    dataKeys: dataKey === undefined || (Array.isArray(dataKey) && dataKey.length === 0) ? [segment] : Array.isArray(dataKey) ? dataKey : [dataKey],
    dataKeyDeclared: dataKey !== undefined && (!Array.isArray(dataKey) || dataKey.length > 0),
    deleteRelated: config.mutation?.deleteRelated ?? true,
    writablePivot,
  };
}
