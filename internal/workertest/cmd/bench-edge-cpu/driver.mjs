// The driver of bench-edge-cpu: it imports the edge Worker, js-seed and the JS pass-through
// in this Node process and replays one warm request shape through each, with in-memory
// bindings (a KV of one record, a Cache API that keeps what is put) and an upstream fetch
// that answers at once, so the time measured is the Workers' own CPU (Go core, shim,
// Request/Response objects, WebCrypto), without any runtime I/O or scheduling noise. Warm
// means each Worker's own warm path: the edge's in-isolate memo, js-seed's content-cache
// miss and route-cache hit, the pass-through's one KV read.
// Then the same again cold: every request to an app the Worker has never seen.
// Then a static site's GET, of one site (its route and manifest in memory) and of a site the
// Worker has never seen (sites.json: se0… for the edge, ss0… for js-seed).
// Prints µs per request: warm edge, seed, js; cold edge, seed, js; the first 500 (warm-up)
// edge, seed, js; a static site's GET edge, seed; a new site's GET edge, seed.
// With a third argument, the directory of another build of the edge (its worker.mjs rewritten
// as this one's), that build runs beside the edge in every alternation, with series of its
// own (b…, sb…), and a second line prints its warm, cold, static and new-site times.
// Usage: node driver.mjs <dir> <requests> [<other build's dir>]; <dir> holds worker.mjs (its
// edge.wasm import rewritten to a file read), wasm_exec.js, edge.wasm, js-seed.mjs, passthrough.mjs,
// deliver.mjs, record.json (a valid ROUTES record for app "shop"), cold.json (app → record
// for the cold requests: e0… for the edge, s0… for js-seed, p0… for the pass-through) and
// site.json (app "docs": its record, its manifest's key and text, its one object's key and
// text) and sites.json (app → the same, for the new sites' GETs).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [dir, n, otherDir] = [process.argv[2], Number(process.argv[3] || 5000), process.argv[4] || ""];
const record = readFileSync(join(dir, "record.json"), "utf8").trim();
const edge = (await import(pathToFileURL(join(dir, "worker.mjs")))).default;
const other = otherDir ? (await import(pathToFileURL(join(otherDir, "worker.mjs")))).default : null;
const js = (await import(pathToFileURL(join(dir, "passthrough.mjs")))).default;
const seed = (await import(pathToFileURL(join(dir, "js-seed.mjs")))).default;

