// Traces four requests of the example app (sql driver, embedded PostgreSQL) through lib/ and drivers/:
// which source files run (precise function coverage around one request) and how many folder hops the
// call stacks make (CPU profiler samples over many runs). `npx tsx scripts/trace-request.ts`
// Options (env): TRACE_RUNS (profiled runs per request, default 200), TRACE_INTERVAL_US (sampling
// interval, default 50), TRACE_JSON=<file> (also write the raw figures as JSON).
// Written to run unchanged on older trees: it only needs example-app/app.ts `createExampleApp` and
// lib/testing/start-postgres.ts `startPostgres`.
import * as fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { Session } from 'node:inspector';
import { fileURLToPath } from 'node:url';

const root = path.resolve(__dirname, '..');
const RUNS = Number(process.env.TRACE_RUNS ?? 200);
const INTERVAL_US = Number(process.env.TRACE_INTERVAL_US ?? 50);
const WARMUP = 5;

// ---------------------------------------------------------------- inspector helpers

const session = new Session();
session.connect();
function post<T = unknown>(method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) => {
    session.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result as T)));
  });
}

interface FunctionCoverage { functionName: string; ranges: Array<{ startOffset: number; endOffset: number; count: number }> }
interface ScriptCoverage { url: string; functions: FunctionCoverage[] }
interface CallFrame { functionName: string; url: string; lineNumber: number; columnNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples?: number[]; timeDeltas?: number[] }

/** The project file (relative, posix) of a script URL, or null when outside lib/ (minus lib/testing) and drivers/. */
function projectFile(url: string): string | null {
  if (!url) return null;
  let file: string;
  try {
    file = url.startsWith('file:') ? fileURLToPath(url.split('?')[0]) : url;
  } catch {
    return null;
  }
  if (!path.isAbsolute(file)) return null;
  const rel = path.relative(root, file).split(path.sep).join('/');
  if (rel.startsWith('..') || rel.includes('node_modules')) return null;
  if (rel.startsWith('lib/testing/')) return null;
  if (!rel.startsWith('lib/') && !rel.startsWith('drivers/')) return null;
  return rel;
}

/** lib/<folder>, 'lib' for files at lib's root, drivers/<name>. */
function folderOf(rel: string): string {
  const parts = rel.split('/');
  if (parts[0] === 'lib') return parts.length > 2 ? `lib/${parts[1]}` : 'lib';
  return parts.length > 2 ? `drivers/${parts[1]}` : 'drivers';
}

// ---------------------------------------------------------------- the example app

interface Req { method: string; url: string; body?: () => unknown }
interface ExampleAppLike { app: { listen(port: number, host: string, cb: () => void): import('node:http').Server }; close(): Promise<void>; info: { adminToken: string } }

async function startApp(): Promise<{ base: string; token: string; stop(): Promise<void> }> {
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const pg = require(path.join(root, 'lib/testing/start-postgres')) as { startPostgres(): Promise<{ uri: string; stop(): Promise<void> }> };
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const mod = require(path.join(root, 'example-app/app')) as { createExampleApp(o: Record<string, unknown>): Promise<ExampleAppLike> };
  const db = await pg.startPostgres();
  const example = await mod.createExampleApp({ driver: 'sql', postgresUri: db.uri, seed: true, adminToken: 'trace-admin-token-0123456789abcdef' });
  const server = await new Promise<import('node:http').Server>((resolve) => {
    const s = example.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    token: example.info.adminToken,
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await example.close();
      await db.stop();
    },
  };
}

async function send(base: string, token: string, req: Req): Promise<{ status: number; body: Buffer }> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
  let body: string | undefined;
  if (req.body) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(req.body());
  }
  const res = await fetch(base + req.url, { method: req.method, headers, body });
  const buf = Buffer.from(await res.arrayBuffer());
  return { status: res.status, body: buf };
}

