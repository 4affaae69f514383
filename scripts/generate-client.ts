/**
 * Writes the typed client's types of an API: `npm run generate-client -- <openapi.json URL or file> <out.ts>`.
 * Example: npm run generate-client -- http://localhost:3000/api/v1/openapi.json src/api-types.ts
 */
import { readFile, writeFile } from 'node:fs/promises';
import { generateTypes } from '../lib/client/generate-types';

async function main(): Promise<void> {
  const [source, out] = process.argv.slice(2);
  if (!source || !out) throw new Error('usage: generate-client <openapi.json URL or file> <out.ts>');
  const text = /^https?:\/\//.test(source) ? await (await fetch(source)).text() : await readFile(source, 'utf8');
  await writeFile(out, generateTypes(JSON.parse(text) as Record<string, unknown>));
  console.log(`wrote ${out}`);
}

main().catch((error: unknown) => {
  console.error((error as Error).message);
  process.exit(1);
});
