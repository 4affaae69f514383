import { expect } from 'chai';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { directFiles, importCycles, importEdges, moduleSpecifiers, oversizedFiles, SUB_LAYERS, unitOf, unplacedSubFolders, upwardImports } from '../../../scripts/import-graph';

/**
 * The shape docs/architecture.md describes, held by the module graph itself: layers imported only
 * downwards, no import cycle, small files, one door to the database, features that never build
 * HTTP answers, and an emulator that stands alone.
 */
const root = path.resolve(__dirname, '../../..');
const edges = importEdges();
const FEATURES = ['relations', 'export', 'import', 'cache', 'hierarchy', 'changes', 'openapi', 'auth', 'soft-delete'];

describe('architecture: the module graph of lib/ and drivers/', () => {
  it('imports run down the layers (docs/architecture.md)', () => {
    expect(upwardImports(edges).map((e) => `${e.from} -> ${e.to}`)).to.deep.equal([]);
  });

  it('has no import cycle', () => {
    expect(importCycles(edges)).to.deep.equal([]);
  });

  it('sees type imports, dynamic imports and lazy requires as edges', () => {
    const text = "import a from './a';\nexport * from './b';\ntype C = import('./c').C;\nconst d = require('./d');\nvoid import('./e');";
    expect(moduleSpecifiers(text)).to.deep.equal(['./a', './b', './c', './d', './e']);
  });

  it('sub-folders of a layered folder import only the sub-layers below them (scripts/import-graph.ts SUB_LAYERS)', () => {
    const layers = SUB_LAYERS.service!;
    const top = layers.findIndex((l) => l.includes('writes')), bottom = layers.findIndex((l) => l.includes('policy'));
    expect(top).to.be.lessThan(bottom);
    const j = path.join;
    const fake = [
      { from: j('lib', 'service', 'policy', 'x.ts'), to: j('lib', 'service', 'writes', 'y.ts') },
      { from: j('lib', 'service', 'writes', 'y.ts'), to: j('lib', 'service', 'policy', 'x.ts') },
      { from: j('lib', 'service', 'request-context.ts'), to: j('lib', 'service', 'reads', 'z.ts') },
      { from: j('lib', 'service', 'database.ts'), to: j('lib', 'service', 'hooks.ts') },
    ];
    expect(upwardImports(fake)).to.deep.equal([fake[0], fake[2]]);
  });

  it('every sub-folder of lib/service/ has a place in the sub-layers and a README.md saying its job', () => {
    expect(unplacedSubFolders()).to.deep.equal([]);
    const dirs = fs.readdirSync(path.join(root, 'lib/service'), { withFileTypes: true }).filter((d) => d.isDirectory());
    expect(dirs.filter((d) => !fs.existsSync(path.join(root, 'lib/service', d.name, 'README.md'))).map((d) => d.name)).to.deep.equal([]);
  });

  it('at most 12 source files lie directly in lib/service/', () => {
    expect(directFiles('lib/service').length).to.be.at.most(12);
  });

  it('has no source file over 300 lines', () => {
    expect(oversizedFiles(300)).to.deep.equal([]);
  });

  it('exports and relations reach the database only through the service (no entry.driver)', () => {
    const offenders = edges
      .map((e) => e.from)
      .filter((file, i, all) => all.indexOf(file) === i && /^lib\/(export|relations)\//.test(file))
      .filter((file) => /entry\.driver\b/.test(fs.readFileSync(path.join(root, file), 'utf8')));
    expect(offenders).to.deep.equal([]);
  });

  it('no feature file but its routes imports lib/http', () => {
    const offenders = edges.filter((e) => FEATURES.includes(unitOf(e.from)) && unitOf(e.to) === 'http' && !/-routes\.ts$/.test(e.from));
    expect(offenders.map((e) => `${e.from} -> ${e.to}`)).to.deep.equal([]);
  });

  it('the emulator imports nothing of lib/ outside itself, and only the testing kit imports it', () => {
    const emulator = (file: string) => file.startsWith('lib/testing/emulator/');
    const outward = edges.filter((e) => emulator(e.from) && !emulator(e.to));
    const inward = edges.filter((e) => !emulator(e.from) && emulator(e.to) && !e.from.startsWith('lib/testing/'));
    expect(outward.map((e) => `${e.from} -> ${e.to}`), 'emulator -> lib').to.deep.equal([]);
    expect(inward.map((e) => `${e.from} -> ${e.to}`), 'lib -> emulator').to.deep.equal([]);
  });

  it('the service layer and below never import express', () => {
    const below = ['service', 'declaration', 'driver', 'query', 'resource', 'errors', 'config'];
    const offenders = [...new Set(edges.map((e) => e.from))].filter(
      (file) => below.includes(unitOf(file)) && /from 'express'/.test(fs.readFileSync(path.join(root, file), 'utf8')),
    );
    expect(offenders).to.deep.equal([]);
  });
});
