import { readFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import autocannon from 'autocannon';
import type { Child } from './child';
import { withSeededSqlServer } from './seeded-sql-server';
import type { ServeReady } from './serve';

/**
 * `npx tsx bench/profile.ts [path?query]`: CPU profile of the library serving one request under
 * load (the load only, after a warm-up) on PostgreSQL (PROFILE_WRITE=sync|batch: one write at a time, below) (PROFILE_TARGET=baseline: the hand-written handler, for comparison) (embedded, the main benchmark's data), then the top self-time entries and the
 * time per package. PROFILE_BULK=N profiles N bulk creates of 1,000 products instead. The profile lands in bench/profiles/ (git-ignored). BENCH_SECONDS (default 10).
 */
interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const DEFAULT = `/api/v1/products?${new URLSearchParams({
  oper: JSON.stringify({ and: ['price|>=|10'], category: { and: ['name|like|Gadgets%'] } }),
  relations: 'category.parent,reviews',
  pagination: JSON.stringify({ page: 3, pageSize: 25 }),
})}`;

function bucket(url: string): string {
  if (!url) return '(native/gc)';
  const m = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (m) return m[1];
  if (url.startsWith('node:')) return url.split('/')[0];
  const local = url.match(/\/(lib|drivers|example-app|bench)\/(.*)$/);
  return local ? `${local[1]}/${local[2]}` : url;
}

/**
 * BENCH_HEAP=1: where the request allocates (sampling heap profile) instead of where it spends CPU;
 * BENCH_HEAP=promoted: only what outlived a young-generation collection (what makes scavenges slow).
 */
const HEAP = process.env.BENCH_HEAP === '1' || process.env.BENCH_HEAP === 'promoted';
const HEAP_MODE = process.env.BENCH_HEAP === 'promoted' ? 'start-promoted' : 'start-heap';

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}
interface HeapProfile {
  head: HeapNode;
}

function summarizeHeap(profile: HeapProfile, requests: number, top = 30): string {
  const byFn = new Map<string, number>();
  const byPkg = new Map<string, number>();
  const walk = (node: HeapNode): void => {
    const { functionName, url, lineNumber } = node.callFrame;
    const key = `${functionName || '(anonymous)'} ${bucket(url)}:${lineNumber + 1}`;
    byFn.set(key, (byFn.get(key) ?? 0) + node.selfSize);
    byPkg.set(bucket(url), (byPkg.get(bucket(url)) ?? 0) + node.selfSize);
    node.children.forEach(walk);
  };
  walk(profile.head);
  const total = [...byFn.values()].reduce((a, b) => a + b, 0);
  const kb = (bytes: number) => `${(bytes / 1024 / requests).toFixed(2).padStart(7)} KB/req`;
  const lines = [`allocated ${kb(total)} (sampled)`, '', 'top allocation sites:'];
  for (const [k, t] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${kb(t)}  ${k}`);
  lines.push('', 'by file/package:');
  for (const [k, t] of [...byPkg].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${kb(t)}  ${k}`);
  return lines.join('\n');
}

/** Sends `message` to the child and waits for its answer carrying `key`. */
function message(child: Child<ServeReady>, body: object, key: string): Promise<void> {
  return new Promise((resolve) => {
    const onMessage = (m: unknown): void => {
      if (!m || typeof m !== 'object' || !(key in m)) return;
      child.process.off('message', onMessage);
      resolve();
    };
    child.process.on('message', onMessage);
    child.process.send(body);
  });
}

export function summarize(profile: Profile, requests: number, top = 30): string {
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const byFn = new Map<string, number>();
  const byPkg = new Map<string, number>();
  for (const node of profile.nodes) {
    const t = self.get(node.id) ?? 0;
    if (!t) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)' || functionName === '(program)') continue;
    const key = `${functionName || '(anonymous)'} ${bucket(url)}:${lineNumber + 1}`;
    byFn.set(key, (byFn.get(key) ?? 0) + t);
    const pkg = bucket(url).replace(/^(lib|drivers)\/.*$/, (s) => s);
    byPkg.set(pkg, (byPkg.get(pkg) ?? 0) + t);
  }
  const busy = [...byFn.values()].reduce((a, b) => a + b, 0);
  const pct = (t: number) => `${((100 * t) / busy).toFixed(1).padStart(5)}% ${((t / 1e3) / requests).toFixed(4)} ms/req`;
  const lines = [`busy ${(busy / 1e6).toFixed(2)} s of ${(total / 1e6).toFixed(2)} s sampled: ${(busy / 1e3 / requests).toFixed(3)} ms of CPU per request`, '', 'top self time:'];
  for (const [k, t] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${pct(t).padStart(6)}  ${k}`);
  lines.push('', 'by file/package:');
  for (const [k, t] of [...byPkg].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${pct(t).padStart(6)}  ${k}`);
  return lines.join('\n');
}

/** PROFILE_BULK=N: N bulk creates of 1,000 products, one at a time, instead of the load of GETs. */
const BULK = Number(process.env.PROFILE_BULK ?? 0);
const bulkBody = (tag: string): string =>
  JSON.stringify({ product: Array.from({ length: 1000 }, (_, i) => ({ name: `Profile ${tag} ${i}`, sku: `PROFILE-${tag}-${i}`, price: 10 + (i % 90), stock: i % 20, status: 'active', description: i % 2 ? null : `Bulk product ${i}`, featured: false, category_id: 6 + (i % 45) })) });

