// The driver of bench-edge-cpu: it imports the edge Worker and the JS pass-through in this
// Node process and replays one warm request shape through each, with in-memory bindings
// and an upstream fetch that answers at once, so the time measured is the Workers' own CPU
// (Go core, shim, Request/Response objects), without any runtime I/O or scheduling noise.
// Usage: node driver.mjs <dir> <requests>; <dir> holds worker.mjs (its edge.wasm import
// rewritten to a file read), wasm_exec.js, edge.wasm, passthrough.mjs, deliver.mjs and
// record.json (a valid ROUTES record for app "shop").
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [dir, n] = [process.argv[2], Number(process.argv[3] || 5000)];
const record = readFileSync(join(dir, "record.json"), "utf8").trim();
const edge = (await import(pathToFileURL(join(dir, "worker.mjs")))).default;
const js = (await import(pathToFileURL(join(dir, "passthrough.mjs")))).default;

// Bindings: a one-record KV, an empty R2 bucket, an always-missing cache.
const kv = { get: async (key, opts) => (key === "shop" ? (opts && opts.type === "json" ? JSON.parse(record) : record) : null) };
globalThis.caches = { default: { match: async () => undefined, put: async () => {} } };
globalThis.fetch = async () => new Response('{"ok":true}', { status: 200, headers: { "Content-Type": "application/json" } });
const env = {
  ROUTES: kv, DOMAINS: kv, STATIC: { get: async () => null, head: async () => null },
  PLATFORM_DOMAIN: "kamui.test", FRESHNESS_BUDGET_SECONDS: "120", UPSTREAM_TIMEOUT_MS: "30000",
  LOG_SAMPLE_RATE: "1", SIGNING_SECRET: "bench-signing-secret-0123456789abcdef", CACHE_MARKER: "bench-marker-0123456789abcdef",
};
const ctx = { waitUntil() {} };
let logLines = 0;
console.log = () => { logLines++; };

async function once(worker, i) {
  const request = new Request("https://shop.kamui.test/api/items/" + (i % 100), { headers: { Accept: "*/*", "User-Agent": "bench" } });
  const response = await worker.fetch(request, env, ctx);
  await response.text();
  if (response.status !== 200) throw new Error("status " + response.status);
}

// Alternating blocks, each Worker scored by its total time over all its blocks (garbage
// collection included): the same process, the same JIT state and the same machine moments
// for both.
async function block(worker, count) {
  const t0 = performance.now();
  for (let i = 0; i < count; i++) await once(worker, i);
  return performance.now() - t0;
}
for (let i = 0; i < 500; i++) { await once(edge, i); await once(js, i); } // warm: memo, JIT
const blocks = 10, size = Math.ceil(n / blocks);
let edgeMS = 0, jsMS = 0;
for (let b = 0; b < blocks; b++) {
  edgeMS += await block(edge, size);
  jsMS += await block(js, size);
}
const [edgeUS, jsUS] = [(edgeMS / (blocks * size)) * 1000, (jsMS / (blocks * size)) * 1000];
if (logLines === 0) throw new Error("the edge Worker logged nothing: it did not run");
process.stdout.write(`${edgeUS.toFixed(1)} ${jsUS.toFixed(1)}\n`);
