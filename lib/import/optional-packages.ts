import { ApiError } from '../errors';

/**
 * The parsers are optional peers (like exceljs for exports): loaded on the first import, a 501
 * naming the package when the application did not install it.
 */
export function requirePackage<T>(name: string, what: string): T {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(name) as T & { default?: T };
    return mod;
  } catch {
    throw new ApiError('not_implemented', `${what} need the ${name} package on the server: npm install ${name}.`);
  }
}
