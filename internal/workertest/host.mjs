// host.mjs runs one Worker in the real workerd through Miniflare, for tests, benchmarks and
// (later) the local edge. It is generic: modules + bindings + an origin map.
//
//   node host.mjs <config.json>
//
// config.json:
//   modulesRoot  directory holding the modules
//   modules      [{type: "ESModule"|"CompiledWasm"|..., path: "<relative to modulesRoot>"}], main first
//   bindings     {NAME: "plain text"}  (vars and secrets alike)
//   kv           {NAMESPACE: {key: "value"}}   seeded before the first request
//   kvBytes      {NAMESPACE: {key: "base64"}}  binary values, seeded as bytes (the name filter)
//   r2           {BUCKET: {key: {text: "...", contentType: "..."}}}
//   cache        {"https://url": {status, headers: {..}, text}}: Cache API entries to seed
//   origins      {"origin.hostname": "http://127.0.0.1:port"}: every upstream fetch of the
//                Worker goes to an "origin router" Worker that rewrites the URL by hostname
//                (the local edge's tunnel emulation does the same)
//   countKV      true: wrap the KV bindings to count get() calls from inside the runtime, and
//                count caches.default match/put and R2 get/head calls too;
//                GET http://kv-stats.host.invalid/ answers {"reads": n, "cacheMatches": n,
//                "cachePuts": n, "r2Reads": n, "cacheTtls": {NS: ["36", ...]}}, and
//                PUT http://kv-stats.host.invalid/kv/<NS>/<key> writes the body as key's
//                value (a change of the data while the Worker runs)
//   failKV       ["key", ...]: with countKV, get() of these keys rejects (KV failure injection)
//   failCache    ["substring", ...]: with countKV, caches.default.match/put of URLs containing
//                one of these reject (Cache API failure injection)
//   slowR2       ["substring", ...]: with countKV, R2 get() of keys containing one of these
//                answers 300 ms late
//   ioDelayMs    n: with countKV, every KV get(), R2 get()/head() and caches.default.match()
//                waits n ms before it is made, as a network round trip would (calls made side
//                by side wait side by side): a model of I/O that is not on this machine
//   compatibilityDate
//   profile      "<file>": record a CPU profile of the Worker's isolate (V8's sampling profiler,
//                through workerd's inspector) from "ready" until the host closes, and write it
//                to <file> (.cpuprofile JSON, readable by Chrome's DevTools) before exiting
//
// Prints "ready <url>" once serving, then "log: <message>" for every console line of the
// Worker. Exits when stdin closes, so a test that dies takes its workerd with it.
import { readFileSync } from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const cfg = JSON.parse(readFileSync(process.argv[2], "utf8"));
// Resolve miniflare from the repo root (two levels up), never from a global install.
const require = createRequire(path.resolve(import.meta.dirname, "../../package.json"));
const { Miniflare, Response } = await import(require.resolve("miniflare"));

const modules = cfg.modules.map((m) => ({ type: m.type, path: path.resolve(cfg.modulesRoot, m.path) }));
const kvNames = Object.keys(cfg.kv || {});

