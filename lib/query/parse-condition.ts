import { BadRequestError } from '../errors';
import type { RestConfig } from '../config';
import type { ModelInfo } from '../resource/model-info';
import { OPERATORS, type Condition, type Operator, type Scalar } from './ast';
import { castValue, type CastContext } from './cast-value';
import { filterField } from './check-field';
import { splitList } from './split-list';

const LIST_OPERATORS = new Set<Operator>(['in', 'not in', 'between', 'not between']);
const PATTERN_OPERATORS = new Set<Operator>(['like', 'not like', 'ilike', 'not ilike']);
const NO_VALUE = new Set<Operator>(['null', 'not null']);

/** Word operators are matched longest first so `not like` is not read as `not`. */
const SPACE_OPERATORS = [...OPERATORS].sort((a, b) => b.length - a.length);

export interface ConditionContext {
  model: ModelInfo;
  config: RestConfig;
  /** Parameter named in messages. */
  parameter: string;
  /** `oper` or `oper (relation "category")`: where the field is looked up. */
  where: string;
}

function normalizeOperator(raw: string): string {
  return raw.trim().toLowerCase().replace(/\s+/g, ' ');
}

/** The operator, checked against the configured allowlist (decision 9). */
export function checkOperator(raw: string, config: RestConfig, parameter: string): Operator {
  const op = normalizeOperator(raw);
  if (!(config.operators as readonly string[]).includes(op)) {
    throw new BadRequestError(`Operator "${raw.trim()}" is not allowed. Allowed operators: ${config.operators.join(', ')}.`, parameter);
  }
  return op as Operator;
}

interface RawCondition {
  field: string;
  operator: string;
  /** undefined: no value part at all (`field|null`). */
  value: string | undefined;
}

function invalid(text: string, parameter: string): BadRequestError {
  return new BadRequestError(`Invalid condition "${text}" in ${parameter}; use field|operator|value.`, parameter);
}

/** `field|op|value`, `field|null`, `field|not null|` (decision 4). The value keeps later pipes. */
function splitPipe(text: string, parameter: string): RawCondition {
  const parts = text.split('|');
  const field = parts[0].trim();
  if (field === '' || parts.length < 2 || parts[1].trim() === '') throw invalid(text, parameter);
  const value = parts.length > 2 ? parts.slice(2).join('|').trim() : undefined;
  return { field, operator: parts[1], value };
}

/** Fallback for a condition without a pipe: `rating >= 4`, `name like %x%`, `deleted_at not null`. */
function splitSpaces(text: string, config: RestConfig, parameter: string): RawCondition {
  const match = /^\s*([^\s=!<>]+)\s*(.*)$/s.exec(text);
  if (!match || match[2] === '') throw invalid(text, parameter);
  const field = match[1];
  const rest = match[2];
  for (const op of SPACE_OPERATORS) {
    const word = /^[a-z]/.test(op);
    const pattern = word
      ? new RegExp(`^${op.replace(/ /g, '\\s+')}(?=\\s|$)`, 'i')
      : new RegExp(`^${op.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
    const found = pattern.exec(rest);
    if (found) {
      const value = rest.slice(found[0].length).trim();
      return { field, operator: op, value: value === '' ? undefined : value };
    }
  }
  // Name the unknown operator (`price regex ^1`) rather than the whole string.
  const word = /^(\S+)/.exec(rest);
  if (word) checkOperator(word[1], config, parameter);
  throw invalid(text, parameter);
}

/** One condition string -> a typed Condition, checked against the model (decisions 4-5, 9-10). */
/** Longest like/ilike pattern accepted: patterns are matched per row, so their size is bounded. */
const MAX_PATTERN = 500;

export function parseCondition(text: string, ctx: ConditionContext): Condition {
  const raw = text.includes('|') ? splitPipe(text, ctx.parameter) : splitSpaces(text, ctx.config, ctx.parameter);
  let operator = checkOperator(raw.operator, ctx.config, ctx.parameter);
  const field = filterField(ctx.model, raw.field, ctx.where, ctx.parameter);
  const cast: CastContext = { parameter: ctx.parameter, idType: ctx.model.idType };

  if (NO_VALUE.has(operator)) {
    if (raw.value !== undefined && raw.value !== '') {
      throw new BadRequestError(`Operator "${operator}" takes no value (field "${field.name}" in ${ctx.parameter}).`, ctx.parameter);
    }
    return { kind: 'condition', field: field.name, operator };
  }
  if (raw.value === undefined) {
    throw new BadRequestError(`Operator "${operator}" needs a value (field "${field.name}" in ${ctx.parameter}).`, ctx.parameter);
  }
  const value = raw.value;
  if (value.includes('\u0000')) {
    throw new BadRequestError(`The value for field "${field.name}" in ${ctx.parameter} must not contain NUL characters.`, ctx.parameter);
  }
  // `=|null` / `!=|null` mean IS NULL / IS NOT NULL (decision 5).
  if ((operator === '=' || operator === '!=') && value.toLowerCase() === 'null') {
    operator = operator === '=' ? 'null' : 'not null';
    if (!ctx.config.operators.includes(operator)) checkOperator(operator, ctx.config, ctx.parameter);
    return { kind: 'condition', field: field.name, operator };
  }
  if (PATTERN_OPERATORS.has(operator)) {
    const type = field.type === 'array' ? (field.itemType ?? 'string') : field.type;
    if (type !== 'string') {
      throw new BadRequestError(`Operator "${operator}" needs a string field; "${field.name}" is ${type} (in ${ctx.parameter}).`, ctx.parameter);
    }
    if (value.length > MAX_PATTERN) {
      throw new BadRequestError(`The ${operator} pattern for field "${field.name}" in ${ctx.parameter} is longer than ${MAX_PATTERN} characters.`, ctx.parameter);
    }
    return { kind: 'condition', field: field.name, operator, value };
  }
  if (LIST_OPERATORS.has(operator)) {
    const pair = operator === 'between' || operator === 'not between';
    // As with `=|null`, a literal null in an in/not in list means "or is null" (attr's [x, null] too).
    const values: Scalar[] = splitList(value).map((v) => (!pair && (v === null || (typeof v === 'string' && v.trim().toLowerCase() === 'null')) ? null : castValue(field, v, cast)));
    if (pair && values.length !== 2) {
      throw new BadRequestError(`Operator "${operator}" needs exactly two values for field "${field.name}" in ${ctx.parameter}.`, ctx.parameter);
    }
    if (values.length === 0) {
      throw new BadRequestError(`Operator "${operator}" needs at least one value for field "${field.name}" in ${ctx.parameter}.`, ctx.parameter);
    }
    return { kind: 'condition', field: field.name, operator, value: values };
  }
  return { kind: 'condition', field: field.name, operator, value: castValue(field, value, cast) };
}
