import { BadRequestError } from '../errors';
import { decodeParam, isAbsent } from '../query/json-param';

export const LIST_MODES = ['match_only', 'with_descendants', 'with_ancestors', 'full_branch', 'root_filter'] as const;
export const SHOW_MODES = ['node_only', 'with_descendants', 'with_ancestors', 'full_branch'] as const;
export type ListMode = (typeof LIST_MODES)[number];
export type ShowMode = (typeof SHOW_MODES)[number];

export interface HierarchyOptions<M extends string> {
  mode: M;
  childrenKey: string;
  /** Deepest level kept (roots are 0); null: unlimited. */
  maxDepth: number | null;
  includeEmptyChildren: boolean;
}

/** children_key values refused: assigning them on a record object would not create a key. */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

const KEYS = ['filter_mode', 'mode', 'children_key', 'max_depth', 'include_empty_children'];

function readBool(value: unknown, name: string): boolean {
  if (value === true || value === 'true' || value === 1 || value === '1') return true;
  if (value === false || value === 'false' || value === 0 || value === '0') return false;
  throw new BadRequestError(`hierarchy.${name} must be true or false.`, 'hierarchy');
}

/**
 * The `hierarchy` parameter (spec "Hierarchy object", decisions 27-29): absent or false -> null;
 * true or an object (also JSON-encoded). Every option is checked: an unknown mode, a max_depth
 * that is not a positive integer, an unsafe children_key are 400s naming the option.
 */
export function parseHierarchy<M extends string>(raw: unknown, modes: readonly M[], fallback: M, allowModeAlias: boolean): HierarchyOptions<M> | null {
  const value = decodeParam('hierarchy', raw);
  if (isAbsent(value) || value === false || value === 'false' || value === 0 || value === '0') return null;
  const options: Record<string, unknown> = value === true || value === 'true' || value === 1 || value === '1' ? {} : (value as Record<string, unknown>);
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new BadRequestError('Parameter "hierarchy" must be true or an object with filter_mode, children_key, max_depth, include_empty_children.', 'hierarchy');
  }
  const unknown = Object.keys(options).filter((k) => !KEYS.includes(k) || (k === 'mode' && !allowModeAlias));
  if (unknown.length > 0) throw new BadRequestError(`Unknown hierarchy option "${unknown[0]}"; options: ${KEYS.filter((k) => allowModeAlias || k !== 'mode').join(', ')}.`, 'hierarchy');
  const rawMode = options.filter_mode ?? (allowModeAlias ? options.mode : undefined) ?? fallback;
  if (typeof rawMode !== 'string' || !(modes as readonly string[]).includes(rawMode)) {
    throw new BadRequestError(`Unknown hierarchy mode "${String(rawMode)}"; use one of ${modes.join(', ')}.`, 'hierarchy');
  }
  const childrenKey = options.children_key ?? 'children';
  if (typeof childrenKey !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(childrenKey)) {
    throw new BadRequestError('hierarchy.children_key must be a name of letters, digits and _ (at most 64).', 'hierarchy');
  }
  // names an object's prototype machinery: as a key, the nested children would vanish
  if (RESERVED_KEYS.has(childrenKey)) {
    throw new BadRequestError(`hierarchy.children_key may not be "${childrenKey}" (reserved: ${[...RESERVED_KEYS].join(', ')}).`, 'hierarchy');
  }
  let maxDepth: number | null = null;
  if (options.max_depth !== undefined && options.max_depth !== null) {
    const n = typeof options.max_depth === 'string' && /^-?\d+$/.test(options.max_depth) ? Number(options.max_depth) : options.max_depth;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) throw new BadRequestError('hierarchy.max_depth must be a positive integer or null.', 'hierarchy');
    maxDepth = n;
  }
  const includeEmptyChildren = options.include_empty_children === undefined ? true : readBool(options.include_empty_children, 'include_empty_children');
  return { mode: rawMode as M, childrenKey, maxDepth, includeEmptyChildren };
}
