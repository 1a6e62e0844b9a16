// js-seed: the seed design of the edge Worker (docs/ARCHITECTURE.md, "The path of one
// request"), written plainly in JavaScript, as the yardstick bench-edge measures the Go edge Worker against. It does the job the edge
// does, with the same data contracts (internal/route), the same fixed answers and header rules,
// and nothing the edge adds on top of the design: no in-isolate route memo, no known-dynamic
// skip of the content lookup, no filter of unknown hosts, no single flight.
//
// I/O order, per request (the contract of the comparison; every step waits for the one before
// unless it says otherwise):
//   0. No I/O: config (once per isolate), request id, host normalisation; a bad host is a
//      fixed 400, a reserved or deeper label under the platform domain a fixed 404.
//   1. GET/HEAD: the content-cache lookup of the public URL and the route-cache lookup of the
//      host start together; the content answer is awaited first, and a hit carrying this
//      deployment's marker answers (the route lookup's result is then unused). Other methods
//      make only the route-cache lookup.
//   2. The route-cache entry (awaited): a valid one answers the route with no KV read; a
//      negative one is the fixed 404.
//   3. On a miss: a platform host reads ROUTES; a custom host reads DOMAINS, then ROUTES.
//      Each value is strictly validated (schema version, fields, delivery data, rev hash)
//      before use; an active record, or a confirmed absence, is put into the route cache in
//      the background (ctx.waitUntil, started once the response is on its way: putLater),
//      nothing else is.
//   4. Static: the site's manifest from R2 (held per isolate for the freshness budget,
//      bounded, as the edge and the bench's other JS Workers hold it: a manifest never
//      changes once written), then the object from R2 for a body; a complete 200 GET is put
//      into the content cache in the background. Dynamic: the upstream fetch (signed context,
//      AbortController timeout, cache: "no-store").
// A request's log line counts these: kv_reads, r2_reads, manifest_reads, cache_lookups,
// cache_puts, and io_rounds (the sequential waits before the response starts: step 1 is one
// round, step 2 none more when its lookup started in step 1, then each KV read, each R2 read
// and the upstream fetch).
//
// Left out, as bench traffic never uses them: the propagation probe (a probe is answered as
// the ordinary request it otherwise is) and Range requests (answered with the whole body).
// A route-cache entry's record is re-validated in shape on every hit, its rev hash only when
// read from KV: an entry is written by this Worker alone, under its private marker.

const encoder = new TextEncoder();

const FIXED = {
  badHost: [400, "Bad request: the Host is not a valid DNS name."],
  unknownHost: [404, "Not found: no application is served at this address."],
  staticNotFound: [404, "Not found."],
  method: [405, "Method not allowed: static content answers GET and HEAD."],
  badConfig: [500, "Internal error: the edge is misconfigured."],
  badRecord: [502, "Bad gateway: the route for this address is invalid."],
  unreachable: [502, "Bad gateway: the application could not be reached."],
  staticError: [502, "Bad gateway: the static origin failed."],
  notActive: [503, "Service unavailable: this application is not active."],
  kvError: [503, "Service unavailable: routing data could not be read. Retry shortly."],
  timeout: [504, "Gateway timeout: the application did not answer in time."],
};

const RESERVED = new Set(["apex", "www", "api", "internal", "kamui-internal"]);
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authenticate",
  "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade"]);
const MARKER_HEADER = "Kamui-Cache-Marker";
const ROUTE_ENTRY_HEADER = "Kamui-Route-Entry";
const ROUTE_ENTRY_VERSION = 2;
const CLIENT_STATIC_CACHE_CONTROL = "public, max-age=0, must-revalidate";
const MAX_MANIFEST_BYTES = 8 << 20;
const MAX_MANIFESTS = 256;

// ---- host normalisation (route.NormalizeHost, route.PlatformApp) ----

function isDNSLabel(s) {
  return /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(s);
}

function isPort(s) {
  if (!/^[0-9]{1,5}$/.test(s)) return false;
  const n = Number(s);
  return n >= 1 && n <= 65535;
}

