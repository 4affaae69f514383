import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateTypes } from '../client/generate-types';

/** A command line the CLI cannot run: printed with the usage, exit code 2. */
export class UsageError extends Error {}

/** What `generic-resource-rest client` needs: where the OpenAPI document is and where the types go. */
export interface ClientCommandOptions {
  /** `http(s)://…/openapi.json`, a `file:` URL or a file path. */
  url: string;
  /** The .ts file to write (its folder is created). */
  out: string;
  /** Request headers when fetching over HTTP (a docs router with `authenticate: true` needs the caller's credentials). */
  headers?: Record<string, string>;
  /** Milliseconds before an HTTP fetch gives up (default 30 s). */
  timeoutMs?: number;
}

/** What was written. */
export interface ClientCommandResult {
  out: string;
  /** Route segment -> record type name, as the document's `x-resources` lists them. */
  resources: Record<string, string>;
}

function describeCause(error: unknown): string {
  const err = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return 'no answer in time';
  const cause = err.cause;
  if (cause?.code) return `${cause.code}${cause.message ? ` (${cause.message})` : ''}`;
  return cause?.message ?? err.message ?? String(error);
}

async function readDocumentText(options: ClientCommandOptions): Promise<string> {
  const { url } = options;
  if (/^https?:\/\//i.test(url)) {
    let response: Response;
    try {
      response = await fetch(url, { headers: { accept: 'application/json', ...options.headers }, signal: AbortSignal.timeout(options.timeoutMs ?? 30_000) });
    } catch (error) {
      throw new Error(`Could not fetch the OpenAPI document from ${url}: ${describeCause(error)}. Is the API running and the URL right?`);
    }
    if (!response.ok) {
      const hint = response.status === 401 || response.status === 403 ? ' (the docs router asks for credentials: pass them with --header "authorization: Bearer <token>")' : '';
      throw new Error(`Could not fetch the OpenAPI document from ${url}: the server answered ${response.status} ${response.statusText}${hint}.`);
    }
    return response.text();
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !/^file:/i.test(url)) throw new UsageError(`--url ${url}: only http(s) URLs, file: URLs and file paths are read.`);
  const path = /^file:/i.test(url) ? fileURLToPath(url) : resolve(url);
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(`Could not read the OpenAPI document ${path}: ${code === 'ENOENT' ? 'no such file' : code ?? (error as Error).message}.`);
  }
}

/**
 * Fetches or reads an API's OpenAPI document (`api.openapi()`, served as `/openapi.json` by the
 * docs router) and writes the typed client's types (`generateTypes`) to `out`.
 */
export async function generateClientFile(options: ClientCommandOptions): Promise<ClientCommandResult> {
  const text = await readDocumentText(options);
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new Error(`${options.url} is not JSON (${(error as Error).message}): --url takes the API's openapi.json.`);
  }
  const doc = document as Record<string, unknown> | null;
  if (!doc || typeof doc !== 'object' || Array.isArray(doc) || typeof doc.openapi !== 'string') {
    throw new Error(`${options.url} is not an OpenAPI document (no "openapi" version field).`);
  }
  const resources = doc['x-resources'];
  if (!resources || typeof resources !== 'object' || Array.isArray(resources)) {
    throw new Error(`${options.url} has no "x-resources": the typed client needs the OpenAPI document of a generic-resource-rest API (api.openapi(), or /openapi.json of api.docsRouter()).`);
  }
  const out = resolve(options.out);
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, generateTypes(doc));
  return { out, resources: resources as Record<string, string> };
}
