import type { Catalog, FieldInfo, IdType, ModelInfo } from '../resource/model-info';

/** The model name `having` (decision 84) filters: an aggregate's answer rows. */
export const ANSWER = '__answer';

/**
 * A catalog of one model whose fields are an aggregate answer's columns, so each driver's list
 * condition compiler can compile `having` with the meaning `oper` has (values, nulls, negations).
 */
export function answerCatalog(fields: Record<string, FieldInfo>, idType: IdType): Catalog {
  const model = columnsModel(ANSWER, fields, idType);
  return { model: () => model, has: (name) => name === ANSWER, all: () => [model] };
}

/** A model of nothing but `fields`: no key, relations, roles or timestamps (an answer's columns). */
export function columnsModel(name: string, fields: Record<string, FieldInfo>, idType: IdType): ModelInfo {
  return {
    name,
    key: '\u0000',
    idType,
    fields,
    relations: {},
    hiddenRelations: {},
    fillable: [],
    fieldsByRole: {},
    hierarchyField: null,
    owner: null,
    softDelete: null,
    timestamps: false,
  };
}
