import type { AnyObject, ObjectSchema } from 'yup';
import type { FieldType, OnDelete, RelationKind } from './model-info';
import type { Driver } from '../../drivers/driver';

/** A relation as the application declares it (anything omitted is derived from the model). */
export interface RelationDeclaration {
  kind: RelationKind;
  /** MODEL name of the related resource. */
  target: string;
  /** belongsTo: column here; hasOne/hasMany: column on the target; belongsToMany: pivot.parentKey. */
  foreignKey?: string;
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

/** Everything an application says about one resource. */
export interface ResourceDeclaration<M = unknown> {
  /** Collection segment of the routes, e.g. `products`. */
  name: string;
  /** Model identifier; the key that wraps arrays of records in multi-record bodies. */
  MODEL: string;
  /** The mongoose Model or the Sequelize model class. */
  model: M;
  /** Allowlist of relations a client may load or filter on (`all` expands to these). */
  RELATIONS?: string[];
  /** Relation shapes; merged over what the driver derives from the model. */
  relations?: Record<string, RelationDeclaration>;
  /** Attributes that can be written. */
  fillable: string[];
  /** Fields writable only by users holding the role. */
  fieldsByRole?: Record<string, string[]>;
  /** Self-referencing parent key; enables hierarchy features. */
  HIERARCHY_FIELD_ID?: string;
  /** Fields never returned, selected, filtered or sorted on. */
  writeOnly?: string[];
  /** yup schemas: `create` for store and /validate, `update` for update and updateMultiple. */
  validation?: {
    create?: ObjectSchema<AnyObject>;
    update?: ObjectSchema<AnyObject>;
  };
  /** Driver to use; detected from the model when absent. */
  driver?: Driver;
}
