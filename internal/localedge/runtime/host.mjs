// host.mjs runs the local edge's Workers in the real workerd through Miniflare. The Go
// runtime package writes this file into the state dir and drives it over stdin/stdout; it
// holds no state of its own that the Go side cannot rebuild.
//
//   node host.mjs <miniflare-package.json>
//
// stdin: one JSON command per line, handled strictly in order (a KV write queued after a
// configure sees the new bindings):
//   {"id": n, "op": "configure", "workers": [...], "namespaces": ["<kv id>", ...],
//    "buckets": ["<r2 bucket>", ...], "originURL": "http://127.0.0.1:<port>", "kvPersist": dir,
//    "r2Persist": dir}
//       the first one creates Miniflare, later ones call setOptions (workerd restarts with
//       the new scripts; persisted KV and R2 survive)
//   {"id": n, "op": "kvPut", "ns": id, "key": k, "value": base64, "metadata": any, "expiration": s}
//   {"id": n, "op": "kvDelete", "ns": id, "key": k}
//   {"id": n, "op": "r2Put", "bucket": name, "key": k, "value": base64, "contentType": t, "customMetadata": {…}|null}
//   {"id": n, "op": "r2Delete", "bucket": name, "key": k}
//   {"id": n, "op": "purge", "urls": [...]}     drops Cache API entries (one cache per instance)
// stdout: "ok <id> <json>" or "err <id> <message>" per command, "log: <level> <line>" per
// console line of a Worker (and workerd's own errors, such as a script it refuses). The host exits when stdin closes, so a Go process that dies takes its workerd
// with it.
import { createRequire } from "node:module";
import readline from "node:readline";

const require = createRequire(process.argv[2]);
const { Miniflare, Log, LogLevel } = await import(require.resolve("miniflare"));

// INTERNAL is the fallback worker (a request without a route override gets a fixed 404) and
// binds every KV namespace and R2 bucket, so the Go side can write one no script binds yet.
const INTERNAL = "__localedge";
// ORIGIN receives every outbound fetch of the user Workers and hands it to the Go tunnel
// emulation, keeping the hostname the Worker asked for in a header.
const ORIGIN = "__localedge_origin";
const ORIGIN_HOST_HEADER = "X-Localedge-Origin-Host";
// The scheme the Worker fetched (the zone cache keys by the whole URL).
const ORIGIN_SCHEME_HEADER = "X-Localedge-Origin-Scheme";

const internalScript = `
export default {
  async fetch() {
    return new Response("Not found: no Worker route matches this host on the local edge.\\n", {
      status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  },
};`;

const originScript = `
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const target = new URL(env.ORIGIN_URL);
    const headers = new Headers(request.headers);
    headers.set("${ORIGIN_HOST_HEADER}", url.host);
    headers.set("${ORIGIN_SCHEME_HEADER}", url.protocol.replace(":", ""));
    url.protocol = target.protocol;
    url.host = target.host;
    return fetch(new Request(url, new Request(request, { headers })));
  },
};`;

const compat = "2025-12-01";
const bindingName = (ns) => "NS_" + ns;
const bucketBinding = (bucket) => "R2_" + bucket;

function decode(b64) {
  return new Uint8Array(Buffer.from(b64 || "", "base64"));
}

