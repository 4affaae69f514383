import type { FieldType, OnDelete, RelationKind } from './model-info';

/** A relation as the application declares it (anything omitted is derived from the model). */
export interface RelationDeclaration {
  kind: RelationKind;
  /** MODEL name of the related resource. */
  target: string;
  /** belongsTo: column here; hasOne/hasMany: column on the target; belongsToMany: pivot.parentKey. */
  foreignKey?: string;
  /**
   * hasOne/hasMany: the field of this model that the target's foreignKey holds (default the primary
   * key); any key column of the parent (a unique `code`, say).
   */
  localKey?: string;
  pivot?: {
    table: string;
    parentKey: string;
    relatedKey: string;
    /** Pivot columns returned in `pivot` (beyond the two keys). */
    columns?: string[];
    columnTypes?: Record<string, FieldType>;
  };
  /** belongsTo only: behaviour when the referenced record is deleted (default restrict). */
  onDelete?: OnDelete;
}

/** The part of a resource declaration a driver reads to describe the model. */
export interface ModelDeclaration<M = unknown> {
  /** Model identifier; the key that wraps arrays of records in multi-record bodies. */
  MODEL: string;
  /** The mongoose Model or the Sequelize model class. */
  model: M;
  /** Allowlist of relations a client may load or filter on (`all` expands to these). */
  RELATIONS?: string[];
  /** Relation shapes; merged over what the driver derives from the model. */
  relations?: Record<string, RelationDeclaration>;
  /** Fields never returned, selected, filtered or sorted on. */
  writeOnly?: string[];
}