function records(json: unknown): Array<Record<string, unknown>> {
  if (Array.isArray(json)) return json as Array<Record<string, unknown>>;
  if (json && typeof json === 'object') {
    for (const key of ['data', 'items', 'records', 'rows', 'results']) {
      const v = (json as Record<string, unknown>)[key];
      if (Array.isArray(v)) return v as Array<Record<string, unknown>>;
    }
  }
  return [];
}

// ---------------------------------------------------------------- measurements

async function filesOfOneRequest(run: () => Promise<unknown>): Promise<string[]> {
  await post('Profiler.takePreciseCoverage'); // resets the counts
  await run();
  const { result } = await post<{ result: ScriptCoverage[] }>('Profiler.takePreciseCoverage');
  const files = new Set<string>();
  for (const script of result) {
    const rel = projectFile(script.url);
    if (!rel) continue;
    if (script.functions.some((f) => f.ranges.length > 0 && f.ranges[0].count > 0)) files.add(rel);
  }
  return [...files].sort();
}

interface HopResult {
  /** Distinct caller->callee frame pairs (function identity) crossing folders. */
  frameEdges: Set<string>;
  /** The same without the transpiler's helper frames (isHelper): the calls the source makes. */
  sourceEdges: Set<string>;
  /** Distinct folder->folder pairs among them. */
  folderEdges: Set<string>;
  /** Folder -> first-appearance positions (0..1 of the request's samples), one per run where it appeared. */
  firstSeen: Map<string, number[]>;
  sampledFiles: Set<string>;
}

/**
 * A frame of the code tsx/esbuild adds to each module rather than of its source: the getter of a
 * CommonJS export (`get`, run on every `module.fn` access) and the `__name` helper. Such a frame
 * stands between a caller and the function it calls, so it is skipped for source hops.
 */
function isHelper(cf: CallFrame): boolean {
  return cf.functionName === 'get' || cf.functionName === '__name';
}

function frameKey(cf: CallFrame, rel: string): string {
  return `${rel}:${cf.lineNumber + 1}:${cf.columnNumber + 1}:${cf.functionName || '(anonymous)'}`;
}

/**
 * Adds one profile: for each node in a project file, its caller is the nearest ancestor in a project
 * file (frames of express, sequelize, node internals in between are skipped); an edge counts when
 * the two files lie in different folders.
 */
function addProfile(profile: Profile, out: HopResult): void {
  const byId = new Map<number, ProfileNode>();
  for (const n of profile.nodes) byId.set(n.id, n);
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // nearest project ancestor (or self) per node, and folder path root->leaf
  const projectAnc = new Map<number, number | null>();
  const order: number[] = [];
  const rootNode = profile.nodes.find((n) => !parent.has(n.id));
  if (!rootNode) return;
  const stack: Array<[number, number | null, number | null]> = [[rootNode.id, null, null]];
  const foldersPath = new Map<number, string[]>();
  foldersPath.set(rootNode.id, []);
  while (stack.length) {
    const [id, anc, srcAnc] = stack.pop()!;
    order.push(id);
    const node = byId.get(id)!;
    const rel = projectFile(node.callFrame.url);
    let myAnc = anc;
    let mySrcAnc = srcAnc;
    const pPath = parent.has(id) ? foldersPath.get(parent.get(id)!)! : [];
    let myPath = pPath;
    if (rel) {
      out.sampledFiles.add(rel);
      if (anc !== null) {
        const callerNode = byId.get(anc)!;
        const callerRel = projectFile(callerNode.callFrame.url)!;
        const a = folderOf(callerRel);
        const b = folderOf(rel);
        if (a !== b) {
          out.frameEdges.add(`${frameKey(callerNode.callFrame, callerRel)} -> ${frameKey(node.callFrame, rel)}`);
          out.folderEdges.add(`${a} -> ${b}`);
        }
      }
      const helper = isHelper(node.callFrame);
      if (srcAnc !== null && !helper) {
        const callerNode = byId.get(srcAnc)!;
        const callerRel = projectFile(callerNode.callFrame.url)!;
        if (folderOf(callerRel) !== folderOf(rel)) out.sourceEdges.add(`${frameKey(callerNode.callFrame, callerRel)} -> ${frameKey(node.callFrame, rel)}`);
      }
      myAnc = id;
      if (!helper) mySrcAnc = id;
      const f = folderOf(rel);
      if (!pPath.includes(f)) myPath = [...pPath, f];
    }
    projectAnc.set(id, myAnc);
    foldersPath.set(id, myPath);
    for (const c of node.children ?? []) stack.push([c, myAnc, mySrcAnc]);
  }
  // first appearance of each folder in this request's sample sequence
  const samples = profile.samples ?? [];
  const seen = new Set<string>();
  samples.forEach((s, i) => {
    const fp = foldersPath.get(s) ?? [];
    fp.forEach((f, depth) => {
      if (seen.has(f)) return;
      seen.add(f);
      const pos = samples.length > 1 ? i / (samples.length - 1) : 0;
      const list = out.firstSeen.get(f) ?? [];
      list.push(pos + depth * 1e-6);
      out.firstSeen.set(f, list);
    });
  });
}