// Bindings: a KV of the records, a bucket of the content-addressed sites (their manifests and
// objects), a cache that keeps entries by URL but the sites' content (so that every static
// request reads its object).
const cold = JSON.parse(readFileSync(join(dir, "cold.json"), "utf8"));
const site = JSON.parse(readFileSync(join(dir, "site.json"), "utf8"));
const sites = JSON.parse(readFileSync(join(dir, "sites.json"), "utf8"));
const siteTexts = new Map([[site.manifestKey, site.manifest], [site.objectKey, site.body]]);
for (const s of Object.values(sites)) { siteTexts.set(s.manifestKey, s.manifest); siteTexts.set(s.objectKey, s.body); }
const value = (key) => (key === "shop" ? record : key === "docs" ? site.record : cold[key] ?? sites[key]?.record);
// BENCH_IO_YIELD (bench-edge-cpu -io-yield): every binding call is answered on a later turn of
// the event loop, as runtime I/O is in workerd, rather than by the next microtask.
const ioTurn = process.env.BENCH_IO_YIELD === "1" ? () => new Promise((resolve) => setImmediate(resolve)) : () => undefined;
const kv = { get: async (key, opts) => {
  await ioTurn();
  const v = value(key);
  if (v === undefined || (opts && opts.type === "arrayBuffer")) return null; // no name filter
  return opts && opts.type === "json" ? JSON.parse(v) : v;
} };
const stored = new Map();
const cacheKey = (k) => String(k && k.url ? k.url : k);
globalThis.caches = { default: {
  match: async (k) => {
    await ioTurn();
    const e = stored.get(cacheKey(k));
    return e ? new Response(e.body, { status: e.status, headers: e.headers }) : undefined;
  },
  put: async (k, response) => {
    const body = await response.text();
    if (cacheKey(k).startsWith("https://docs.kamui.test/") || /^https:\/\/s[esb][0-9]+\./.test(cacheKey(k))) return;
    stored.set(cacheKey(k), { status: response.status, headers: [...response.headers], body });
  },
} };
// workerd's stream that sends a known length; Node has none, and a pass-through is enough here.
globalThis.FixedLengthStream ??= class extends TransformStream { constructor() { super(); } };
const siteObject = (key, withBody) => ({
  key, size: Buffer.byteLength(siteTexts.get(key)), httpEtag: '"' + key.split("/").pop() + '"',
  uploaded: new Date(0), httpMetadata: { contentType: "text/html" },
  body: withBody ? new Response(siteTexts.get(key)).body : undefined,
  text: async () => siteTexts.get(key),
});
const bucket = {
  get: async (key) => {
    await ioTurn();
    return siteTexts.has(key) ? siteObject(key, true) : null;
  },
  head: async (key) => {
    await ioTurn();
    return siteTexts.has(key) && !key.endsWith(".json") ? siteObject(key, false) : null;
  },
};
globalThis.fetch = async () => {
  await ioTurn();
  return new Response('{"ok":true}', { status: 200, headers: { "Content-Type": "application/json" } });
};
const env = {
  ROUTES: kv, DOMAINS: kv, STATIC: bucket,
  PLATFORM_DOMAIN: "kamui.test", FRESHNESS_BUDGET_SECONDS: "120", UPSTREAM_TIMEOUT_MS: "30000",
  LOG_SAMPLE_RATE: "1", SIGNING_SECRET: "bench-signing-secret-0123456789abcdef", CACHE_MARKER: "bench-marker-0123456789abcdef",
};
const ctx = { waitUntil() {} };
let logLines = 0;
console.log = () => { logLines++; };

// host is the warm app's, or with a prefix the next new app of that Worker's cold series.
const next = { e: 0, s: 0, p: 0, b: 0 };
async function once(worker, i, prefix) {
  const host = prefix ? prefix + next[prefix]++ : "shop";
  const request = new Request("https://" + host + ".kamui.test/api/items/" + (i % 100), { headers: { Accept: "*/*", "User-Agent": "bench" } });
  const response = await worker.fetch(request, env, ctx);
  await response.text();
  if (response.status !== 200) throw new Error("status " + response.status);
}

// staticOnce is a GET of the site's page: a content miss, the route and the manifest from
// memory (edge) or from the route cache and the isolate's manifest map (js-seed), and the
// object read from the bucket.
async function staticOnce(worker, i) {
  const request = new Request("https://docs.kamui.test/" + (i % 2 ? "a.html" : ""), { headers: { Accept: "*/*", "User-Agent": "bench" } });
  const response = await worker.fetch(request, env, ctx);
  if ((await response.text()) !== site.body || response.status !== 200) throw new Error("static status " + response.status);
}

// newSiteOnce is a GET of the index of the next site of that Worker's series (se… for the
// edge, ss… for js-seed) it has never seen.
const nextSite = { se: 0, ss: 0, sb: 0 };
async function newSiteOnce(worker, prefix) {
  const app = prefix + nextSite[prefix]++;
  const response = await worker.fetch(new Request("https://" + app + ".kamui.test/", { headers: { Accept: "*/*", "User-Agent": "bench" } }), env, ctx);
  if ((await response.text()) !== sites[app].body || response.status !== 200) throw new Error("new site status " + response.status);
}

