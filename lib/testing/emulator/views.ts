import { CommandError } from './errors';
import { aggregate, validatePipeline, type Resolver } from './engine';
import type { Collection, Store } from './store';
import type { Scope } from './scope';
import { isPlainObject, type Doc } from './values';

/**
 * Read-only views (`create` with `viewOn` + `pipeline`): stored as a collection entry whose options
 * hold the definition and which never holds documents. Reading one runs its pipeline over its
 * source (a collection or another view) as this command's scope sees it; writing to one, or
 * building indexes on it, is refused with 166 as on the server.
 */
export function isView(coll: Collection | undefined): boolean {
  return coll !== undefined && typeof coll.options.viewOn === 'string';
}

export function notOnView(coll: Collection | undefined, command: string): void {
  if (isView(coll)) throw new CommandError('CommandNotSupportedOnView', `Namespace ${coll?.ns} is a view, not a collection`);
  void command;
}

/** Checks a view definition as `create` gets it. */
export function checkViewDefinition(viewOn: unknown, pipeline: unknown): Doc[] {
  if (typeof viewOn !== 'string' || viewOn.length === 0) throw new CommandError('TypeMismatch', "'viewOn' option must be specified as a non-empty string");
  for (const stage of Array.isArray(pipeline) ? pipeline : []) {
    const name = isPlainObject(stage) ? Object.keys(stage)[0] : undefined;
    if (name === '$out' || name === '$merge') throw new CommandError('OptionNotSupportedOnView', `${name} cannot be used in a view definition`);
  }
  return validatePipeline(pipeline ?? []);
}

/** The documents a view shows: its pipeline over its source, views resolved recursively. */
export function viewDocuments(store: Store, scope: Scope, db: string, coll: Collection, resolver: Resolver, depth = 0): Doc[] {
  if (depth > 20) throw new CommandError('ViewDepthLimitExceeded', 'View depth too deep or view cycle detected. Maximum depth is 20');
  const source = store.get(db, String(coll.options.viewOn));
  const docs = source && isView(source) ? viewDocuments(store, scope, db, source, resolver, depth + 1) : scope.list(source);
  const pipeline = Array.isArray(coll.options.pipeline) ? (coll.options.pipeline as Doc[]) : [];
  return pipeline.length ? aggregate(docs, pipeline, resolver) : docs;
}

/** A find on a view is the view's pipeline followed by the find's own stages, as on the server. */
export function findStages(cmd: Doc): Doc[] {
  const stages: Doc[] = [];
  if (isPlainObject(cmd.filter) && Object.keys(cmd.filter).length) stages.push({ $match: cmd.filter });
  if (isPlainObject(cmd.sort) && Object.keys(cmd.sort).length) stages.push({ $sort: cmd.sort });
  if (typeof cmd.skip === 'number' && cmd.skip > 0) stages.push({ $skip: cmd.skip });
  if (typeof cmd.limit === 'number' && cmd.limit !== 0) stages.push({ $limit: Math.abs(cmd.limit) });
  if (isPlainObject(cmd.projection) && Object.keys(cmd.projection).length) stages.push({ $project: cmd.projection });
  return stages;
}
