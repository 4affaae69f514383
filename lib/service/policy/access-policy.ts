import type { ModelInfo } from '../../resource/model-info';
import type { RequestContext } from '../request-context';

export type AccessAction = 'read' | 'create' | 'update' | 'delete';

/** How far a grant reaches: every record, or only the caller's own (the resource's owner field). */
export type Possession = 'any' | 'own';

/**
 * What the caller may do, as the service needs it. The library's permission module implements it
 * over accesscontrol grants; without one the open policy applies (nothing hidden or prohibited).
 * Every method is a lookup in memory: no database query per check.
 */
export interface AccessPolicy {
  /** Fields of `model` the caller may not read: for them, fields that do not exist. */
  hiddenFields(model: ModelInfo, ctx: RequestContext): ReadonlySet<string>;
  /** How far the caller's grant for `action` on `model` reaches; null: no grant at all. */
  possession(model: ModelInfo, action: AccessAction, ctx: RequestContext): Possession | null;
  /** Fields of `model` the caller may not write (fieldsByRole roles they lack). */
  prohibitedFields(model: ModelInfo, ctx: RequestContext): ReadonlySet<string>;
  /** Identifies what the caller may see; equal keys mean equal views (caches key on it). */
  viewKey(ctx: RequestContext): string;
}

const NOTHING: ReadonlySet<string> = new Set();

/** No permissions configured: every field readable and writable, every grant reaching any record. */
export const openPolicy: AccessPolicy = {
  hiddenFields: () => NOTHING,
  possession: () => 'any',
  prohibitedFields: () => NOTHING,
  viewKey: () => '',
};
