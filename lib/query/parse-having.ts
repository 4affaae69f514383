import type { RestConfig } from '../config';
import type { Catalog, FieldInfo, ModelInfo } from '../resource/model-info';
import type { Having, Measure } from './aggregate-ast';
import type { Filter } from './ast';
import { isAbsent, decodeParam } from './json-param';
import { combine, parseFilter } from './parse-filter';
import type { ParsedGroup } from './parse-group-by';
import { mapFilter } from './walk';
import { columnsModel } from './answer-catalog';

const PARAM = 'having';

/** The name of a measure in the answer and in `orderby` / `having`: `count`, `count.<field>`, `sum.price`. */
export function measureName(m: Measure): string {
  return m.field === null ? 'count' : `${m.fn}.${m.field}`;
}

const NO_RELATIONS: Catalog = {
  model: (name) => {
    throw new Error(`The answer of an aggregate has no relation ${name}`);
  },
  has: () => false,
  all: () => [],
};

/** The answer as a model: one field per group value (`g<i>`) and measure (`m<i>`), named as the answer names them. */
function answerModel(model: ModelInfo, groups: ParsedGroup[], measures: Measure[]): { model: ModelInfo; keys: Map<string, string>; fields: Record<string, FieldInfo> } {
  const byName: Record<string, FieldInfo> = {};
  const keys = new Map<string, string>();
  const fields: Record<string, FieldInfo> = {};
  const add = (name: string, key: string, info: Omit<FieldInfo, 'name' | 'writeOnly' | 'nullable'>): void => {
    byName[name] = { ...info, name, writeOnly: false, nullable: true };
    fields[key] = { ...info, name: key, writeOnly: false, nullable: true };
    keys.set(name, key);
  };
  groups.forEach((g, i) => add(g.key.name, `g${i}`, { type: g.info.type, ...(g.info.idType ? { idType: g.info.idType } : {}) }));
  measures.forEach((m, i) => {
    const source = m.field === null ? null : model.fields[m.field];
    const typed = (m.fn === 'min' || m.fn === 'max') && source ? { type: source.type, ...(source.idType ? { idType: source.idType } : {}) } : { type: 'number' as const };
    add(measureName(m), `m${i}`, typed);
  });
  const answer = columnsModel('the answer', byName, model.idType);
  return { model: answer, keys, fields };
}

/**
 * `having` (decision 84): the `oper` grammar over the answer's names (`count`, `sum.total`,
 * `avg.price`, a group field); a name the request did not ask for is a 400 naming it. The filter
 * comes back over the answer's columns (`g<i>`, `m<i>`) the drivers compile.
 */
export function parseHaving(raw: unknown, model: ModelInfo, groups: ParsedGroup[], measures: Measure[], config: RestConfig): Having | null {
  if (isAbsent(decodeParam(PARAM, raw))) return null;
  const answer = answerModel(model, groups, measures);
  const parsed = parseFilter(raw, answer.model, NO_RELATIONS, config, PARAM).filter;
  if (!parsed) return null;
  const filter = mapFilter(parsed, answer.model.name, () => answer.model.name, (node): Filter =>
    node.kind === 'condition' ? { ...node, field: answer.keys.get(node.field) as string } : node.kind === 'and' || node.kind === 'or' ? (combine(node.kind, node.filters) ?? node) : node,
  );
  return { filter, fields: answer.fields };
}
