import { array, boolean, number, object, string, type AnyObject, type ObjectSchema, type Schema } from 'yup';

/**
 * yup schemas of the demo shop, with messages that read like `The name field is required.`.
 * `create` enforces required fields; `update` applies the same rules to the fields that are
 * present (a required field may be left out, but not set to null or emptied).
 * Strings are strict (a number is not a name); numbers and booleans accept their usual string
 * forms ("12.5", "true") and are cast. Unknown keys pass: fillable decides what is written.
 * Foreign-key existence is checked by the library before writes, so ids are checked for shape only.
 */

export type Mode = 'create' | 'update';
export type DriverName = 'mongo' | 'sql';

/** `category_id` -> `category id`, as in the messages. */
const label = (field: string): string => field.replace(/_/g, ' ');

interface Rules {
  required?: boolean;
  nullable?: boolean;
}

/** Applies required/nullable for the mode: null is allowed only for nullable fields. */
function presence<S extends Schema>(schema: S, field: string, mode: Mode, rules: Rules): Schema {
  const requiredMsg = `The ${label(field)} field is required.`;
  if (rules.nullable) return schema.nullable();
  if (rules.required && mode === 'create') return schema.required(requiredMsg);
  return schema.nonNullable(rules.required ? requiredMsg : `The ${label(field)} field cannot be null.`);
}

function text(field: string, mode: Mode, rules: Rules & { max?: number; email?: boolean; oneOf?: string[] } = {}): Schema {
  let s = string().strict().typeError(`The ${label(field)} must be a string.`);
  // `required()` rejects '' on create; on update a present required field must not be emptied.
  if (rules.required && mode === 'update') s = s.min(1, `The ${label(field)} field is required.`);
  if (rules.max !== undefined) s = s.max(rules.max, `The ${label(field)} may not be greater than ${rules.max} characters.`);
  if (rules.email) s = s.email(`The ${label(field)} must be a valid email address.`);
  if (rules.oneOf) s = s.oneOf(rules.oneOf, `The selected ${label(field)} is invalid.`);
  return presence(s, field, mode, rules);
}

function numeric(field: string, mode: Mode, rules: Rules & { integer?: boolean; min?: number; max?: number } = {}): Schema {
  let s = number().typeError(`The ${label(field)} must be ${rules.integer ? 'an integer' : 'a number'}.`);
  if (rules.integer) s = s.integer(`The ${label(field)} must be an integer.`);
  if (rules.min !== undefined && rules.max !== undefined) {
    const msg = `The ${label(field)} must be between ${rules.min} and ${rules.max}.`;
    s = s.min(rules.min, msg).max(rules.max, msg);
  } else if (rules.min !== undefined) {
    s = s.min(rules.min, `The ${label(field)} must be at least ${rules.min}.`);
  }
  // PostgreSQL INTEGER columns stop at 2^31-1; the same limit on both drivers keeps them alike.
  if (rules.integer && rules.max === undefined) s = s.max(2147483647, `The ${label(field)} may not be greater than 2147483647.`);
  return presence(s, field, mode, rules);
}

function flag(field: string, mode: Mode): Schema {
  return presence(boolean().typeError(`The ${label(field)} field must be true or false.`), field, mode, {});
}

function stringList(field: string, mode: Mode, oneOf?: readonly string[]): Schema {
  const msg = `The ${label(field)} must contain only strings.`;
  const item = string().strict().typeError(msg).nonNullable(msg);
  // The array is strict too: yup's array cast would otherwise turn 3 into '3' despite the strict item.
  let list = array(item).strict().typeError(`The ${label(field)} must be an array.`);
  // checked on the array, so the error is named by the field (`roles`), not by an item (`roles[1]`)
  if (oneOf) {
    list = list.test('one-of', `The selected ${label(field)} must be among ${oneOf.join(', ')}.`, (value) => !Array.isArray(value) || value.every((v) => typeof v !== 'string' || oneOf.includes(v)));
  }
  return presence(list, field, mode, {});
}

