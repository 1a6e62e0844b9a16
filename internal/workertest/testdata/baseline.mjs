// The first routing model, for bench-edge: no caches at all. A platform host reads ROUTES
// once, a custom host reads DOMAINS then ROUTES; then the same delivery as the edge Worker.
import { deliver, fixed, kvGet, newLine, platformApp } from "./deliver.mjs";

export default {
  async fetch(request, env) {
    const line = newLine("baseline");
    const url = new URL(request.url);
    const host = url.hostname.toLowerCase().replace(/\.$/, "");
    let app = platformApp(host, env.PLATFORM_DOMAIN);
    if (app === undefined) {
      const m = await kvGet(env.DOMAINS, host, line);
      if (!m) return fixed(404, line);
      if (m.status !== "active") return fixed(503, line);
      app = m.app;
    }
    if (!app) return fixed(404, line);
    const rec = await kvGet(env.ROUTES, app, line);
    if (!rec) return fixed(404, line);
    if (rec.status !== "active") return fixed(503, line);
    return deliver(request, url, rec, env, line);
  },
};
