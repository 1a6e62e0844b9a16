// Shared delivery of the bench's JS Workers: R2 for static records (through the manifest for
// a content-addressed site), a plain fetch to the record's origin for dynamic ones.
export function fixed(status) {
  return new Response("fixed " + status + "\n", { status, headers: { "Cache-Control": "no-store" } });
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

async function siteFile(env, st, key) {
  let files = manifests.get(st.manifest);
  if (!files) {
    const o = await env.STATIC.get(st.manifest);
    if (!o) return undefined;
    files = (await o.json()).files;
    manifests.set(st.manifest, files);
  }
  return Object.hasOwn(files, key) ? files[key] : undefined;
}

export async function deliver(request, url, rec, env) {
  if (rec.kind === "static") {
    let key = url.pathname.slice(1);
    if (key === "" || key.endsWith("/")) key += rec.static.index;
    if (rec.static.manifest) {
      const f = await siteFile(env, rec.static, key);
      if (!f) return fixed(404);
      const headers = { "Content-Type": f.type, ETag: '"' + f.object + '"' };
      if (request.method === "HEAD") return new Response(null, { status: 200, headers });
      const obj = await env.STATIC.get(rec.static.prefix + "objects/" + f.object);
      if (!obj) return fixed(502);
      return new Response(obj.body, { status: 200, headers });
    }
    const obj = request.method === "HEAD" ? await env.STATIC.head(rec.static.prefix + key) : await env.STATIC.get(rec.static.prefix + key);
    if (!obj) return fixed(404);
    const headers = new Headers();
    if (obj.httpMetadata && obj.httpMetadata.contentType) headers.set("Content-Type", obj.httpMetadata.contentType);
    return new Response(request.method === "HEAD" ? null : obj.body, { status: 200, headers });
  }
  const init = { method: request.method, headers: request.headers, redirect: "manual" };
  if (request.method !== "GET" && request.method !== "HEAD") init.body = request.body;
  return fetch("https://" + rec.dynamic.origin + url.pathname + url.search, init);
}