function options(cmd) {
  const userWorkers = cmd.workers.map((w) => {
    const o = {
      name: w.name,
      compatibilityDate: w.compatibilityDate || compat,
      compatibilityFlags: w.compatibilityFlags || [],
      bindings: w.bindings || {},
      kvNamespaces: w.kvNamespaces || {},
      r2Buckets: w.r2Buckets || {},
      outboundService: ORIGIN,
    };
    if (w.modules) {
      o.modulesRoot = "/" + w.name;
      o.modules = w.modules.map((m) => ({
        type: m.type,
        path: "/" + w.name + "/" + m.path,
        contents: m.type === "Text" ? Buffer.from(m.contents, "base64").toString("utf8") : decode(m.contents),
      }));
    } else {
      o.script = Buffer.from(w.script, "base64").toString("utf8");
    }
    return o;
  });
  return {
    host: "127.0.0.1",
    port: 0,
    // A fixed request.cf: the default would fetch one from the internet at every start.
    cf: false,
    kvPersist: cmd.kvPersist,
    r2Persist: cmd.r2Persist,
    // Warnings and errors (a script workerd refuses, with the reason) reach the Go log.
    log: new Log(LogLevel.WARN),
    handleStructuredLogs: ({ level, message }) => {
      for (const line of String(message).split("\n")) if (line) process.stdout.write("log: " + (level || "info") + " " + line + "\n");
    },
    workers: [
      {
        name: INTERNAL,
        modules: true,
        script: internalScript,
        compatibilityDate: compat,
        kvNamespaces: Object.fromEntries(cmd.namespaces.map((ns) => [bindingName(ns), ns])),
        r2Buckets: Object.fromEntries((cmd.buckets || []).map((b) => [bucketBinding(b), b])),
      },
      ...userWorkers,
      {
        name: ORIGIN,
        modules: true,
        script: originScript,
        compatibilityDate: compat,
        bindings: { ORIGIN_URL: cmd.originURL },
        outboundService: { network: { allow: ["local", "private"] } },
      },
    ],
  };
}

let mf;

async function handle(cmd) {
  switch (cmd.op) {
    case "configure": {
      const opts = options(cmd);
      if (!mf) {
        // An instance whose first start failed never becomes ready again: drop it, so the
        // next configure (without the refused script) starts afresh.
        const created = new Miniflare(opts);
        try {
          await created.ready;
        } catch (err) {
          await created.dispose().catch(() => {});
          throw err;
        }
        mf = created;
      } else {
        await mf.setOptions(opts);
      }
      const url = await mf.ready;
      return { url: url.href };
    }
    case "kvPut": {
      const kv = await mf.getKVNamespace(bindingName(cmd.ns), INTERNAL);
      const opts = {};
      if (cmd.metadata !== undefined && cmd.metadata !== null) opts.metadata = cmd.metadata;
      if (cmd.expiration) opts.expiration = cmd.expiration;
      await kv.put(cmd.key, decode(cmd.value), opts);
      return {};
    }
    case "kvDelete": {
      const kv = await mf.getKVNamespace(bindingName(cmd.ns), INTERNAL);
      await kv.delete(cmd.key);
      return {};
    }
    case "r2Put": {
      const bucket = await mf.getR2Bucket(bucketBinding(cmd.bucket), INTERNAL);
      await bucket.put(cmd.key, decode(cmd.value), {
        httpMetadata: { contentType: cmd.contentType },
        customMetadata: cmd.customMetadata ?? {},
      });
      return {};
    }
    case "r2Delete": {
      const bucket = await mf.getR2Bucket(bucketBinding(cmd.bucket), INTERNAL);
      await bucket.delete(cmd.key);
      return {};
    }
    case "purge": {
      const caches = await mf.getCaches();
      let deleted = 0;
      for (const u of cmd.urls) if (await caches.default.delete(u)) deleted++;
      return { deleted };
    }
    default:
      throw new Error("unknown op " + cmd.op);
  }
}

let queue = Promise.resolve();
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on("line", (line) => {
  if (!line.trim()) return;
  queue = queue.then(async () => {
    let cmd;
    try {
      cmd = JSON.parse(line);
      const result = await handle(cmd);
      process.stdout.write("ok " + cmd.id + " " + JSON.stringify(result) + "\n");
    } catch (err) {
      const msg = String(err && err.stack ? err.stack : err).replace(/\s+/g, " ");
      process.stdout.write("err " + (cmd ? cmd.id : 0) + " " + msg + "\n");
    }
  });
});

let closing = false;
async function close() {
  if (closing) return;
  closing = true;
  await queue.catch(() => {});
  if (mf) await mf.dispose().catch(() => {});
  process.exit(0);
}
rl.on("close", close);
process.on("SIGTERM", close);
process.on("SIGINT", close);
