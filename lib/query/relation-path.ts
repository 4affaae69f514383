import { BadRequestError } from '../errors';
import type { Catalog, ModelInfo, RelationInfo } from '../resource/model-info';
import { own } from './safe-keys';

export interface RelationStep {
  relation: RelationInfo;
  /** The model that declares the relation. */
  owner: ModelInfo;
  /** The related model. */
  target: ModelInfo;
}

export function relationError(model: ModelInfo, name: string, parameter: string): BadRequestError {
  const allowed = Object.keys(model.relations);
  const list = allowed.length > 0 ? allowed.join(', ') : 'none';
  return new BadRequestError(`Relation "${name}" is not allowed on ${model.name}. Allowed relations: ${list}.`, parameter);
}

/** One relation of a model, checked against its RELATIONS allowlist (decision 8). */
export function relationStep(model: ModelInfo, name: string, catalog: Catalog, parameter: string): RelationStep {
  const relation = own(model.relations, name);
  if (!relation) throw relationError(model, name, parameter);
  return { relation, owner: model, target: catalog.model(relation.target) };
}

/** A dot path (`category.parent`), every segment checked against its own model's relations. */
export function resolveRelationPath(model: ModelInfo, path: string, catalog: Catalog, parameter: string): RelationStep[] {
  const segments = path.split('.').map((s) => s.trim());
  if (segments.some((s) => s === '')) {
    throw new BadRequestError(`Invalid relation path "${path}" in ${parameter}.`, parameter);
  }
  const steps: RelationStep[] = [];
  let current = model;
  for (const segment of segments) {
    const step = relationStep(current, segment, catalog, parameter);
    steps.push(step);
    current = step.target;
  }
  return steps;
}