if (cfg.countKV) {
  const main = cfg.modules[0].path;
  const wrapper = `
import worker from "./${main}";
let reads = 0, cacheMatches = 0, cachePuts = 0, r2Reads = 0;
const cacheTtls = {};
const wrapped = new Map();
const FAIL_KV = new Set(${JSON.stringify(cfg.failKV || [])});
const FAIL_CACHE = ${JSON.stringify(cfg.failCache || [])};
const SLOW_R2 = ${JSON.stringify(cfg.slowR2 || [])};
const IO_DELAY_MS = ${JSON.stringify(cfg.ioDelayMs || 0)};
// after makes call once ms have passed; later is the modelled round trip of every call.
const after = (ms, call) => new Promise((resolve) => setTimeout(resolve, ms)).then(call);
const later = IO_DELAY_MS > 0 ? (call) => after(IO_DELAY_MS, call) : (call) => call();
function wrap(ns, name) {
  return new Proxy(ns, { get(t, p) {
    if (p === "get") return (...a) => {
      reads++;
      const ttl = a[1] && typeof a[1] === "object" ? a[1].cacheTtl : undefined;
      (cacheTtls[name] ||= {})[String(ttl)] = true;
      if (FAIL_KV.has(a[0])) return Promise.reject(new Error("injected KV failure"));
      return later(() => t.get(...a));
    };
    const v = t[p];
    return typeof v === "function" ? v.bind(t) : v;
  } });
}
function wrapR2(bucket) {
  return new Proxy(bucket, { get(t, p) {
    const v = t[p];
    if (p === "get" || p === "head") return (...a) => {
      r2Reads++;
      if (p === "get" && SLOW_R2.some((k) => String(a[0]).includes(k))) {
        return after(300, () => v.apply(t, a));
      }
      return later(() => v.apply(t, a));
    };
    return typeof v === "function" ? v.bind(t) : v;
  } });
}
const KV = ${JSON.stringify(kvNames)};
const R2 = ${JSON.stringify(Object.keys(cfg.r2 || {}))};
let env2;
// An unhandled rejection is a bug of the Worker's (a promise it made and dropped), which
// workerd reports nowhere a test reads: it is logged as a line of its own here.
globalThis.addEventListener("unhandledrejection", (e) => {
  const reason = e.reason && e.reason.message ? e.reason.message : String(e.reason);
  console.log(JSON.stringify({ msg: "host.unhandled_rejection", reason }));
});
export default {
  async fetch(request, env, ctx) {
    const u = new URL(request.url);
    if (u.hostname === "kv-stats.host.invalid" && request.method === "PUT") {
      const [, kv, ns, ...key] = u.pathname.split("/");
      if (kv !== "kv" || !KV.includes(ns) || key.length === 0) return new Response("want /kv/<NS>/<key>", { status: 404 });
      await env[ns].put(decodeURIComponent(key.join("/")), await request.text());
      return new Response(null, { status: 204 });
    }
    if (u.hostname === "kv-stats.host.invalid") return Response.json({ reads, cacheMatches, cachePuts, r2Reads, cacheTtls: Object.fromEntries(Object.entries(cacheTtls).map(([k, v]) => [k, Object.keys(v)])) });
    if (!env2) {
      const c = caches.default;
      const fails = (u) => FAIL_CACHE.some((f) => String(u && u.url ? u.url : u).includes(f));
      for (const m of ["match", "put"]) {
        const orig = c[m].bind(c);
        c[m] = (u, ...rest) => {
          if (m === "match") cacheMatches++;
          else cachePuts++;
          if (fails(u)) return Promise.reject(new Error("injected cache failure"));
          return m === "match" ? later(() => orig(u, ...rest)) : orig(u, ...rest);
        };
      }
      for (const n of KV) wrapped.set(n, wrap(env[n], n));
      for (const n of R2) wrapped.set(n, wrapR2(env[n]));
      env2 = new Proxy(env, { get(t, p) { return wrapped.has(p) ? wrapped.get(p) : t[p]; } });
    }
    return worker.fetch(request, env2, ctx);
  },
};`;
  modules.unshift({ type: "ESModule", path: path.resolve(cfg.modulesRoot, "__host_entry.mjs"), contents: wrapper });
}

const routerScript = `
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const target = env.ORIGINS[url.hostname];
    if (!target) throw new Error("origin router: no origin for this hostname");
    const t = new URL(target);
    url.protocol = t.protocol;
    url.host = t.host;
    // workerd sets Host from the URL, so the loopback origin sees 127.0.0.1:<port>; the
    // public host travels in X-Forwarded-Host (signed), which is what the router reads.
    return fetch(new Request(url, request));
  },
};`;

