/**
 * The repository's generate-client script, the package's `generic-resource-rest client` command run
 * from the sources: `npm run generate-client -- <openapi.json URL or file> <out.ts>` (or
 * `npm run generate-client -- --url <…> --out <…>`).
 * Example: npm run generate-client -- http://localhost:3000/api/v1/openapi.json src/api-types.ts
 */
import { runCli } from '../lib/cli/main';

const args = process.argv.slice(2);
const [source, out, ...rest] = args;
const argv = source && out && !source.startsWith('-') && !out.startsWith('-') ? ['client', '--url', source, '--out', out, ...rest] : ['client', ...args];
void runCli(argv).then((code) => {
  process.exitCode = code;
});
