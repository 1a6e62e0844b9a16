// The ES-module entry of the KamuiDash edge Worker. It instantiates the Go Wasm once per
// isolate (lazily, on the first request, behind one shared promise) and hands every request
// to the Go core through globalThis.__kamuiEdgeServe. The helpers below are the only places
// that touch bodies: they pass streams from one JS object to another, so bytes never enter Go.
import "./wasm_exec.js";
import wasm from "./edge.wasm";

let ready;

// __kamuiSleep lets a Go goroutine wait on a timer of its own request context.
globalThis.__kamuiSleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function start() {
  if (!ready) {
    ready = (async () => {
      const go = new globalThis.Go();
      const instance = await WebAssembly.instantiate(wasm, go.importObject);
      // go.run resolves only when the program exits, which it never does: main blocks in
      // select{} after registering __kamuiEdgeServe.
      go.run(instance);
      if (typeof globalThis.__kamuiEdgeServe !== "function") {
        throw new Error("edge wasm did not register its entry point");
      }
    })();
    // A failed start must not poison the isolate forever: the next request retries.
    ready.catch(() => { ready = undefined; });
  }
  return ready;
}

// makeHost returns the per-request helpers the Go adapter calls; they close over ctx so
// that a content-cache put outlives the response (ctx.waitUntil).
function makeHost(ctx) {
  return {
    // forward carries out the core's upstream plan with the received body stream and an
    // AbortController timeout that covers the wait for response headers.
    async forward(request, url, method, headers, timeoutMs, webSocket) {
      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => { timedOut = true; controller.abort(); }, timeoutMs);
      try {
        const init = { method, headers, redirect: "manual", signal: controller.signal };
        if (method !== "GET" && method !== "HEAD" && !webSocket) init.body = request.body;
        return { response: await fetch(url, init) };
      } catch (err) {
        if (timedOut) return { timeout: true };
        return { error: "upstream fetch failed: " + (err && err.name ? err.name : "error") };
      } finally {
        clearTimeout(timer);
      }
    },

    // finish applies the core's header edits to the upstream response; the body (or the
    // WebSocket) passes through untouched.
    finish(response, del, set) {
      const headers = new Headers(response.headers);
      for (const name of del) headers.delete(name);
      for (const [name, value] of set) headers.set(name, value);
      const init = { status: response.status, statusText: response.statusText, headers };
      if (response.webSocket) init.webSocket = response.webSocket;
      const nullBody = response.status === 101 || response.status === 204 || response.status === 304;
      return new Response(nullBody ? null : response.body, init);
    },

    // store puts one of the core's own entries (a route-cache entry) after the response.
    store(key, status, headers, body) {
      ctx.waitUntil(caches.default.put(key, new Response(body, { status, headers })).catch(logPutFailure));
    },

    // respond builds the core's own or static response; with a store key it also puts a
    // copy (a tee of the stream) into the content cache with the core's stored headers.
    respond(status, headers, body, storeKey, storeHeaders) {
      const response = new Response(body, { status, headers });
      if (storeKey !== null && storeHeaders !== null) {
        const stored = new Response(response.clone().body, { status, headers: storeHeaders });
        ctx.waitUntil(caches.default.put(storeKey, stored).catch(logPutFailure));
      }
      return response;
    },
  };
}

// A failed put only costs a lookup later; it is logged, never surfaced to the client.
function logPutFailure(err) {
  console.log(JSON.stringify({ msg: "edge.cache_put_failed", error: err && err.name ? err.name : "error" }));
}

function failClosed() {
  // The Go core could not run at all: a fixed answer, never a routed request.
  const id = crypto.randomUUID();
  console.log(JSON.stringify({ msg: "edge.request", request_id: id, outcome: "adapter-failure", status: 500 }));
  return new Response("Internal error: the edge is misconfigured.\nRequest ID: " + id + "\n", {
    status: 500,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", "X-Request-Id": id },
  });
}

export default {
  async fetch(request, env, ctx) {
    try {
      await start();
      return await globalThis.__kamuiEdgeServe(request, env, ctx, makeHost(ctx));
    } catch {
      return failClosed();
    }
  },
};
