// The latency yardstick for bench-edge: a JS Worker doing exactly one KV read per request.
// It knows the bench's naming (www.<app>.example) so that custom hosts need no DOMAINS read.
import { deliver, fixed, kvGet, newLine, platformApp } from "./deliver.mjs";

export default {
  async fetch(request, env) {
    const line = newLine("passthrough");
    const url = new URL(request.url);
    const host = url.hostname.toLowerCase();
    let app = platformApp(host, env.PLATFORM_DOMAIN);
    if (app === undefined) {
      const m = /^www\.([a-z0-9-]+)\.example$/.exec(host);
      app = m ? m[1] : "";
    }
    const rec = await kvGet(env.ROUTES, app || "-", line);
    if (!rec) return fixed(404, line);
    if (rec.status !== "active") return fixed(503, line);
    return deliver(request, url, rec, env, line);
  },
};
