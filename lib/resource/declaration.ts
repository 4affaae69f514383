import type { ResourceCacheSettings } from '../cache/settings';
import type { Driver } from '../driver';
import type { ResourceHooks } from '../service/hooks';
import type { ModelDeclaration } from './relation-declaration';
import type { YupLikeSchema } from './yup-like';

export type { ModelDeclaration, RelationDeclaration } from './relation-declaration';
export type { YupLikeSchema } from './yup-like';

/** Everything an application says about one resource. */
export interface ResourceDeclaration<M = unknown> extends ModelDeclaration<M> {
  /** Collection segment of the routes, e.g. `products`. */
  name: string;
  /** Attributes that can be written. */
  fillable: string[];
  /** Fields writable only by users holding the role. */
  fieldsByRole?: Record<string, string[]>;
  /**
   * Which role names each role may write into the roles field (`rolesField`), e.g.
   * `{admin: ['viewer', 'editor', 'admin']}`: another name is a 422 naming the field; a superuser
   * writes any (decision 68). Checked on create, update and every bulk write.
   */
  grantableRoles?: Record<string, string[]>;
  /** The field `grantableRoles` guards (default `roles`). */
  rolesField?: string;
  /**
   * Soft delete: destroy sets this field (true: `deleted_at`) instead of removing the record;
   * trashed records are hidden everywhere unless a request asks for them. Derived from a
   * Sequelize paranoid model.
   */
  softDelete?: boolean | string;
  /**
   * The field holding the id of the user who owns a record (`user_id`; `id` on a users resource).
   * "Own" grants narrow to the caller's records through it; a create under an own grant sets it.
   */
  owner?: string;
  /** Self-referencing parent key; enables hierarchy features. */
  HIERARCHY_FIELD_ID?: string;
  /** yup schemas: `create` for store and /validate, `update` for update and updateMultiple. */
  validation?: {
    create?: YupLikeSchema;
    update?: YupLikeSchema;
  };
  /** Application logic around each operation, with the request context (README "Hooks"). */
  hooks?: ResourceHooks;
  /** Read cache settings of this resource over the API's (`false`: never cached). */
  cache?: ResourceCacheSettings;
  /** Driver to use; detected from the model when absent. */
  driver?: Driver;
  /**
   * Relations written together with the record in one request (decisions 58-59): hasMany and
   * belongsToMany relations by name, e.g. `['reviews', 'tags']`. The object form narrows the
   * pivot columns a nested link may write (default: every pivot column the relation declares).
   */
  nestedWrites?: Array<string | NestedWriteDeclaration>;
}

/** One relation opted in to nested writes, with the pivot columns its links may write. */
export interface NestedWriteDeclaration {
  relation: string;
  pivotColumns?: string[];
}
