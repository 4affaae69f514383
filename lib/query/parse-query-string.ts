import { unescape } from 'node:querystring';
import { BadRequestError } from '../errors';
import { MAX_PARAMETER_DEPTH } from './bounded-depth';
import { forbiddenKeyError, isForbiddenKey } from './safe-keys';

/** Most `name=value` pairs one query string may hold (Express's parsers stop at 1,000 silently). */
export const MAX_QUERY_PAIRS = 1000;
/** Largest list index in bracket notation: a list of the whole query string's pairs needs no more. */
export const MAX_BRACKET_INDEX = MAX_QUERY_PAIRS - 1;

const INDEX = /^(?:0|[1-9]\d*)$/;
const BRACKETS = /^(?:\[[^[\]]*\])+$/;

/** A parameter while it is read: a value (several when the same key repeats) or a bracketed branch. */
type Node = { leaf: true; values: Array<string | null> } | { leaf: false; children: Map<string, Node>; next: number };

function decode(text: string): string {
  const spaced = text.includes('+') ? text.replace(/\+/g, ' ') : text;
  // node's own unescape: invalid escapes stay as they are, as in Express's parsers
  return spaced.includes('%') ? unescape(spaced) : spaced;
}

/** `oper[and][0]` -> name `oper`, path `and`, `0`; a key that is not exactly name + brackets is a plain name. */
function splitKey(key: string): { name: string; path: string[] } {
  const open = key.indexOf('[');
  if (open <= 0) return { name: key, path: [] };
  const rest = key.slice(open);
  if (!BRACKETS.test(rest)) return { name: key, path: [] };
  return { name: key.slice(0, open), path: rest.slice(1, -1).split('][') };
}

function conflict(name: string): BadRequestError {
  return new BadRequestError(`Parameter "${name}" is sent both as a value and in bracket notation at the same place; send one form.`, name);
}

function branch(): Node {
  return { leaf: false, children: new Map(), next: 0 };
}

/** Puts one pair's value at its bracket path, making branches on the way. */
function place(top: Map<string, Node>, name: string, path: string[], value: string | null): void {
  let children = top;
  let key = name;
  let owner: (Node & { leaf: false }) | null = null;
  for (let i = 0; i <= path.length; i += 1) {
    if (owner) {
      // `[]` appends: the next index of this branch
      if (key === '') key = String(owner.next);
      if (INDEX.test(key)) {
        if (key.length > 3 || Number(key) > MAX_BRACKET_INDEX) {
          throw new BadRequestError(`Parameter "${name}" has the list index ${key}; indices go from 0 to ${MAX_BRACKET_INDEX}.`, name);
        }
        owner.next = Math.max(owner.next, Number(key) + 1);
      }
    }
    const existing = children.get(key);
    if (i === path.length) {
      if (!existing) children.set(key, { leaf: true, values: [value] });
      else if (existing.leaf) existing.values.push(value);
      else throw conflict(name);
      return;
    }
    let next = existing;
    if (!next) children.set(key, (next = branch()));
    if (next.leaf) throw conflict(name);
    owner = next;
    children = next.children;
    key = path[i];
  }
}

/** A branch whose keys are all list indices is a list (in index order, gaps closed, as qs does); else an object. */
function materialize(node: Node): unknown {
  if (node.leaf) return node.values.length === 1 ? node.values[0] : node.values;
  const keys = [...node.children.keys()];
  if (keys.every((k) => INDEX.test(k))) {
    return keys.sort((a, b) => Number(a) - Number(b)).map((k) => materialize(node.children.get(k) as Node));
  }
  const out: Record<string, unknown> = {};
  for (const key of keys) out[key] = materialize(node.children.get(key) as Node);
  return out;
}

/**
 * The query string as parameters, the same whatever query parser the application's Express uses
 * (decision 64): `name=value` pairs, `+` as a space, percent-decoded (keys too, so `oper%5Band%5D`
 * is `oper[and]`); a repeated key is a list. Bracket notation nests: `attr[status]=active` is
 * `{attr: {status: 'active'}}`, `oper[and][0]=...` and `select[]=a` are lists, `orderby[0][price]`
 * a list of objects. A bracketed value is text except the word `null`, which is null as in the
 * JSON form (`attr[deleted_at]=null` is IS NULL); the parsers type text by each field's type.
 * Prototype names (decision 72): in brackets at any depth a 400 naming the key, as the JSON form
 * is; as a parameter's own name kept (the object has no prototype), so the route's check reports
 * it as an unknown parameter. Dropping either would drop a filter and widen the answer.
 * Depth, index and pair count are bounded (400).
 */
export function parseQueryString(raw: string): Record<string, unknown> {
  const params = Object.create(null) as Record<string, unknown>;
  if (raw === '') return params;
  const pairs = raw.split('&');
  if (pairs.length > MAX_QUERY_PAIRS && pairs.filter((p) => p !== '').length > MAX_QUERY_PAIRS) {
    throw new BadRequestError(`The query string holds more than ${MAX_QUERY_PAIRS} parameters.`);
  }
  const top = new Map<string, Node>();
  for (const pair of pairs) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decode(eq < 0 ? pair : pair.slice(0, eq));
    const text = eq < 0 ? '' : decode(pair.slice(eq + 1));
    const { name, path } = splitKey(key);
    if (name === '') continue;
    if (isForbiddenKey(name)) {
      params[name] = text;
      continue;
    }
    const forbidden = path.find(isForbiddenKey);
    if (forbidden !== undefined) throw forbiddenKeyError(forbidden, name);
    if (path.length >= MAX_PARAMETER_DEPTH) throw new BadRequestError(`Parameter "${name}" nests deeper than ${MAX_PARAMETER_DEPTH} levels.`, name);
    place(top, name, path, path.length > 0 && text === 'null' ? null : text);
  }
  for (const [name, node] of top) params[name] = materialize(node);
  return params;
}

/** The raw query string of a request: what follows the first `?` of its URL. */
export function rawQueryOf(url: string): string {
  const mark = url.indexOf('?');
  return mark < 0 ? '' : url.slice(mark + 1);
}