async function postBulk(url: string, tag: string): Promise<void> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bulkBody(tag) });
  if (!res.ok) throw new Error(`${url} -> ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
}

/** PROFILE_WRITE=sync|batch|orders (PROFILE_WRITES=N, default 300): N syncs of 100 tags or batch updates of 100 products, as bench:peers sends them, or of 100 orders, as bench:history does. */
const WRITE = process.env.PROFILE_WRITE;
const WRITES = Number(process.env.PROFILE_WRITES ?? 300);

async function send(method: string, url: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${url} -> ${res.status}: ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/** The write load of PROFILE_WRITE, its setup (fresh products with 75 tags for syncs) done before `start`. */
async function profileWrites(base: string, start: () => Promise<void>, baseline: string | null): Promise<void> {
  const api = `${base}/api/v1`;
  // PROFILE_TARGET=baseline: the setup through the library, the profiled writes to the handler
  const syncUrl = (id: number) => (baseline ? `${baseline}/products/${id}/tags/sync` : `${api}/products/${id}/tags/attach?_scenario=sync`);
  const batchUrl = baseline ? `${baseline}/products/batch` : `${api}/products/batch`;
  const page = await send('GET', `${api}/tags?pagination=${encodeURIComponent(JSON.stringify({ page: 1, pageSize: 200 }))}`, undefined);
  const tagIds = (page.data as Array<{ id: number }>).map((t) => t.id);
  if (WRITE === 'sync') {
    const wanted = { tags: tagIds.slice(25, 125).map((tag_id) => ({ tag_id, position: 1 })) };
    const products: number[] = [];
    for (let i = 0; i < WRITES + 20; i += 1) {
      const made = await send('POST', `${api}/products`, { name: `Profile sync ${i}`, sku: `PROFILE-SYNC-${Date.now()}-${i}`, price: 1, stock: 0, status: 'active' });
      const id = (made.model as { id: number }).id;
      await send('POST', `${api}/products/${id}/tags/attach?_scenario=bulk_attach`, { tags: tagIds.slice(0, 75) });
      products.push(id);
    }
    for (const id of products.splice(0, 20)) await send('POST', syncUrl(id), wanted);
    await start();
    for (const id of products) await send('POST', syncUrl(id), wanted);
    return;
  }
  if (WRITE === 'orders') {
    // a batch update of 100 orders, as bench:history sends it (BENCH_HISTORY_OFF=orders: without their history)
    const user = (await send('POST', `${api}/users`, { name: 'Profile', email: `profile-${Date.now()}@example.test` })).model as { id: number };
    const made = await send('POST', `${api}/orders`, { order: Array.from({ length: 100 }, (_, i) => ({ user_id: user.id, number: `PROF-${Date.now()}-${i}`, total: 10 + i, placed_at: '2026-11-01T10:00:00.000Z' })) });
    const ids = (made.models as Array<{ model: { id: number } }>).map((m) => m.model.id);
    const orders = (rep: number) => ({ order: ids.map((id, i) => ({ id, notes: `batch ${rep} ${i}`, total: 10 + ((i + rep) % 50) })) });
    for (let i = 0; i < 20; i += 1) await send('PATCH', `${api}/orders/batch`, orders(i));
    await start();
    for (let i = 0; i < WRITES; i += 1) await send('PATCH', `${api}/orders/batch`, orders(i + 20));
    return;
  }
  const batch = (rep: number) => ({ product: Array.from({ length: 100 }, (_, i) => ({ id: 1000 + i * 7, price: 20 + ((rep + i) % 50), stock: (rep * 3 + i) % 40 })) });
  for (let i = 0; i < 20; i += 1) await send('PATCH', batchUrl, batch(i));
  await start();
  for (let i = 0; i < WRITES; i += 1) await send('PATCH', batchUrl, batch(i + 20));
}

async function main(): Promise<void> {
  const path = process.argv[2] ?? DEFAULT;
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  let requests = 0;
  const dir = join(__dirname, 'profiles', String(Date.now()));
  await mkdir(dir, { recursive: true });
  const file = join(dir, 'load.cpuprofile');
  await withSeededSqlServer(async (child) => {
    const baseline = process.env.PROFILE_TARGET === 'baseline';
    if (WRITE) {
      await profileWrites(child.ready.library, () => message(child, { profile: HEAP ? HEAP_MODE : 'start' }, 'profiling'), baseline ? child.ready.baseline : null);
      await message(child, { profile: file }, 'profiled');
      requests = WRITES;
      return;
    }
    if (BULK > 0) {
      const url = baseline ? `${child.ready.baseline}/products` : `${child.ready.library}/api/v1/products`;
      for (let i = 0; i < 5; i += 1) await postBulk(url, `warm${i}`);
      await message(child, { profile: HEAP ? HEAP_MODE : 'start' }, 'profiling');
      for (let i = 0; i < BULK; i += 1) await postBulk(url, String(i));
      await message(child, { profile: file }, 'profiled');
      requests = BULK;
      return;
    }
    const url = `${baseline ? child.ready.baseline : child.ready.library}${path}`;
    const first = await fetch(url);
    if (!first.ok) throw new Error(`${url} -> ${first.status}: ${await first.text()}`);
    const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
    await autocannon({ url, connections, duration: 2 });
    // only the measured load is profiled, not the server's start or the warm-up
    await message(child, { profile: HEAP ? HEAP_MODE : 'start' }, 'profiling');
    const r = await autocannon({ url, connections, duration: seconds });
    await message(child, { profile: file }, 'profiled');
    console.log(`${r.requests.average} req/s, p50 ${r.latency.p50} ms, non-2xx ${r.non2xx}; ${r.requests.total} requests`);
    requests = r.requests.total;
  });
  if (HEAP) {
    console.log(summarizeHeap(JSON.parse(await readFile(file, 'utf8')) as HeapProfile, requests));
    return;
  }
  console.log(summarize(JSON.parse(await readFile(file, 'utf8')) as Profile, requests));
  console.log(`\nprofile: ${file}`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