// Alternating blocks, each Worker scored by its total time over all its blocks (garbage
// collection included): the same process, the same JIT state and the same machine moments
// for both.
async function block(worker, count, prefix) {
  const t0 = performance.now();
  for (let i = 0; i < count; i++) await once(worker, i, prefix);
  return performance.now() - t0;
}
// Warm-up: memo, route cache, and the engine's compilers. Each Worker's first requests are
// timed on their own: a new isolate runs its code unoptimised until the engine has compiled
// the hot functions again, which for the Go Wasm (thousands of functions, each tiered up on
// its own) takes far more requests than for the JS Workers.
// Each Worker's very first request (the Wasm instance's start, a new isolate's cold start,
// which bench-edge measures in workerd) is not part of it.
const warmup = 500;
const warmMS = [0, 0, 0];
for (const worker of [edge, seed, js, other]) if (worker) await once(worker, 0);
for (let i = 0; i < warmup; i++) {
  for (const [k, worker] of [edge, seed, js].entries()) {
    const t0 = performance.now();
    await once(worker, i);
    warmMS[k] += performance.now() - t0;
  }
  if (other) await once(other, i); // warmed alike, not timed
}
// otherMS: the other build's warm, static, cold and new-site totals (-compare).
const otherMS = [0, 0, 0, 0];
if (!stored.has("https://kamui-internal.kamui.test/route/v1/shop.kamui.test")) throw new Error("no route-cache entry: js-seed's warm path is not the one measured");
const blocks = 10, size = Math.ceil(n / blocks);
let edgeMS = 0, seedMS = 0, jsMS = 0;
for (let b = 0; b < blocks; b++) {
  edgeMS += await block(edge, size);
  if (other) otherMS[0] += await block(other, size);
  seedMS += await block(seed, size);
  jsMS += await block(js, size);
}
// Static: the same alternation over the site's GETs, for the two Workers that serve sites.
for (let i = 0; i < warmup; i++) {
  for (const worker of [edge, seed, other]) if (worker) await staticOnce(worker, i);
}
let staticEdgeMS = 0, staticSeedMS = 0;
for (let b = 0; b < blocks; b++) {
  for (const [k, worker] of [edge, seed, other].entries()) {
    if (!worker) continue;
    const t0 = performance.now();
    for (let i = 0; i < size; i++) await staticOnce(worker, i);
    const t = performance.now() - t0;
    if (k === 0) staticEdgeMS += t;
    else if (k === 1) staticSeedMS += t;
    else otherMS[1] += t;
  }
}
// Cold: the same alternation, each request to an app the Worker has never seen (its records
// are in cold.json, n per Worker): content and route-cache misses, a KV read, the puts.
const coldSize = Math.floor(n / blocks);
let coldEdgeMS = 0, coldSeedMS = 0, coldJSMS = 0;
for (let b = 0; b < blocks; b++) {
  coldEdgeMS += await block(edge, coldSize, "e");
  if (other) otherMS[2] += await block(other, coldSize, "b");
  coldSeedMS += await block(seed, coldSize, "s");
  coldJSMS += await block(js, coldSize, "p");
}
// New sites: the same alternation, n per Worker.
let newSiteEdgeMS = 0, newSiteSeedMS = 0;
for (let b = 0; b < blocks; b++) {
  for (const [k, worker] of [edge, seed, other].entries()) {
    if (!worker) continue;
    const t0 = performance.now();
    for (let i = 0; i < coldSize; i++) await newSiteOnce(worker, ["se", "ss", "sb"][k]);
    const t = performance.now() - t0;
    if (k === 0) newSiteEdgeMS += t;
    else if (k === 1) newSiteSeedMS += t;
    else otherMS[3] += t;
  }
}
const us = (t) => ((t / (blocks * size)) * 1000).toFixed(1);
const coldUS = (t) => ((t / (blocks * coldSize)) * 1000).toFixed(1);
if (logLines === 0) throw new Error("the Workers logged nothing: they did not run");
const warmUS = (t) => ((t / warmup) * 1000).toFixed(1);
process.stdout.write(`${us(edgeMS)} ${us(seedMS)} ${us(jsMS)} ${coldUS(coldEdgeMS)} ${coldUS(coldSeedMS)} ${coldUS(coldJSMS)} ${warmUS(warmMS[0])} ${warmUS(warmMS[1])} ${warmUS(warmMS[2])} ${us(staticEdgeMS)} ${us(staticSeedMS)} ${coldUS(newSiteEdgeMS)} ${coldUS(newSiteSeedMS)}\n`);
if (other) process.stdout.write(`${us(otherMS[0])} ${coldUS(otherMS[2])} ${us(otherMS[1])} ${coldUS(otherMS[3])}\n`);
