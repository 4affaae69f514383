import type { Row } from '../driver';
import { BadRequestError, NotFoundError } from '../errors';
import type { RestConfig } from '../config';
import type { RequestParams } from '../query';
import type { Filter, ListQuery, TreeWalk } from '../query/ast';
import { allOf } from '../query/walk';
import { listEnvelope, type ListEnvelope } from '../service/reads/envelopes';
import type { RequestContext } from '../service/request-context';
import type { ResourceService } from '../service/resource-service';
import { assembleTrees, pathTo, type TreeShape } from './assemble-tree';
import { LIST_MODES, parseHierarchy, SHOW_MODES, type HierarchyOptions, type ListMode } from './parse-hierarchy';

/** True when a request asks for a tree (`hierarchy` present and not false). */
export function wantsHierarchy(params: RequestParams): boolean {
  const raw = params.hierarchy;
  return !(raw === undefined || raw === null || raw === '' || raw === false || raw === 'false' || raw === '0' || raw === 0);
}

/**
 * Trees of a self-referencing resource (spec "Hierarchy object", decisions 27-29, 52), each read
 * as ONE list query whose walk runs in the database (TreeWalk), then assembled in one pass.
 */
export class HierarchyReads {
  constructor(
    private readonly service: ResourceService,
    private readonly config: RestConfig,
  ) {}

  private get parentField(): string {
    const field = this.service.entry.info.hierarchyField;
    if (!field) throw new BadRequestError(`Resource ${this.service.entry.declaration.name} has no hierarchy (no HIERARCHY_FIELD_ID), so "hierarchy" cannot be used.`, 'hierarchy');
    return field;
  }

  /** index with `hierarchy`: roots (paginated with page/pageSize) with their subtrees. */
  /** Whether the request asks for a tree (`hierarchy`). */
  wants(params: RequestParams): boolean {
    return wantsHierarchy(params);
  }

  async list(params: RequestParams, ctx: RequestContext): Promise<ListEnvelope> {
    void this.parentField; // a resource without hierarchy is a 400 before anything else
    const options = parseHierarchy(params.hierarchy, LIST_MODES, 'with_descendants', false)!;
    const parsed = this.service.parseList(params, ctx);
    if (parsed.page?.kind === 'cursor') throw new BadRequestError('A hierarchy paginates its roots with page and pageSize; cursor pagination does not apply.', 'pagination');
    const prepared = await this.service.prepareList({ ...parsed, select: this.withParent(parsed.select), page: null, limit: this.config.maxTreeNodes + 1 }, ctx);
    const query = this.treeQuery(prepared, parsed.filter, options, ctx);
    const rows = await this.rows(query, ctx);
    const trees = assembleTrees(rows, this.shape(options));
    if (parsed.page?.kind !== 'offset') return { data: trees };
    const { page, size } = parsed.page;
    return listEnvelope(parsed, { rows: trees.slice((page - 1) * size, page * size), total: trees.length });
  }

  /** /first with `hierarchy` ("same parameters as index"): the index's first root with its subtree, or null. */
  async first(params: RequestParams, ctx: RequestContext): Promise<{ data: Row | null }> {
    const { data } = (await this.list(params, ctx)) as { data: Row[] };
    return { data: data[0] ?? null };
  }

  /** show with `hierarchy`: the bare top node (decision 52), its tree nested under children_key. */
  async show(rawId: string, params: RequestParams, ctx: RequestContext): Promise<Row> {
    const parentField = this.parentField; // a resource without hierarchy is a 400 before anything else
    const options = parseHierarchy(params.hierarchy, SHOW_MODES, 'with_descendants', true)!;
    const plan = await this.service.planShow(rawId, params, ctx);
    if (options.mode === 'node_only') return this.service.runShow(plan, ctx);
    const scope = this.service.rootScope(plan.query, ctx);
    const tree: TreeWalk = {
      parentField,
      start: plan.query.filter,
      down: options.mode !== 'with_ancestors',
      up: options.mode !== 'with_descendants',
      maxDepth: options.mode === 'with_descendants' ? options.maxDepth : null,
      scope,
    };
    // siblings in orderby's order at every level, as in lists (default: primary key)
    const order = params.orderby === undefined ? plan.query.order : this.service.parseList({ orderby: params.orderby }, ctx).order;
    const query: ListQuery = { ...plan.query, select: this.withParent(plan.query.select), filter: scope, tree, order, limit: this.config.maxTreeNodes + 1 };
    const rows = await this.rows(query, ctx);
    const shape = this.shape(options);
    const path = pathTo(assembleTrees(rows, shape), String(plan.id), shape);
    if (path.length === 0) throw new NotFoundError(`No ${this.service.name} found with id ${rawId}.`);
    return path[0];
  }

  /** The list's walk by mode; the user's filter chooses the start records, the scope every record. */
  private treeQuery(prepared: ListQuery, filter: Filter | null, options: HierarchyOptions<ListMode>, ctx: RequestContext): ListQuery {
    const parentField = this.parentField;
    if (options.mode === 'match_only') return prepared;
    const scope = this.service.rootScope(prepared, ctx);
    if (filter === null && options.mode !== 'root_filter') return prepared; // every visible record is reached anyway
    const rootsOnly: Filter = { kind: 'condition', field: parentField, operator: 'null' };
    const tree: TreeWalk = {
      parentField,
      start: options.mode === 'root_filter' ? allOf(prepared.filter, rootsOnly) : prepared.filter,
      down: options.mode !== 'with_ancestors',
      up: options.mode === 'with_ancestors' || options.mode === 'full_branch',
      // ancestors are walked to the top; what lies below max_depth is cut when assembling
      maxDepth: options.mode === 'with_descendants' || options.mode === 'root_filter' ? options.maxDepth : null,
      scope,
    };
    return { ...prepared, filter: scope, tree };
  }

  private async rows(query: ListQuery, ctx: RequestContext): Promise<Row[]> {
    const rows = await this.service.runRows(query, ctx, 'hierarchy');
    if (rows.length > this.config.maxTreeNodes) {
      throw new BadRequestError(`The tree holds more than ${this.config.maxTreeNodes} records (REST_MAX_TREE_NODES): narrow the filter or set hierarchy.max_depth.`, 'hierarchy');
    }
    return rows;
  }

  private withParent(select: string[] | null): string[] | null {
    if (select === null) return null;
    return select.includes(this.parentField) ? select : [...select, this.parentField];
  }

  private shape(options: HierarchyOptions<string>): TreeShape {
    return { key: this.service.entry.info.key, parentField: this.parentField, childrenKey: options.childrenKey, maxDepth: options.maxDepth, includeEmptyChildren: options.includeEmptyChildren };
  }
}
