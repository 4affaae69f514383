#!/usr/bin/env node
/**
 * The package's command, `generic-resource-rest` (package.json `bin`):
 *   npx generic-resource-rest client --url http://localhost:3000/api/v1/openapi.json --out src/api-types.ts
 * Exit codes: 0 done, 1 the work failed (unreachable URL, unreadable document), 2 a bad command line.
 */
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { generateClientFile, UsageError } from './client-command';
import type { CliIo } from './cli-io';
import { EMULATOR_USAGE, runEmulatorCommand } from './emulator-command';
import { IMPORT_USAGE, runImportCommand } from './import-command';

export const USAGE = `Usage: generic-resource-rest <command> [options]

Commands:
  client --url <openapi.json URL or file> --out <file.ts>
      Writes the typed client's types (generic-resource-rest/client) of an API from its
      OpenAPI document (api.openapi(), or /openapi.json of api.docsRouter()).
      --url      http(s) URL, file: URL or path of the OpenAPI document
      --out      the TypeScript file to write (its folder is created)
      --header   "name: value" sent with the HTTP request (repeatable), e.g.
                 --header "authorization: Bearer <token>" when the docs ask for credentials
      --timeout  seconds to wait for the server (default 30)
${EMULATOR_USAGE}${IMPORT_USAGE}
Options:
  -h, --help   this text

Example:
  npx generic-resource-rest client --url http://localhost:3000/api/v1/openapi.json --out src/api-types.ts
`;

/** Where the CLI writes: the process's streams, or a test's buffers. */
export type { CliIo } from './cli-io';

const processIo: CliIo = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) };

function parseHeaders(values: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const colon = value.indexOf(':');
    if (colon <= 0) throw new UsageError(`--header "${value}": expected "name: value".`);
    headers[value.slice(0, colon).trim().toLowerCase()] = value.slice(colon + 1).trim();
  }
  return headers;
}

function parseClientArgs(args: string[]): { help: boolean; url?: string; out?: string; headers: Record<string, string>; timeoutMs?: number } {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        url: { type: 'string' },
        out: { type: 'string' },
        header: { type: 'string', multiple: true },
        timeout: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: true, headers: {} };
  if (positionals.length > 0) throw new UsageError(`client: unexpected argument "${positionals[0]}" (the document is given with --url, the file with --out).`);
  if (!values.url) throw new UsageError('client: --url <openapi.json URL or file> is missing.');
  if (!values.out) throw new UsageError('client: --out <file.ts> is missing.');
  if (!/\.(c|m)?tsx?$/.test(values.out)) throw new UsageError(`client: --out ${values.out} should be a TypeScript file (.ts): it holds types.`);
  let timeoutMs: number | undefined;
  if (values.timeout !== undefined) {
    const seconds = Number(values.timeout);
    if (!Number.isFinite(seconds) || seconds <= 0) throw new UsageError(`client: --timeout ${values.timeout} is not a positive number of seconds.`);
    timeoutMs = seconds * 1000;
  }
  return { help: false, url: values.url, out: values.out, headers: parseHeaders(values.header ?? []), timeoutMs };
}

/** Runs one command line (the arguments after the command's name); resolves to the exit code. */
export async function runCli(argv: string[], io: CliIo = processIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined) throw new UsageError('a command is missing.');
    if (command === '-h' || command === '--help' || command === 'help') {
      io.out(USAGE);
      return 0;
    }
    if (command === 'emulator') return await runEmulatorCommand(rest, io, USAGE);
    if (command === 'import') return await runImportCommand(rest, io, USAGE);
    if (command !== 'client') throw new UsageError(`unknown command "${command}" (the commands: client, emulator, import).`);
    const options = parseClientArgs(rest);
    if (options.help) {
      io.out(USAGE);
      return 0;
    }
    const result = await generateClientFile({ url: options.url as string, out: options.out as string, headers: options.headers, timeoutMs: options.timeoutMs });
    const names = Object.keys(result.resources);
    io.out(`wrote ${relative(process.cwd(), result.out) || result.out}: types of ${names.length} resource${names.length === 1 ? '' : 's'} (${names.join(', ')})\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`generic-resource-rest: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    io.err(`generic-resource-rest: ${(error as Error).message}\n`);
    return 1;
  }
}

if (require.main === module) {
  void runCli(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