// normalizeHost returns the normalised host of an authority (host[:port]), or null.
export function normalizeHost(raw) {
  let h = raw;
  if (h.startsWith("[")) return null;
  const colon = h.lastIndexOf(":");
  if (colon >= 0) {
    if (!isPort(h.slice(colon + 1))) return null;
    h = h.slice(0, colon);
  }
  if (h.endsWith(".")) h = h.slice(0, -1);
  if (h === "" || h.length > 253) return null;
  h = h.replace(/[A-Z]+/g, (s) => s.toLowerCase()); // ASCII only: anything else is refused below
  const labels = h.split(".");
  for (const l of labels) if (!isDNSLabel(l)) return null;
  if (/^[0-9]+$/.test(labels[labels.length - 1])) return null;
  return h;
}

// platformApp: [app, isPlatform] as route.PlatformApp.
function platformApp(host, platform) {
  if (host === platform) return ["apex", true];
  if (!host.endsWith("." + platform)) return ["", false];
  const label = host.slice(0, -platform.length - 1);
  if (!isDNSLabel(label) || RESERVED.has(label)) return ["", true];
  return [label, true];
}

// ---- config (edge.ParseConfig, route.DeriveTTLs), once per isolate ----

let config; // {ok, ...} once read

function parseRate(s) {
  const m = /^(0|1)?(?:\.([0-9]*))?$/.exec(s);
  if (!m || (m[1] === undefined && m[2] === undefined)) return null;
  if (m[1] === "1") return /^0*$/.test(m[2] || "") ? 1_000_000 : null;
  return Number(((m[2] || "") + "000000").slice(0, 6));
}

function readConfig(env) {
  const s = (name) => (typeof env[name] === "string" ? env[name] : "");
  const c = { ok: false };
  const platform = s("PLATFORM_DOMAIN"), budgetText = s("FRESHNESS_BUDGET_SECONDS");
  const timeoutText = s("UPSTREAM_TIMEOUT_MS"), rate = parseRate(s("LOG_SAMPLE_RATE"));
  const secret = s("SIGNING_SECRET"), marker = s("CACHE_MARKER");
  const budget = /^[0-9]+$/.test(budgetText) ? Number(budgetText) : NaN;
  const timeout = /^[0-9]+$/.test(timeoutText) ? Number(timeoutText) : NaN;
  if (platform === "" || normalizeHost(platform) !== platform) return { ...c, problem: "PLATFORM_DOMAIN" };
  if (!(budget >= 45 && budget <= 3600)) return { ...c, problem: "FRESHNESS_BUDGET_SECONDS" };
  if (!(timeout >= 100 && timeout <= 90000)) return { ...c, problem: "UPSTREAM_TIMEOUT_MS" };
  if (rate === null) return { ...c, problem: "LOG_SAMPLE_RATE" };
  if (encoder.encode(secret).length < 32) return { ...c, problem: "SIGNING_SECRET" };
  if (encoder.encode(marker).length < 16) return { ...c, problem: "CACHE_MARKER" };
  // The budget's split, in milliseconds, exactly as route.DeriveTTLs makes it.
  const ms = budget * 1000;
  const memo = Math.min(Math.max(ms / 30, 1000), 10000);
  const domainsKV = Math.max(30000, Math.floor((ms * 2) / 5 / 1000) * 1000);
  const routesKV = Math.max(30000, Math.floor((ms * 3) / 10 / 1000) * 1000);
  const routeCache = ms - memo - Math.max(domainsKV, routesKV);
  const negative = Math.min(routeCache, Math.min(Math.max(ms / 10, 5000), 60000));
  return {
    ok: true, platform, budget: ms, domainsKV, routesKV, routeCache, negative, timeout,
    samplePerMillion: rate, marker,
    key: crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]),
  };
}

// ---- records (route.DecodeRecord, route.DecodeDomainMapping) ----

function exactKeys(o, required, optional = []) {
  if (o === null || typeof o !== "object" || Array.isArray(o)) return false;
  for (const k of Object.keys(o)) if (!required.includes(k) && !optional.includes(k)) return false;
  return required.every((k) => Object.hasOwn(o, k));
}

function validObjectPath(p, limit) {
  if (typeof p !== "string" || p === "" || encoder.encode(p).length > limit) return false;
  for (const seg of p.split("/")) if (seg === "" || seg === "." || seg === "..") return false;
  return !/[\x00-\x1f\x7f\\]/.test(p);
}

function validUpstream(u) {
  const m = /^([^/]*)\/([^:]*):(.*)$/.exec(u);
  return !!m && isDNSLabel(m[1]) && isDNSLabel(m[2]) && isPort(m[3]) && m[3][0] !== "0";
}

