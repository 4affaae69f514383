import type { Row } from '../../driver';
import type { ListQuery, RelationLoad } from '../../query/ast';
import type { Catalog, ModelInfo, RelationInfo } from '../../resource/model-info';
import { readableFields } from '../../resource/model-lookup';
import type { AccessPolicy } from './access-policy';
import { createContext, type RequestContext } from '../request-context';

/**
 * The catalog as one caller sees it: a field they may not read is marked write-only (so the parser
 * answers "Unknown field" for it in every position, exactly as for a field that does not exist),
 * and a relation to a model they may not read at all is no longer in RELATIONS.
 */
export class CatalogView implements Catalog {
  constructor(
    private readonly base: Catalog,
    private readonly restrict: (info: ModelInfo) => ModelInfo,
    /** True when nothing is restricted for this caller (the common case: skip every rewrite). */
    readonly open = false,
  ) {}

  model(name: string): ModelInfo {
    return this.restrict(this.base.model(name));
  }

  has(name: string): boolean {
    return this.base.has(name);
  }

  all(): ModelInfo[] {
    return this.base.all().map(this.restrict);
  }

  /** True when the caller sees `name` differently from the declaration. */
  restricted(name: string): boolean {
    return this.model(name) !== this.base.model(name);
  }
}

/** Beyond this many distinct views (role sets) the remembered ones are dropped and rebuilt on demand. */
const MAX_VIEWS = 256;

/**
 * One view per view key (a handful of role sets), its restricted model descriptions computed on
 * first use: every request of the same caller kind parses against the same view object, so what
 * is cached per view (parsed `select`/`relations`) is found again.
 */
export class CatalogViews {
  private readonly views = new Map<string, CatalogView>();
  private openView: CatalogView | null = null;

  constructor(
    private readonly base: Catalog,
    private readonly policy: () => AccessPolicy,
  ) {}

  clear(): void {
    this.views.clear();
    this.openView = null;
  }

  of(ctx: RequestContext): CatalogView {
    const policy = this.policy();
    const key = policy.viewKey(ctx);
    if (key === '') return (this.openView ??= new CatalogView(this.base, (info) => info, true));
    let view = this.views.get(key);
    if (!view) {
      if (this.views.size >= MAX_VIEWS) this.views.clear();
      view = this.restrictedView(policy, ctx);
      this.views.set(key, view);
    }
    return view;
  }

  /**
   * Equal keys mean equal views (AccessPolicy.viewKey), so the policy is asked with who the caller
   * is and nothing else of this request (the view outlives it).
   */
  private restrictedView(policy: AccessPolicy, ctx: RequestContext): CatalogView {
    const caller = createContext({ user: ctx.user, roles: [...ctx.roles] });
    const models = new Map<string, ModelInfo>();
    const restrict = (info: ModelInfo): ModelInfo => {
      let view = models.get(info.name);
      if (!view) {
        view = restrictModel(info, policy.hiddenFields(info, caller), (target) => policy.possession(this.base.model(target), 'read', caller) !== null);
        models.set(info.name, view);
      }
      return view;
    };
    return new CatalogView(this.base, restrict);
  }
}

function restrictModel(info: ModelInfo, hidden: ReadonlySet<string>, readable: (model: string) => boolean): ModelInfo {
  const closed = Object.values(info.relations).filter((rel) => !readable(rel.target));
  if (hidden.size === 0 && closed.length === 0) return info;
  const fields = Object.fromEntries(Object.entries(info.fields).map(([name, field]) => [name, hidden.has(name) && name !== info.key ? { ...field, writeOnly: true } : field]));
  const relations: Record<string, RelationInfo> = {};
  const hiddenRelations = { ...info.hiddenRelations };
  for (const [name, rel] of Object.entries(info.relations)) {
    if (closed.includes(rel)) hiddenRelations[name] = rel;
    else relations[name] = rel;
  }
  return { ...info, fields, relations, hiddenRelations };
}

/**
 * For a restricted caller, "all fields" becomes the list of fields they may read, at the root and
 * in every eager load, so hidden values are never even fetched.
 */
export function narrowColumns(query: ListQuery, view: CatalogView): ListQuery {
  if (view.open) return query;
  const base = (model: string) => view.model(model);
  const loads = (list: RelationLoad[], model: string): RelationLoad[] =>
    list.map((load) => {
      const target = relationTarget(base(model), load.name);
      const columns = load.columns === null && view.restricted(target) ? readableFields(base(target)) : load.columns;
      return { ...load, columns, children: loads(load.children, target) };
    });
  const select = query.select === null && view.restricted(query.model) ? readableFields(base(query.model)) : query.select;
  return { ...query, select, relations: loads(query.relations, query.model) };
}

function relationTarget(info: ModelInfo, name: string): string {
  return (Object.prototype.hasOwnProperty.call(info.relations, name) ? info.relations[name] : info.hiddenRelations[name]).target;
}

/**
 * Removes what the caller may not read from rows at every depth (keys added to attach relations
 * included): the last guard, so no output path can carry a hidden value.
 */
export function stripHidden(rows: Row[], model: string, loads: RelationLoad[], view: CatalogView): Row[] {
  if (view.open) return rows;
  for (const row of rows) stripRow(row, model, loads, view);
  return rows;
}

function stripRow(row: Row, model: string, loads: RelationLoad[], view: CatalogView): void {
  const info = view.model(model);
  if (view.restricted(model)) {
    for (const key of Object.keys(row)) if (info.fields[key]?.writeOnly) delete row[key];
  }
  for (const load of loads) {
    const value = row[load.name];
    const target = relationTarget(info, load.name);
    if (Array.isArray(value)) for (const item of value) stripRow(item as Row, target, load.children, view);
    else if (value && typeof value === 'object') stripRow(value as Row, target, load.children, view);
  }
}