/** The shop's roles (example-app.md): any other name in users.roles, `superuser` included, is refused. */
export const ROLE_NAMES = ['viewer', 'customer', 'editor', 'admin'] as const;

/** A reference to another record: a 24-hex ObjectId string (mongo) or a positive integer (sql). */
function reference(field: string, driver: DriverName, mode: Mode, rules: Rules): Schema {
  const msg = `The ${label(field)} must be a valid id.`;
  const s =
    driver === 'mongo'
      ? string().strict().typeError(msg).matches(/^[0-9a-fA-F]{24}$/, msg)
      : number().typeError(msg).integer(msg).positive(msg);
  return presence(s, field, mode, rules);
}

type Shape = Record<string, Schema>;

function build(shape: (mode: Mode) => Shape): { create: ObjectSchema<AnyObject>; update: ObjectSchema<AnyObject> } {
  return {
    create: object(shape('create')).noUnknown(false) as unknown as ObjectSchema<AnyObject>,
    update: object(shape('update')).noUnknown(false) as unknown as ObjectSchema<AnyObject>,
  };
}

export function categorySchemas(driver: DriverName) {
  return build((mode) => ({
    name: text('name', mode, { required: true, max: 100 }),
    parent_id: reference('parent_id', driver, mode, { nullable: true }),
  }));
}

export function productSchemas(driver: DriverName) {
  return build((mode) => ({
    name: text('name', mode, { required: true, max: 200 }),
    sku: text('sku', mode, { required: true, max: 255 }),
    price: numeric('price', mode, { required: true, min: 0 }),
    cost: numeric('cost', mode, { nullable: true, min: 0 }),
    stock: numeric('stock', mode, { integer: true, min: 0 }),
    status: text('status', mode, { oneOf: ['active', 'inactive', 'draft'] }),
    description: text('description', mode, { nullable: true }),
    featured: flag('featured', mode),
    category_id: reference('category_id', driver, mode, { nullable: true }),
  }));
}

export function reviewSchemas(driver: DriverName) {
  return build((mode) => ({
    product_id: reference('product_id', driver, mode, { required: true }),
    user_id: reference('user_id', driver, mode, { nullable: true }),
    rating: numeric('rating', mode, { required: true, integer: true, min: 1, max: 5 }),
    comment: text('comment', mode, { nullable: true }),
  }));
}

export function tagSchemas() {
  return build((mode) => ({
    name: text('name', mode, { required: true, max: 255 }),
  }));
}

/** A date-time: an ISO 8601 string (or a Date), checked for shape; the driver stores it as a date. */
function dateTime(field: string, mode: Mode, rules: Rules): Schema {
  const msg = `The ${label(field)} must be a valid date-time.`;
  const s = string().strict().typeError(msg).test('date-time', msg, (value) => value === undefined || value === null || (/^\d{4}-\d\d-\d\dT/.test(value) && !Number.isNaN(Date.parse(value))));
  return presence(s, field, mode, rules);
}

export function orderSchemas(driver: DriverName) {
  return build((mode) => ({
    user_id: reference('user_id', driver, mode, { required: true }),
    number: text('number', mode, { required: true, max: 40 }),
    status: text('status', mode, { oneOf: ['pending', 'paid', 'shipped', 'cancelled'] }),
    total: numeric('total', mode, { required: true, min: 0 }),
    placed_at: dateTime('placed_at', mode, { required: true }),
    notes: text('notes', mode, { nullable: true }),
  }));
}

export function userSchemas() {
  return build((mode) => ({
    name: text('name', mode, { required: true, max: 255 }),
    email: text('email', mode, { required: true, max: 255, email: true }),
    roles: stringList('roles', mode, ROLE_NAMES),
    is_superuser: flag('is_superuser', mode),
    api_token: text('api_token', mode, { nullable: true, max: 255 }),
  }));
}