function validStatus(s) {
  return s === "active" || s === "provisioning" || s === "disabled";
}

// recordShape reports whether r is a schema-1 ROUTES record with complete delivery data.
function recordShape(r) {
  if (!exactKeys(r, ["v", "app", "status", "kind", "rev"], ["dynamic", "static"])) return false;
  if (r.v !== 1 || typeof r.app !== "string" || !isDNSLabel(r.app) || !validStatus(r.status) || typeof r.rev !== "string") return false;
  const d = r.dynamic ?? null, st = r.static ?? null;
  if (r.kind === "dynamic") {
    if (d === null || st !== null || !exactKeys(d, ["origin", "upstream", "timeout_ms"])) return false;
    return typeof d.origin === "string" && d.origin !== "" && normalizeHost(d.origin) === d.origin &&
      typeof d.upstream === "string" && validUpstream(d.upstream) &&
      Number.isInteger(d.timeout_ms) && d.timeout_ms >= 100 && d.timeout_ms <= 90000;
  }
  if (r.kind === "static") {
    if (st === null || d !== null || !exactKeys(st, ["prefix", "index", "not_found", "spa"], ["manifest"])) return false;
    return typeof st.prefix === "string" && st.prefix.endsWith("/") && validObjectPath(st.prefix.slice(0, -1), 512) &&
      validObjectPath(st.index, 512) && typeof st.not_found === "string" &&
      (st.not_found === "" || validObjectPath(st.not_found, 512)) && typeof st.spa === "boolean" &&
      (st.manifest === undefined || (st.manifest !== "" && validObjectPath(st.manifest, 512) && st.manifest.startsWith(st.prefix)));
  }
  return false;
}

// goJSON is JSON.stringify of a string as encoding/json writes it (HTML characters and the
// JavaScript line separators escaped), so a rev hash computed here matches internal/route's.
function goJSON(s) {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}

// canonicalRecord is encoding/json's encoding of the record with rev cleared (route.revOf).
function canonicalRecord(r) {
  let s = `{"v":1,"app":${goJSON(r.app)},"status":${goJSON(r.status)},"kind":${goJSON(r.kind)}`;
  if (r.dynamic != null) {
    const d = r.dynamic;
    s += `,"dynamic":{"origin":${goJSON(d.origin)},"upstream":${goJSON(d.upstream)},"timeout_ms":${d.timeout_ms}}`;
  }
  if (r.static != null) {
    const st = r.static;
    s += `,"static":{"prefix":${goJSON(st.prefix)},"index":${goJSON(st.index)},"not_found":${goJSON(st.not_found)},"spa":${st.spa}`;
    if (st.manifest) s += `,"manifest":${goJSON(st.manifest)}`;
    s += "}";
  }
  return s + `,"rev":""}`;
}

function canonicalMapping(m) {
  return `{"v":1,"app":${goJSON(m.app)},"status":${goJSON(m.status)},"rev":""}`;
}

async function revOf(canonical) {
  const sum = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(canonical)));
  return hex(sum.subarray(0, 12));
}

function hex(bytes) {
  let s = "";
  for (const b of bytes) s += b.toString(16).padStart(2, "0");
  return s;
}

function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function decodeRecord(text) {
  const r = parse(text);
  if (!recordShape(r)) return null;
  return (await revOf(canonicalRecord(r))) === r.rev ? r : null;
}

async function decodeMapping(text) {
  const m = parse(text);
  if (!exactKeys(m, ["v", "app", "status", "rev"]) || m.v !== 1 || typeof m.app !== "string" ||
    !isDNSLabel(m.app) || !validStatus(m.status) || typeof m.rev !== "string") return null;
  return (await revOf(canonicalMapping(m))) === m.rev ? m : null;
}

// ---- route cache (the edge's entry version 2) ----

function routeCacheKey(platform, host) {
  return "https://kamui-internal." + platform + "/route/v1/" + host;
}

function markerOK(headers, marker) {
  const got = headers.get(MARKER_HEADER);
  if (got === null || got.length !== marker.length) return false;
  let diff = 0;
  for (let i = 0; i < marker.length; i++) diff |= got.charCodeAt(i) ^ marker.charCodeAt(i);
  return diff === 0;
}

