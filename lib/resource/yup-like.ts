/**
 * A yup object schema (`object({...})`) as the published types name it: yup is an optional peer,
 * so the package's types describe the part of a schema they rely on instead of importing yup's
 * (a mongoose app without yup compiles them). Any yup 1.x object schema fits; the library uses it
 * as yup's own (`validate`, `describe`, its fields).
 */
export interface YupLikeSchema {
  /** `'object'` for `object({...})`. */
  readonly type: string;
  /** The field schemas by name. */
  readonly fields: { readonly [field: string]: unknown };
  describe(options?: unknown): unknown;
  validate(value: unknown, options?: unknown): Promise<unknown>;
}
