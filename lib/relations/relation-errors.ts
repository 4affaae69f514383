import { ApiError } from '../errors';

const label = (model: string) => model.charAt(0).toUpperCase() + model.slice(1);

/** Advice of every relation not-found body (spec: fetch valid ids through GET on the relation endpoint). */
export function suggestedFix(listPath: string): string {
  return `Fetch the valid ids with GET ${listPath} and retry with one of them.`;
}

/** 404 for one related id: both body shapes of decision 47. */
export class RelatedNotFoundError extends ApiError {
  constructor(
    readonly model: string,
    readonly relation: string,
    readonly id: string | number,
    readonly listPath: string,
  ) {
    super('not_found', `${label(model)} with id ${id} not found in relation '${relation}'`);
  }

  override body(): Record<string, unknown> {
    return { success: false, error: { message: this.message, relation: this.relation, id: this.id, suggested_fix: suggestedFix(this.listPath) } };
  }
}

/** 404 for bulk ids when none of them could be processed (the same shape, `not_found_ids`). */
export class RelatedIdsNotFoundError extends ApiError {
  constructor(
    readonly model: string,
    readonly relation: string,
    readonly ids: Array<string | number>,
    readonly listPath: string,
  ) {
    super('not_found', bulkMessage(model, relation, ids));
  }

  override body(): Record<string, unknown> {
    return { success: false, models: [], error: { message: this.message, relation: this.relation, not_found_ids: this.ids, suggested_fix: suggestedFix(this.listPath) } };
  }
}

function bulkMessage(model: string, relation: string, ids: Array<string | number>): string {
  return `${ids.length} ${label(model)} record(s) not found in relation '${relation}': [${ids.join(', ')}]`;
}

/**
 * Decision 48: the found records were processed; the unknown ids make it a 207 partial success
 * `{success: false, models, error: {message, relation, not_found_ids, suggested_fix}}`.
 */
export function partialSuccess(model: string, relation: string, listPath: string, models: unknown[], missing: Array<string | number>, extra: Record<string, unknown> = {}): PartialSuccess {
  return new PartialSuccess({
    success: false,
    ...extra,
    models,
    error: { message: bulkMessage(model, relation, missing), relation, not_found_ids: missing, suggested_fix: suggestedFix(listPath) },
  });
}

/** An answer whose found part was processed and whose unknown ids were not: the route answers it with 207. */
export class PartialSuccess {
  constructor(readonly body: Record<string, unknown>) {}
}
