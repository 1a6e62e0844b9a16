// A diagnostic yardstick for bench-edge: the JS pass-through plus one Cache API lookup of
// the public URL per GET (what the design's step 1 costs in this runtime), nothing else.
import passthrough from "./passthrough.mjs";

export default {
  async fetch(request, env, ctx) {
    if (request.method === "GET") {
      const hit = await caches.default.match(request.url);
      if (hit) return hit;
    }
    return passthrough.fetch(request, env, ctx);
  },
};
