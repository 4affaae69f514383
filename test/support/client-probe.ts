import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';

const repo = resolve(__dirname, '..', '..');

/**
 * A consumer project of the typed client as users get it: `node_modules/generic-resource-rest`
 * holds the repository's package.json (its `exports` and `typesVersions`) and the client's
 * declarations built from lib/client into dist/lib/client, exactly the packed layout; the
 * project's own files sit next to it. `compile` type-checks them like a user's `tsc --strict`
 * under `module`/`moduleResolution` nodenext (skipLibCheck false: the declarations are checked too).
 */
export class ClientProbe {
  readonly dir = mkdtempSync(join(tmpdir(), 'grr-client-probe-'));
  /** TypeScript's own lib declarations, parsed once for every compile of this probe. */
  private readonly libs = new Map<string, ts.SourceFile | undefined>();

  constructor() {
    const pkg = join(this.dir, 'node_modules', 'generic-resource-rest');
    mkdirSync(pkg, { recursive: true });
    copyFileSync(join(repo, 'package.json'), join(pkg, 'package.json'));
    const out = join(pkg, 'dist', 'lib', 'client');
    const program = ts.createProgram([join(repo, 'lib', 'client', 'index.ts')], { declaration: true, emitDeclarationOnly: true, strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'], types: [], rootDir: join(repo, 'lib', 'client'), outDir: out });
    const emitted = program.emit();
    if (emitted.emitSkipped) throw new Error('the client declarations did not build');
  }

  write(files: Record<string, string>): this {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(this.dir, name), text);
    return this;
  }

  /** `package.json` of the consumer: `type: module` (ESM, the default of new projects) or commonjs. */
  type(kind: 'module' | 'commonjs'): this {
    return this.write({ 'package.json': JSON.stringify({ name: 'probe', private: true, type: kind }) });
  }

  /** Diagnostics per file (file name -> messages, `line: message`), of a strict nodenext compile. */
  compile(files: string[]): Record<string, string[]> {
    const options: ts.CompilerOptions = { strict: true, noEmit: true, skipLibCheck: false, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, types: [], lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'] };
    const host = ts.createCompilerHost(options);
    const read = host.getSourceFile.bind(host);
    host.getSourceFile = (name, version, ...rest) => {
      if (!name.includes('/typescript/lib/')) return read(name, version, ...rest);
      if (!this.libs.has(name)) this.libs.set(name, read(name, version, ...rest));
      return this.libs.get(name);
    };
    const program = ts.createProgram(files.map((f) => join(this.dir, f)), options, host);
    const out: Record<string, string[]> = {};
    for (const d of ts.getPreEmitDiagnostics(program)) {
      const name = d.file ? d.file.fileName.slice(this.dir.length + 1) : '(options)';
      const line = d.file ? d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1 : 0;
      (out[name] ??= []).push(`${line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    }
    return out;
  }

  close(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The README's typed-client snippet: the ```ts block that imports from 'generic-resource-rest/client' in "API description and typed client". */
export function readmeClientSnippet(): string {
  const section = readFileSync(join(repo, 'README.md'), 'utf8').split(/^## API description and typed client$/m)[1]?.split(/^## /m)[0] ?? '';
  const block = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]).find((code) => code.includes("from 'generic-resource-rest/client'"));
  if (!block) throw new Error('README.md: no typed-client snippet in "API description and typed client"');
  return block;
}

export const exampleTypes = (): string => readFileSync(join(repo, 'example-app', 'client-types.ts'), 'utf8');
