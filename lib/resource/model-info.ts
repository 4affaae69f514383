/**
 * The driver-neutral description of a registered model: what the query parser checks requests
 * against, and what drivers compile from. Built once at registration by the model's driver
 * (from the mongoose schema or Sequelize attributes) merged with the resource declaration.
 */

export type FieldType = 'string' | 'number' | 'integer' | 'boolean' | 'date' | 'id' | 'array' | 'object';

/** How record ids look: MongoDB ObjectIds exposed as 24-hex strings, SQL integer keys. */
export type IdType = 'objectId' | 'integer';

export interface FieldInfo {
  name: string;
  type: FieldType;
  /** For type 'id' (the key and foreign keys): the representation of the ids it holds. */
  idType?: IdType;
  /** For type 'array': the element type (e.g. users.roles is an array of strings). */
  itemType?: FieldType;
  /** Never returned, selected, filtered or sorted on (tokens, passwords). */
  writeOnly: boolean;
  nullable: boolean;
}

export type RelationKind = 'belongsTo' | 'hasOne' | 'hasMany' | 'belongsToMany';

/** What happens to a referencing record when the record it references is deleted. */
export type OnDelete = 'restrict' | 'cascade' | 'setNull';

export interface PivotInfo {
  /** Pivot collection / table name (e.g. product_tag). */
  table: string;
  /** Pivot column that references the parent (e.g. product_id). */
  parentKey: string;
  /** Pivot column that references the related record (e.g. tag_id). */
  relatedKey: string;
  /** Extra pivot columns returned in `pivot` (e.g. position, note). */
  columns: string[];
  /** Their types, for casting and filtering. */
  columnTypes: Record<string, FieldType>;
}

/**
 * A relation always links to the primary key (`id`) of the model that owns the referenced side:
 * - belongsTo: this.foreignKey -> target.id
 * - hasOne / hasMany: target.foreignKey -> this.id
 * - belongsToMany: pivot.parentKey -> this.id, pivot.relatedKey -> target.id
 */
export interface RelationInfo {
  name: string;
  kind: RelationKind;
  /** MODEL name of the related resource. */
  target: string;
  /** belongsTo: column on this model; hasOne/hasMany: column on the target; belongsToMany: pivot.parentKey. */
  foreignKey: string;
  /**
   * hasOne/hasMany only: the field of this model whose value the target's foreignKey holds (the
   * spec's localKey: any key column of the parent); absent means the primary key.
   */
  localKey?: string;
  pivot?: PivotInfo;
  /** belongsTo only: what the database does to this record when the target is deleted. */
  onDelete?: OnDelete;
}

export interface ModelInfo {
  /** MODEL: model identifier, also the body key wrapping arrays of records. */
  name: string;
  /** Primary key as exposed (always `id`). */
  key: string;
  idType: IdType;
  /** Every readable and writable field, key and timestamps included. */
  fields: Record<string, FieldInfo>;
  /** RELATIONS: the allowlist of relations a client may load or filter on, with their shape. */
  relations: Record<string, RelationInfo>;
  /** Relations known to the model but not client-visible (used for delete rules). */
  hiddenRelations: Record<string, RelationInfo>;
  fillable: string[];
  fieldsByRole: Record<string, string[]>;
  hierarchyField: string | null;
  /** The field holding the owner's user id ("own" grants narrow to it), else null. */
  owner: string | null;
  /** The soft-delete field (deletion time) of a soft-deletable resource, else null. */
  softDelete: string | null;
  /**
   * The sets of fields a unique index or constraint of the model covers (from the mongoose schema
   * or the Sequelize model), the key's included; what upsert match keys are checked against.
   */
  uniqueKeys?: string[][];
  /** The version field the library maintains (decision 81), else null. */
  versionField?: string | null;
  timestamps: boolean;
}

/** Looks up the description of any registered model by MODEL name (for relation targets). */
export interface Catalog {
  model(name: string): ModelInfo;
  has(name: string): boolean;
  all(): ModelInfo[];
}