const compatibilityDate = cfg.compatibilityDate || "2025-12-01";
const mf = new Miniflare({
  host: "127.0.0.1",
  ...(cfg.profile ? { inspectorPort: await freePort() } : {}),
  // Without this Miniflare downloads a request.cf object from the internet at every start.
  cf: false,
  port: cfg.port || 0,
  handleStructuredLogs: ({ message }) => {
    for (const line of String(message).split("\n")) if (line) process.stdout.write("log: " + line + "\n");
  },
  workers: [
    {
      name: "edge",
      modulesRoot: cfg.modulesRoot,
      modules,
      compatibilityDate,
      compatibilityFlags: cfg.compatibilityFlags || [],
      bindings: cfg.bindings || {},
      kvNamespaces: kvNames,
      r2Buckets: Object.keys(cfg.r2 || {}),
      outboundService: "origin-router",
    },
    {
      name: "origin-router",
      modules: true,
      script: routerScript,
      compatibilityDate,
      bindings: { ORIGINS: cfg.origins || {} },
      outboundService: { network: { allow: ["local", "private"] } },
    },
  ],
});

const url = await mf.ready;
for (const [ns, entries] of Object.entries(cfg.kv || {})) {
  const kv = await mf.getKVNamespace(ns, "edge");
  for (const [k, v] of Object.entries(entries)) await kv.put(k, v);
}
for (const [ns, entries] of Object.entries(cfg.kvBytes || {})) {
  const kv = await mf.getKVNamespace(ns, "edge");
  for (const [k, v] of Object.entries(entries)) await kv.put(k, Uint8Array.from(Buffer.from(v, "base64")));
}
for (const [b, objects] of Object.entries(cfg.r2 || {})) {
  const bucket = await mf.getR2Bucket(b, "edge");
  for (const [k, o] of Object.entries(objects)) {
    await bucket.put(k, o.text, { httpMetadata: o.contentType ? { contentType: o.contentType } : undefined });
  }
}
if (cfg.cache) {
  const caches = await mf.getCaches();
  for (const [u, e] of Object.entries(cfg.cache)) {
    await caches.default.put(u, new Response(e.text, { status: e.status || 200, headers: e.headers || {} }));
  }
}
const profiler = cfg.profile ? await startProfiler(mf) : null;
process.stdout.write("ready " + url.href + "\n");

let closing = false;
async function close() {
  if (closing) return;
  closing = true;
  if (profiler) await profiler.stop().catch((err) => process.stderr.write("profile: " + err.message + "\n"));
  await mf.dispose().catch(() => {});
  process.exit(0);
}
process.stdin.on("end", close);
process.stdin.on("close", close);
process.stdin.resume();
process.on("SIGTERM", close);
process.on("SIGINT", close);

async function freePort() {
  const net = await import("node:net");
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

// startProfiler attaches to the edge Worker's isolate through workerd's inspector (with the
// WebSocket client Miniflare itself depends on) and starts V8's sampling profiler; stop
// writes the profile to cfg.profile.
async function startProfiler(mf) {
  const { WebSocket } = createRequire(require.resolve("miniflare"))("ws");
  const inspector = await mf.getInspectorURL();
  const ws = new WebSocket(new URL("/core:user:edge", inspector).href);
  await new Promise((resolve, reject) => { ws.once("open", resolve); ws.once("error", reject); });
  let id = 0;
  const waiting = new Map();
  ws.on("message", (data) => {
    const m = JSON.parse(data);
    if (m.id && waiting.has(m.id)) {
      waiting.get(m.id)(m);
      waiting.delete(m.id);
    }
  });
  const call = (method, params = {}) => new Promise((resolve, reject) => {
    const n = ++id;
    waiting.set(n, (m) => (m.error ? reject(new Error(method + ": " + m.error.message)) : resolve(m.result)));
    ws.send(JSON.stringify({ id: n, method, params }));
  });
  await call("Profiler.enable");
  await call("Profiler.setSamplingInterval", { interval: 100 });
  await call("Profiler.start");
  return {
    async stop() {
      const { profile } = await call("Profiler.stop");
      const { writeFileSync } = await import("node:fs");
      writeFileSync(cfg.profile, JSON.stringify(profile));
      ws.close();
    },
  };
}
