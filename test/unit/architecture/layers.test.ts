import { expect } from 'chai';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { importCycles, importEdges, oversizedFiles, unitOf, upwardImports } from '../../../scripts/import-graph';

/**
 * The shape docs/architecture.md describes, held by the module graph itself: layers imported only
 * downwards, no import cycle, small files, one door to the database, features that never build
 * HTTP answers, and an emulator that stands alone.
 */
const root = path.resolve(__dirname, '../../..');
const edges = importEdges();
const FEATURES = ['relations', 'export', 'cache', 'hierarchy', 'changes', 'openapi', 'auth', 'soft-delete'];

describe('architecture: the module graph of lib/ and drivers/', () => {
  it('imports run down the layers (docs/architecture.md)', () => {
    expect(upwardImports(edges).map((e) => `${e.from} -> ${e.to}`)).to.deep.equal([]);
  });

  it('has no import cycle', () => {
    expect(importCycles(edges)).to.deep.equal([]);
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