async function hopsOfRequest(run: () => Promise<unknown>): Promise<HopResult> {
  const out: HopResult = { frameEdges: new Set(), sourceEdges: new Set(), folderEdges: new Set(), firstSeen: new Map(), sampledFiles: new Set() };
  await post('Profiler.setSamplingInterval', { interval: INTERVAL_US });
  for (let i = 0; i < RUNS; i++) {
    await post('Profiler.start');
    await run();
    const { profile } = await post<{ profile: Profile }>('Profiler.stop');
    addProfile(profile, out);
  }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : 1;
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const head = (() => {
    try {
      return require('node:child_process').execSync('git rev-parse --short HEAD', { cwd: root }).toString().trim() as string;
    } catch {
      return '?';
    }
  })();
  console.error(`# tree ${root} (HEAD ${head})`);
  const app = await startApp();
  const { base, token } = app;
  try {
    // data the requests need: a product, a few tags
    const tags = records(JSON.parse((await send(base, token, { method: 'GET', url: '/api/v1/tags?pagination=' + encodeURIComponent('{"page":1,"pageSize":10}') })).body.toString()));
    const products = records(JSON.parse((await send(base, token, { method: 'GET', url: '/api/v1/products?pagination=' + encodeURIComponent('{"page":1,"pageSize":5}') })).body.toString()));
    const categories = records(JSON.parse((await send(base, token, { method: 'GET', url: '/api/v1/categories?pagination=' + encodeURIComponent('{"page":1,"pageSize":5}') })).body.toString()));
    if (tags.length < 4 || products.length < 1) throw new Error(`seed data missing: ${tags.length} tags, ${products.length} products`);
    const tagIds = tags.slice(0, 4).map((t) => t.id);
    const productId = products[0].id;
    const categoryId = categories[0]?.id ?? null;
    let n = 0;
    let flip = false;
    const requests: Array<{ name: string; req: Req; expect: number[] }> = [
      {
        name: 'list',
        req: {
          method: 'GET',
          url:
            '/api/v1/products?oper=' + encodeURIComponent('{"and":["price|>=|10"]}') + '&relations=category,reviews&pagination=' + encodeURIComponent('{"page":1,"pageSize":25}'),
        },
        expect: [200],
      },
      {
        name: 'store',
        req: {
          method: 'POST',
          url: '/api/v1/products',
          body: () => ({ name: `Traced product ${++n}`, sku: `TRACE-${process.pid}-${n}`, price: 19.5, stock: 3, status: 'active', category_id: categoryId }),
        },
        expect: [200, 201],
      },
      {
        name: 'm2m sync',
        req: {
          method: 'POST',
          url: `/api/v1/products/${productId}/tags/attach?_scenario=sync`,
          // alternates between two sets, so every sync attaches one tag and detaches another
          body: () => ((flip = !flip) ? { tags: tagIds.slice(0, 3) } : { tags: tagIds.slice(1, 4) }),
        },
        expect: [200],
      },
      { name: 'xlsx export', req: { method: 'GET', url: '/api/v1/products/export/excel' }, expect: [200] },
    ];

    const rows: Array<Record<string, unknown>> = [];
    for (const r of requests) {
      const run = async () => {
        const res = await send(base, token, r.req);
        if (!r.expect.includes(res.status)) throw new Error(`${r.name}: ${r.req.method} ${r.req.url} answered ${res.status}: ${res.body.toString().slice(0, 300)}`);
        return res;
      };
      for (let i = 0; i < WARMUP; i++) await run();
      await post('Profiler.enable');
      await post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
      const files = await filesOfOneRequest(run);
      await post('Profiler.stopPreciseCoverage');
      const hops = await hopsOfRequest(run);
      await post('Profiler.disable');
      const coveredFolders = [...new Set(files.map(folderOf))];
      const orderFolders = [...hops.firstSeen.entries()]
        .filter(([f]) => coveredFolders.includes(f))
        .sort((a, b) => median(a[1]) - median(b[1]))
        .map(([f]) => f);
      const unsampled = coveredFolders.filter((f) => !orderFolders.includes(f));
      rows.push({
        name: r.name,
        files: files.length,
        fileList: files,
        hops: hops.frameEdges.size,
        sourceHops: hops.sourceEdges.size,
        sourceEdges: [...hops.sourceEdges].sort(),
        folderPairs: hops.folderEdges.size,
        folderEdges: [...hops.folderEdges].sort(),
        frameEdges: [...hops.frameEdges].sort(),
        folders: orderFolders,
        coverageOnlyFolders: unsampled,
        sampledFiles: hops.sampledFiles.size,
      });
      console.error(`# ${r.name}: ${files.length} files, ${hops.frameEdges.size} frame hops (${hops.sourceEdges.size} in the source), ${hops.folderEdges.size} folder pairs`);
    }

    console.log(`## Trace of ${root} (HEAD ${head}), sql driver, ${RUNS} profiled runs per request at ${INTERVAL_US} µs`);
    console.log('');
    console.log('files = lib/ (minus lib/testing) and drivers/ source files with a function whose call count rose during one');
    console.log('request (Profiler precise coverage, callCount, function granularity, taken right before and after it).');
    console.log('hops = distinct caller->callee frame pairs whose files lie in different folders (lib/<folder>, lib, drivers/<name>),');
    console.log('from CPU profiler stacks; the caller of a project frame is its nearest project ancestor (express, sequelize,');
    console.log('node frames skipped); stacks restart after each await, so edges across an await are not seen.');
    console.log('source hops = the same without the transpiler\'s helper frames (export getters `get`, `__name`), which stand');
    console.log('between a call in the source and its callee; a sampled helper frame otherwise adds a pair of its own.');
    console.log('folder pairs = distinct folder->folder pairs among those hops.');
    console.log('');
    console.log('| request | files | hops (frame pairs) | source hops | folder pairs | folders entered (order of first appearance) |');
    console.log('|---|---|---|---|---|---|');
    for (const row of rows) {
      const folders = (row.folders as string[]).join(' → ') + ((row.coverageOnlyFolders as string[]).length ? ` (+ not sampled: ${(row.coverageOnlyFolders as string[]).join(', ')})` : '');
      console.log(`| ${row.name} | ${row.files} | ${row.hops} | ${row.sourceHops} | ${row.folderPairs} | ${folders} |`);
    }
    console.log('');
    for (const row of rows) {
      console.log(`### ${row.name}`);
      console.log(`files: ${(row.fileList as string[]).join(', ')}`);
      console.log(`folder pairs: ${(row.folderEdges as string[]).join(', ')}`);
      console.log('');
    }
    if (process.env.TRACE_JSON) fs.writeFileSync(process.env.TRACE_JSON, JSON.stringify({ root, head, runs: RUNS, intervalUs: INTERVAL_US, rows }, null, 2));
  } finally {
    await app.stop();
    session.disconnect();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