function base64url(text) {
  let bin = "";
  for (const b of encoder.encode(text)) bin += String.fromCharCode(b);
  return btoa(bin).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function unbase64url(s) {
  if (!/^[A-Za-z0-9_-]*$/.test(s)) return undefined;
  try {
    const bin = atob(s.replaceAll("-", "+").replaceAll("_", "/"));
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

// readRouteEntry turns a route-cache match into a resolution, or null (a miss).
function readRouteEntry(hit, host, cfg, line) {
  if (!hit) {
    line.route_cache = "miss";
    return null;
  }
  if (!markerOK(hit.headers, cfg.marker)) {
    line.route_cache = "unmarked";
    return null;
  }
  const text = unbase64url(hit.headers.get(ROUTE_ENTRY_HEADER) || "");
  const c = text === undefined ? undefined : parse(text);
  if (!c || c.v !== ROUTE_ENTRY_VERSION || c.host !== host || !(Date.now() < c.exp)) {
    line.route_cache = "invalid";
    return null;
  }
  if (c.absent === true) {
    line.route_cache = "negative-hit";
    return { kind: "absent", readAt: c.read_at };
  }
  if (!recordShape(c.record) || c.record.app !== c.app || c.record.status !== "active") {
    line.route_cache = "invalid";
    return null;
  }
  line.route_cache = "hit";
  return { kind: "found", rec: c.record, readAt: c.read_at };
}

function routeCachePut(ctx, cfg, line, key, host, res) {
  const absent = res.kind === "absent";
  const ttl = absent ? cfg.negative : cfg.routeCache;
  const secs = Math.floor(ttl / 1000);
  if (secs <= 0) return;
  const c = { v: ROUTE_ENTRY_VERSION, host };
  if (absent) c.absent = true;
  else c.app = res.rec.app, c.record = res.rec;
  c.read_at = res.readAt;
  c.exp = Date.now() + ttl;
  const headers = { [ROUTE_ENTRY_HEADER]: base64url(JSON.stringify(c)), "Cache-Control": "max-age=" + secs, [MARKER_HEADER]: cfg.marker };
  line.cache_puts++;
  putLater(ctx, key, new Response("", { status: 200, headers }));
}

// readKV does the fewest reads: a platform host names its app, a custom host needs DOMAINS.
async function readKV(env, cfg, line, host, app, isPlatform) {
  const readAt = Date.now();
  const get = async (ns, key, ttl) => {
    line.kv_reads++;
    line.io_rounds++;
    return ns.get(key, { type: "text", cacheTtl: ttl / 1000 });
  };
  if (!isPlatform) {
    let v;
    try {
      v = await get(env.DOMAINS, host, cfg.domainsKV);
    } catch {
      return { kind: "kv-error", error: "DOMAINS" };
    }
    if (v === null) return { kind: "absent", readAt };
    const m = await decodeMapping(v);
    if (!m) return { kind: "bad-record", error: "DOMAINS" };
    if (m.status !== "active") return { kind: "unavailable", app: m.app };
    app = m.app;
  }
  let v;
  try {
    v = await get(env.ROUTES, app, cfg.routesKV);
  } catch {
    return { kind: "kv-error", app, error: "ROUTES" };
  }
  if (v === null) return { kind: "absent", app, readAt };
  const rec = await decodeRecord(v);
  if (!rec) return { kind: "bad-record", app, error: "ROUTES" };
  if (rec.app !== app) return { kind: "bad-record", app, error: "ROUTES: record names another app" };
  if (rec.status !== "active") return { kind: "unavailable", app };
  return { kind: "found", app, rec, readAt };
}

// ---- answers ----

function fixed(line, id, method, [status, text]) {
  if (!line.delivery) line.delivery = "fixed";
  const headers = { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "X-Request-Id": id };
  if (status === 503) headers["Retry-After"] = "5";
  line.status = status;
  return new Response(method === "HEAD" ? null : text + "\nRequest ID: " + id + "\n", { status, headers });
}

function stripInternal(headers) {
  const out = new Headers();
  for (const [name, value] of headers) if (!name.toLowerCase().startsWith("kamui-")) out.append(name, value);
  return out;
}

// notModified: If-None-Match against a strong ETag (RFC 9110 §13.1.2, weak comparison).
function notModified(request, etag) {
  const inm = request.headers.get("If-None-Match");
  if (!inm || !etag) return false;
  const bare = etag.replace(/^W\//, "");
  return inm.split(",").some((t) => (t = t.trim()) === "*" || t.replace(/^W\//, "") === bare);
}

// withLength lets a stream leave with the length its headers say, not chunked.
function withLength(body, headers) {
  const size = headers.get("Content-Length");
  return body && size !== null && /^[0-9]+$/.test(size) ? body.pipeThrough(new FixedLengthStream(Number(size))) : body;
}

function contentAnswer(request, hit, id, line) {
  const headers = stripInternal(hit.headers);
  headers.set("Cache-Control", CLIENT_STATIC_CACHE_CONTROL);
  headers.set("X-Request-Id", id);
  line.content_cache = "hit";
  line.delivery = "content-cache";
  line.outcome = "ok";
  if (hit.status === 200 && notModified(request, headers.get("ETag"))) {
    hit.body?.cancel().catch(() => {});
    for (const n of ["Content-Length", "Content-Type"]) headers.delete(n);
    line.status = 304;
    return new Response(null, { status: 304, headers });
  }
  line.status = hit.status;
  if (request.method === "HEAD") {
    hit.body?.cancel().catch(() => {});
    return new Response(null, { status: hit.status, headers });
  }
  return new Response(withLength(hit.body, headers), { status: hit.status, headers });
}

// staticPath maps the escaped URL path to an object path (edge.staticPath), or null.
function staticPath(escaped, index) {
  let p;
  try {
    p = escaped.includes("%") ? decodePercent(escaped) : escaped;
  } catch {
    return null;
  }
  p = p.replace(/^\//, "");
  if (p === "" || p.endsWith("/")) p += index;
  for (const seg of p.split("/")) if (seg === "" || seg === "." || seg === "..") return null;
  if (/[\x00-\x1f\x7f\\]/.test(p)) return null;
  return encoder.encode(p).length <= 1024 ? p : null;
}

function decodePercent(s) {
  const bytes = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== "%") {
      bytes.push(...encoder.encode(s[i]));
      continue;
    }
    if (!/^[0-9a-fA-F]{2}$/.test(s.slice(i + 1, i + 3))) throw new Error("bad escape");
    bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
    i += 2;
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

// manifests: manifest key → {files, exp}; oldest out first beyond MAX_MANIFESTS.
const manifests = new Map();

async function manifestFiles(env, cfg, line, key) {
  const m = manifests.get(key);
  if (m && Date.now() < m.exp) {
    manifests.delete(key); // re-inserted: most recently used last
    manifests.set(key, m);
    return m.files;
  }
  line.manifest_reads++;
  line.io_rounds++;
  const o = await env.STATIC.get(key);
  if (!o) throw new Error("manifest not found");
  if (!(o.size <= MAX_MANIFEST_BYTES)) {
    o.body.cancel().catch(() => {});
    throw new Error("manifest too large");
  }
  const doc = parse(await o.text());
  if (!exactKeys(doc, ["v", "files"]) || doc.v !== 1 || !doc.files || typeof doc.files !== "object" || Object.keys(doc.files).length === 0) {
    throw new Error("manifest malformed");
  }
  for (const [p, f] of Object.entries(doc.files)) {
    if (!validObjectPath(p, 1024) || !exactKeys(f, ["object", "type", "size"]) || !/^[0-9a-f]{64}$/.test(f.object) ||
      typeof f.type !== "string" || !/^[\x20-\x7e]{1,255}$/.test(f.type) || !Number.isSafeInteger(f.size) || f.size < 0) {
      throw new Error("manifest malformed");
    }
  }
  while (manifests.size >= MAX_MANIFESTS) manifests.delete(manifests.keys().next().value);
  manifests.set(key, { files: doc.files, exp: Date.now() + cfg.budget });
  return doc.files;
}

// contentTTL: what is left of the budget for a content entry made from route data read at
// readAt (edge.contentTTL), whole seconds; 0: do not store.
function contentTTL(cfg, readAt) {
  const age = Math.max(0, Date.now() - readAt);
  const ttl = Math.floor((cfg.budget - Math.max(cfg.domainsKV, cfg.routesKV) - age) / 1000);
  return ttl >= 1 ? ttl : 0;
}

async function serveStatic(request, url, env, ctx, cfg, line, id, res) {
  const st = res.rec.static;
  line.delivery = "static";
  if (request.method !== "GET" && request.method !== "HEAD") {
    line.outcome = "method-not-allowed";
    const r = fixed(line, id, request.method, FIXED.method);
    r.headers.set("Allow", "GET, HEAD");
    return r;
  }
  const withBody = request.method === "GET";
  const rel = staticPath(url.pathname, st.index);
  if (rel === null && st.not_found === "") {
    line.outcome = "static-not-found";
    return fixed(line, id, request.method, FIXED.staticNotFound);
  }
  let status = 200, headers, objectKey;
  if (st.manifest) {
    let files;
    try {
      files = await manifestFiles(env, cfg, line, st.manifest);
    } catch {
      line.outcome = "static-error";
      return fixed(line, id, request.method, FIXED.staticError);
    }
    let file = rel !== null && Object.hasOwn(files, rel) ? files[rel] : undefined;
    if (!file && rel !== null && st.spa && !rel.split("/").pop().includes(".")) file = files[st.index];
    if (!file && st.not_found !== "" && Object.hasOwn(files, st.not_found)) file = files[st.not_found], status = 404;
    if (!file) {
      line.outcome = "static-not-found";
      return fixed(line, id, request.method, FIXED.staticNotFound);
    }
    headers = new Headers({ "Content-Type": file.type, ETag: '"' + file.object + '"', "Content-Length": String(file.size), "X-Content-Type-Options": "nosniff" });
    objectKey = st.prefix + "objects/" + file.object;
    res.size = file.size;
  }
  line.outcome = "ok";
  let obj = null;
  if (!st.manifest) {
    // The layout by prefix: the object itself carries the headers.
    const read = async (key) => {
      line.r2_reads++;
      line.io_rounds++;
      return withBody ? env.STATIC.get(key) : env.STATIC.head(key);
    };
    try {
      if (rel !== null) obj = await read(st.prefix + rel);
      if (!obj && rel !== null && st.spa && !rel.split("/").pop().includes(".")) obj = await read(st.prefix + st.index);
      if (!obj && st.not_found !== "") (obj = await read(st.prefix + st.not_found)) && (status = 404);
    } catch {
      line.outcome = "static-error";
      return fixed(line, id, request.method, FIXED.staticError);
    }
    if (!obj) {
      line.outcome = "static-not-found";
      return fixed(line, id, request.method, FIXED.staticNotFound);
    }
    headers = new Headers({ "Content-Type": obj.httpMetadata?.contentType || "application/octet-stream", "X-Content-Type-Options": "nosniff" });
    if (obj.httpEtag) headers.set("ETag", obj.httpEtag);
    if (obj.uploaded instanceof Date) headers.set("Last-Modified", obj.uploaded.toUTCString());
    if (Number.isSafeInteger(obj.size)) headers.set("Content-Length", String(obj.size));
  }
  const store = withBody && status === 200 ? contentTTL(cfg, res.readAt) : 0;
  const clientHeaders = () => {
    const h = new Headers(headers);
    h.set("Cache-Control", CLIENT_STATIC_CACHE_CONTROL);
    h.set("X-Request-Id", id);
    return h;
  };
  if (status === 200 && notModified(request, headers.get("ETag"))) {
    obj?.body?.cancel().catch(() => {});
    const h = clientHeaders();
    for (const n of ["Content-Length", "Content-Type"]) h.delete(n);
    line.status = 304;
    return new Response(null, { status: 304, headers: h });
  }
  if (!withBody) {
    line.status = status;
    return new Response(null, { status, headers: clientHeaders() });
  }
  if (st.manifest) {
    try {
      line.r2_reads++;
      line.io_rounds++;
      obj = await env.STATIC.get(objectKey);
    } catch {
      obj = null;
    }
    if (!obj || obj.size !== res.size) {
      obj?.body.cancel().catch(() => {});
      line.outcome = "static-error";
      return fixed(line, id, request.method, FIXED.staticError);
    }
  }
  let body = obj.body;
  if (store > 0) {
    const stored = new Headers(headers);
    stored.set("Cache-Control", "public, max-age=" + store);
    stored.set(MARKER_HEADER, cfg.marker);
    let copy;
    [body, copy] = body.tee();
    line.cache_puts++;
    putLater(ctx, contentKey(request), new Response(withLength(copy, headers), { status, headers: stored }));
  }
  line.status = status;
  return new Response(withLength(body, headers), { status, headers: clientHeaders() });
}

// contentKey is the public URL without a fragment, the content cache's key (as the edge's).
function contentKey(request) {
  const i = request.url.indexOf("#");
  return i < 0 ? request.url : request.url.slice(0, i);
}

function tokens(headers, name) {
  const v = headers.get(name);
  return v === null ? [] : v.split(",").map((t) => t.trim().toLowerCase()).filter(Boolean);
}

// contextMessage is route.Context's canonical message: length-prefixed fields, byte lengths.
function contextMessage(fields) {
  const parts = [];
  let n = 0;
  for (const f of ["kamui-context-v1", ...fields]) {
    const b = encoder.encode(f);
    const p = encoder.encode(b.length + ":");
    parts.push(p, b);
    n += p.length + b.length;
  }
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) out.set(p, at), (at += p.length);
  return out;
}

// signContext returns the Kamui-* context headers for one forwarded request, signed under
// key (a CryptoKey for HMAC-SHA256), exactly as route.Context.SetHeaders writes them.
export async function signContext(key, { method, host, target, app, upstream, requestId, time }) {
  const t = String(time);
  const mac = await crypto.subtle.sign("HMAC", key, contextMessage([method, host, target, app, upstream, requestId, t]));
  return {
    "Kamui-Host": host, "Kamui-App": app, "Kamui-Upstream": upstream, "Kamui-Request-Id": requestId,
    "Kamui-Context-Time": t, "Kamui-Context-Signature": "v1=" + hex(new Uint8Array(mac)),
  };
}

async function forward(request, url, cfg, line, id, host, res) {
  const d = res.rec.dynamic;
  line.delivery = "dynamic";
  const connection = tokens(request.headers, "connection");
  const ws = request.method === "GET" && connection.includes("upgrade") && tokens(request.headers, "upgrade").includes("websocket");
  const out = new Headers();
  for (const [name, value] of request.headers) {
    const l = name.toLowerCase();
    if (HOP_BY_HOP.has(l) || l.startsWith("kamui-") || l.includes("_") || l.startsWith("x-forwarded-") ||
      l === "forwarded" || l === "x-real-ip" || l === "host" || l === "x-request-id" || connection.includes(l)) continue;
    out.append(name, value);
  }
  if (ws) {
    out.set("Connection", "Upgrade");
    out.set("Upgrade", "websocket");
  }
  out.set("X-Forwarded-Host", host);
  out.set("X-Forwarded-Proto", "https");
  out.set("X-Request-Id", id);
  const target = url.pathname + url.search;
  const signed = await signContext(await cfg.key, {
    method: request.method, host, target, app: res.rec.app, upstream: d.upstream, requestId: id, time: Math.floor(Date.now() / 1000),
  });
  for (const [name, value] of Object.entries(signed)) out.set(name, value);
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => { timedOut = true; controller.abort(); }, Math.min(d.timeout_ms, cfg.timeout));
  let response;
  line.io_rounds++;
  try {
    // cache: "no-store": every app forwards to the same tunnel origin URL.
    const init = { method: request.method, headers: out, redirect: "manual", signal: controller.signal, cache: "no-store" };
    if (request.method !== "GET" && request.method !== "HEAD" && !ws) init.body = request.body;
    response = await fetch("https://" + d.origin + target, init);
  } catch {
    line.outcome = timedOut ? "upstream-timeout" : "upstream-unreachable";
    return fixed(line, id, request.method, timedOut ? FIXED.timeout : FIXED.unreachable);
  } finally {
    clearTimeout(timer);
  }
  const headers = new Headers(response.headers);
  for (const [name] of response.headers) if (name.toLowerCase().startsWith("kamui-")) headers.delete(name);
  if (response.status !== 101 && !headers.has("Cache-Control")) headers.set("Cache-Control", "private");
  headers.set("X-Request-Id", id);
  line.outcome = "ok";
  line.status = response.status;
  const init = { status: response.status, statusText: response.statusText, headers };
  if (response.webSocket) init.webSocket = response.webSocket;
  const nullBody = response.status === 101 || response.status === 204 || response.status === 304;
  return new Response(nullBody ? null : response.body, init);
}

// putLater stores response under key in the background, started on a timer once this turn of
// the event loop has returned the response: in workerd a put started before the response
// leaves delays it by milliseconds. The edge Worker defers its puts the same way.
function putLater(ctx, key, response) {
  ctx.waitUntil(new Promise((resolve) => setTimeout(resolve, 0))
    .then(() => caches.default.put(key, response)).catch(putFailed));
}

function putFailed(err) {
  console.log(JSON.stringify({ msg: "seed.cache_put_failed", error: err && err.name ? err.name : "error" }));
}

// sampled: FNV-1a of the request id, as the edge decides (edge.sampled).
function sampled(id, perMillion) {
  if (perMillion >= 1_000_000) return true;
  if (perMillion <= 0) return false;
  let h = 2166136261;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 16777619) >>> 0;
  return h % 1_000_000 < perMillion;
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE"]);

async function serve(request, env, ctx, line, id) {
  config ??= readConfig(env);
  const cfg = config;
  if (!cfg.ok) {
    line.outcome = "bad-config";
    line.error = "binding " + cfg.problem;
    return fixed(line, id, request.method, FIXED.badConfig);
  }
  const url = new URL(request.url);
  const host = normalizeHost(url.host);
  if (host === null) {
    line.outcome = "bad-host";
    return fixed(line, id, request.method, FIXED.badHost);
  }
  line.host = host;
  const [app, isPlatform] = platformApp(host, cfg.platform);
  line.host_kind = isPlatform ? "platform" : "custom";
  if (isPlatform && app === "") {
    line.outcome = "unknown-host";
    return fixed(line, id, request.method, FIXED.unknownHost);
  }
  // 1. Content cache (GET/HEAD) and route cache, side by side.
  const routeKey = routeCacheKey(cfg.platform, host);
  const getOrHead = request.method === "GET" || request.method === "HEAD";
  line.cache_lookups++;
  const routeLookup = caches.default.match(routeKey).then((hit) => ({ hit }), (error) => ({ error }));
  line.io_rounds++;
  if (getOrHead) {
    line.cache_lookups++;
    let hit;
    try {
      hit = await caches.default.match(contentKey(request));
      if (!hit) line.content_cache = "miss";
    } catch {
      line.content_cache = "error";
    }
    if (hit) {
      if (!markerOK(hit.headers, cfg.marker)) line.content_cache = "unmarked";
      else if (hit.headers.has(ROUTE_ENTRY_HEADER)) line.content_cache = "route-entry";
      else return contentAnswer(request, hit, id, line);
      hit.body?.cancel().catch(() => {});
    }
  }
  // 2. The route-cache entry, then 3. KV.
  const looked = await routeLookup;
  let res = looked.error ? ((line.route_cache = "error"), null) : readRouteEntry(looked.hit, host, cfg, line);
  if (res) {
    line.route_source = "route-cache";
  } else {
    res = await readKV(env, cfg, line, host, app, isPlatform);
    line.route_source = "kv";
    if (res.kind === "found" || res.kind === "absent") routeCachePut(ctx, cfg, line, routeKey, host, res);
  }
  if (res.rec) line.app = res.rec.app;
  else if (res.app) line.app = res.app;
  switch (res.kind) {
    case "absent":
      line.outcome = "unknown-host";
      return fixed(line, id, request.method, FIXED.unknownHost);
    case "unavailable":
      line.outcome = "not-active";
      return fixed(line, id, request.method, FIXED.notActive);
    case "bad-record":
      line.outcome = "bad-record";
      line.error = res.error;
      return fixed(line, id, request.method, FIXED.badRecord);
    case "kv-error":
      line.outcome = "kv-error";
      line.error = res.error;
      return fixed(line, id, request.method, FIXED.kvError);
  }
  if (res.rec.kind === "static") return serveStatic(request, url, env, ctx, cfg, line, id, res);
  return forward(request, url, cfg, line, id, host, res);
}

export default {
  async fetch(request, env, ctx) {
    const start = Date.now();
    const id = crypto.randomUUID();
    const line = {
      msg: "seed.request", ts_ms: start, request_id: id, method: METHODS.has(request.method) ? request.method : "OTHER",
      kv_reads: 0, r2_reads: 0, manifest_reads: 0, cache_lookups: 0, cache_puts: 0, io_rounds: 0,
      content_cache: "skip", route_cache: "skip",
    };
    let response;
    try {
      response = await serve(request, env, ctx, line, id);
    } catch {
      line.outcome = "internal-error";
      response = fixed(line, id, request.method, FIXED.badConfig);
    }
    line.dur_us = (Date.now() - start) * 1000;
    if (line.status >= 400 || sampled(id, config && config.ok ? config.samplePerMillion : 1_000_000)) console.log(JSON.stringify(line));
    return response;
  },
};
