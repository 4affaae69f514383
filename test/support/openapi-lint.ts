import { Document, Spectral } from '@stoplight/spectral-core';
import { Json } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';

/** What a linter said about a document: errors and warnings, each as `rule at path: message`. */
export interface LintReport {
  errors: string[];
  warnings: string[];
}

/** Redocly's `recommended` ruleset (@redocly/openapi-core, an ES module: loaded on use). */
export async function redoclyLint(document: unknown): Promise<LintReport> {
  const { createConfig, lintFromString } = await import('@redocly/openapi-core');
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: '/openapi.json', config });
  const line = (p: (typeof problems)[number]) => `${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`;
  return { errors: problems.filter((p) => p.severity === 'error').map(line), warnings: problems.filter((p) => p.severity === 'warn').map(line) };
}

/** Spectral's `spectral:oas` ruleset (its recommended rules). */
export async function spectralLint(document: unknown): Promise<LintReport> {
  const spectral = new Spectral();
  spectral.setRuleset({ extends: [[oas as never, 'recommended']] });
  const results = await spectral.run(new Document(JSON.stringify(document), Json, '/openapi.json'));
  const line = (r: (typeof results)[number]) => `${String(r.code)} at ${r.path.join('/')}: ${r.message}`;
  // severity: 0 error, 1 warning, 2 information, 3 hint
  return { errors: results.filter((r) => r.severity === 0).map(line), warnings: results.filter((r) => r.severity === 1).map(line) };
}
