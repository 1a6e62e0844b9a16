// Shared delivery of the bench's simple JS Workers (baseline, pass-through): R2 for static
// records (through the manifest for a content-addressed site), a plain fetch to the record's
// origin for dynamic ones. Each logs one line per request with the counters bench-edge reads
// from every Worker's log (kv_reads, r2_reads, manifest_reads, io_rounds: the sequential
// waits before the response starts), and answers with X-Request-Id, as the edge does.

// newLine starts the log line of one request of the Worker called name.
export function newLine(name) {
  return { msg: name + ".request", request_id: crypto.randomUUID(), kv_reads: 0, r2_reads: 0, manifest_reads: 0, io_rounds: 0 };
}

// kvGet is one counted KV read, as JSON.
export function kvGet(ns, key, line) {
  line.kv_reads++;
  line.io_rounds++;
  return ns.get(key, { type: "json" });
}

// done logs line and returns response, carrying the request id.
export function done(line, response) {
  line.status = response.status;
  console.log(JSON.stringify(line));
  return response;
}

export function fixed(status, line) {
  return done(line, new Response("fixed " + status + "\n", { status, headers: { "Cache-Control": "no-store", "X-Request-Id": line.request_id } }));
}

// platformApp returns the app a platform host names, "" for the apex-less cases we do not
// bench, or undefined for a custom host.
export function platformApp(host, platform) {
  if (host === platform) return "apex";
  if (!host.endsWith("." + platform)) return undefined;
  const label = host.slice(0, -platform.length - 1);
  return label.includes(".") ? "" : label;
}

// manifests holds content-addressed sites' manifests for the isolate's life (manifest key →
// files), as the edge Worker does (without its bounds), so the comparison is like for like.
const manifests = new Map();

async function siteFile(env, st, key, line) {
  let files = manifests.get(st.manifest);
  if (!files) {
    line.manifest_reads++;
    line.io_rounds++;
    const o = await env.STATIC.get(st.manifest);
    if (!o) return undefined;
    files = (await o.json()).files;
    manifests.set(st.manifest, files);
  }
  return Object.hasOwn(files, key) ? files[key] : undefined;
}

export async function deliver(request, url, rec, env, line) {
  const id = line.request_id;
  if (rec.kind === "static") {
    let key = url.pathname.slice(1);
    if (key === "" || key.endsWith("/")) key += rec.static.index;
    if (rec.static.manifest) {
      const f = await siteFile(env, rec.static, key, line);
      if (!f) return fixed(404, line);
      const headers = { "Content-Type": f.type, ETag: '"' + f.object + '"', "X-Request-Id": id };
      if (request.method === "HEAD") return done(line, new Response(null, { status: 200, headers }));
      line.r2_reads++;
      line.io_rounds++;
      const obj = await env.STATIC.get(rec.static.prefix + "objects/" + f.object);
      if (!obj) return fixed(502, line);
      return done(line, new Response(obj.body, { status: 200, headers }));
    }
    line.r2_reads++;
    line.io_rounds++;
    const obj = request.method === "HEAD" ? await env.STATIC.head(rec.static.prefix + key) : await env.STATIC.get(rec.static.prefix + key);
    if (!obj) return fixed(404, line);
    const headers = new Headers({ "X-Request-Id": id });
    if (obj.httpMetadata && obj.httpMetadata.contentType) headers.set("Content-Type", obj.httpMetadata.contentType);
    return done(line, new Response(request.method === "HEAD" ? null : obj.body, { status: 200, headers }));
  }
  const init = { method: request.method, headers: request.headers, redirect: "manual" };
  if (request.method !== "GET" && request.method !== "HEAD") init.body = request.body;
  line.io_rounds++;
  const r = await fetch("https://" + rec.dynamic.origin + url.pathname + url.search, init);
  const headers = new Headers(r.headers);
  headers.set("X-Request-Id", id);
  return done(line, new Response(r.body, { status: r.status, headers }));
}
