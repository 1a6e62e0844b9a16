// The first routing model, for bench-edge: no caches at all. A platform host reads ROUTES
// once, a custom host reads DOMAINS then ROUTES; then the same delivery as the edge Worker.
import { deliver, fixed, platformApp } from "./deliver.mjs";

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const host = url.hostname.toLowerCase().replace(/\.$/, "");
    let app = platformApp(host, env.PLATFORM_DOMAIN);
    if (app === undefined) {
      const m = await env.DOMAINS.get(host, { type: "json" });
      if (!m) return fixed(404);
      if (m.status !== "active") return fixed(503);
      app = m.app;
    }
    if (!app) return fixed(404);
    const rec = await env.ROUTES.get(app, { type: "json" });
    if (!rec) return fixed(404);
    if (rec.status !== "active") return fixed(503);
    return deliver(request, url, rec, env);
  },
};
