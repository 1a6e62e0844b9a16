// The driver of bench-edge-cpu: it imports the edge Worker, js-seed and the JS pass-through
// in this Node process and replays one warm request shape through each, with in-memory
// bindings (a KV of one record, a Cache API that keeps what is put) and an upstream fetch
// that answers at once, so the time measured is the Workers' own CPU (Go core, shim,
// Request/Response objects, WebCrypto), without any runtime I/O or scheduling noise. Warm
// means each Worker's own warm path: the edge's in-isolate memo, js-seed's content-cache
// miss and route-cache hit, the pass-through's one KV read.
// Then the same again cold: every request to an app the Worker has never seen.
// Usage: node driver.mjs <dir> <requests>; <dir> holds worker.mjs (its edge.wasm import
// rewritten to a file read), wasm_exec.js, edge.wasm, js-seed.mjs, passthrough.mjs,
// deliver.mjs, record.json (a valid ROUTES record for app "shop") and cold.json (app → record
// for the cold requests: e0… for the edge, s0… for js-seed, p0… for the pass-through).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [dir, n] = [process.argv[2], Number(process.argv[3] || 5000)];
const record = readFileSync(join(dir, "record.json"), "utf8").trim();
const edge = (await import(pathToFileURL(join(dir, "worker.mjs")))).default;
const js = (await import(pathToFileURL(join(dir, "passthrough.mjs")))).default;
const seed = (await import(pathToFileURL(join(dir, "js-seed.mjs")))).default;

// Bindings: a one-record KV, an empty R2 bucket, a cache that keeps entries by URL.
const cold = JSON.parse(readFileSync(join(dir, "cold.json"), "utf8"));
const value = (key) => (key === "shop" ? record : cold[key]);
const kv = { get: async (key, opts) => {
  const v = value(key);
  if (v === undefined || (opts && opts.type === "arrayBuffer")) return null; // no name filter
  return opts && opts.type === "json" ? JSON.parse(v) : v;
} };
const stored = new Map();
const cacheKey = (k) => String(k && k.url ? k.url : k);
globalThis.caches = { default: {
  match: async (k) => {
    const e = stored.get(cacheKey(k));
    return e ? new Response(e.body, { status: e.status, headers: e.headers }) : undefined;
  },
  put: async (k, response) => {
    stored.set(cacheKey(k), { status: response.status, headers: [...response.headers], body: await response.text() });
  },
} };
globalThis.fetch = async () => new Response('{"ok":true}', { status: 200, headers: { "Content-Type": "application/json" } });
const env = {
  ROUTES: kv, DOMAINS: kv, STATIC: { get: async () => null, head: async () => null },
  PLATFORM_DOMAIN: "kamui.test", FRESHNESS_BUDGET_SECONDS: "120", UPSTREAM_TIMEOUT_MS: "30000",
  LOG_SAMPLE_RATE: "1", SIGNING_SECRET: "bench-signing-secret-0123456789abcdef", CACHE_MARKER: "bench-marker-0123456789abcdef",
};
const ctx = { waitUntil() {} };
let logLines = 0;
console.log = () => { logLines++; };

// host is the warm app's, or with a prefix the next new app of that Worker's cold series.
const next = { e: 0, s: 0, p: 0 };
async function once(worker, i, prefix) {
  const host = prefix ? prefix + next[prefix]++ : "shop";
  const request = new Request("https://" + host + ".kamui.test/api/items/" + (i % 100), { headers: { Accept: "*/*", "User-Agent": "bench" } });
  const response = await worker.fetch(request, env, ctx);
  await response.text();
  if (response.status !== 200) throw new Error("status " + response.status);
}

// Alternating blocks, each Worker scored by its total time over all its blocks (garbage
// collection included): the same process, the same JIT state and the same machine moments
// for both.
async function block(worker, count, prefix) {
  const t0 = performance.now();
  for (let i = 0; i < count; i++) await once(worker, i, prefix);
  return performance.now() - t0;
}
// warm: memo, route cache, JIT
for (let i = 0; i < 500; i++) { await once(edge, i); await once(seed, i); await once(js, i); }
if (!stored.has("https://kamui-internal.kamui.test/route/v1/shop.kamui.test")) throw new Error("no route-cache entry: js-seed's warm path is not the one measured");
const blocks = 10, size = Math.ceil(n / blocks);
let edgeMS = 0, seedMS = 0, jsMS = 0;
for (let b = 0; b < blocks; b++) {
  edgeMS += await block(edge, size);
  seedMS += await block(seed, size);
  jsMS += await block(js, size);
}
// Cold: the same alternation, each request to an app the Worker has never seen (its records
// are in cold.json, n per Worker): content and route-cache misses, a KV read, the puts.
const coldSize = Math.floor(n / blocks);
let coldEdgeMS = 0, coldSeedMS = 0, coldJSMS = 0;
for (let b = 0; b < blocks; b++) {
  coldEdgeMS += await block(edge, coldSize, "e");
  coldSeedMS += await block(seed, coldSize, "s");
  coldJSMS += await block(js, coldSize, "p");
}
const us = (t) => ((t / (blocks * size)) * 1000).toFixed(1);
const coldUS = (t) => ((t / (blocks * coldSize)) * 1000).toFixed(1);
if (logLines === 0) throw new Error("the Workers logged nothing: they did not run");
process.stdout.write(`${us(edgeMS)} ${us(seedMS)} ${us(jsMS)} ${coldUS(coldEdgeMS)} ${coldUS(coldSeedMS)} ${coldUS(coldJSMS)}\n`);
