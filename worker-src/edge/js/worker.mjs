// The ES-module entry of the KamuiDash edge Worker. It instantiates the Go Wasm once per
// isolate (lazily, on the first request, behind one shared promise; again only when that
// instance has stopped, see GoInstance) and carries out the Go core's plans. Go decides; this
// file does the I/O that a warm request needs (Cache API lookups, the upstream fetch) and is
// the only place that touches bodies: it passes streams from one JS object to another, so
// bytes never enter Go.
//
// Protocol with the Go adapter (worker-src/edge/wasm; its codec, with a named constant for each
// kind below, is worker-src/edge/wire and must change with this file): requests and answers
// are NUL-terminated UTF-8 fields written into and read from Go's memory; each call takes and
// returns a length. Header names and values, URLs and JSON never contain NUL. Every call is
// one of the Wasm's exports (a message is written at kamuiIn's address, an answer read at
// kamuiOut's); only init and poke are callbacks on globalThis.__kamuiEdge, events of the Go
// scheduler. The other way, the Wasm imports two functions from this file, the runtime's
// SHA-256 and HMAC-SHA256 (module "kamuidash", `digests` below).
//   decide(n)           request: id, method, url, header count, name, value, ...
//   lookups(token, n)   content lookup, route-cache lookup; each "" (not made), "M" (miss),
//                       "E" message, or "H" status, header count, pairs... (a route-cache
//                       entry is all in its headers; a content entry's body stays here);
//                       then the static object read: "", "M", "E" message, or "H" and the
//                       object's fields (as io.r2's; its body stays here); then the binding
//                       read: "", "M" (no value), "E" message, "H" text, or "N" (the value
//                       holds a NUL, which no field may and no JSON does); then the read
//                       ahead, as the binding read
//   run(token)          a runner decides with I/O, reading the bindings through io (below);
//                       0 while it waits, else its answer (and io.object, the body object)
//   settle(id, ok)      a binding read is back, its value (or rejection message) in
//                       io.value; 0, or the answer of the run it let finish (by its token)
//   finish(token, n)    "ok" | "timeout" | "error", status, detail, name count, names...
//   remember(n)         route-cache key, then its lookup as above: a route lookup the core
//                       named that came back after the request was answered without it
//                       (a content hit); no answer
//   puts()              the route-cache entries waiting, made now (see waiting below)
// Every answer starts with kind, token, log line count, lines...; then by kind:
//   L  content key, route key (the host's; once that is back, perhaps an app's entry, which
//      the core files as such), object key, then a binding read: kind ("K" a KV value as
//      text, "T" an object as text; "" none), binding name, key, and its parameter (KV's
//      cacheTtl in seconds, the text's size limit in bytes), then a read ahead to make
//      beside it (the same four fields; at most one a request): make these lookups and
//      reads (a key or read named again while its answer is out, or after it, is not made
//      again), call lookups
//   W  call run
//   F  method, url, timeout ms, websocket ("1"), header: fetch, then call finish; waiting
//   R  status, body kind (N none, T text, C the looked-up content entry's, O the object run
//      handed back or the one read), body text, range offset and length ("" "": the whole
//      body), header, store key, store header; waiting
//   E  delete count, names..., header to set (finish's answer to "ok")
//   P  count, then key, status, header, body text each: route-cache entries to store (puts)
//   X  the token is unknown (answered as an adapter failure)
// waiting: how many route-cache entries the answer planned; the Go side holds them unmade
// until puts is called, once the response is on its way (storeWaiting).
import { createHash, createHmac } from "node:crypto";
import "./wasm_exec.js";
import compiled from "./edge.wasm";

let current; // the GoInstance new requests go to, once started
let starting; // the promise of its start, while it starts
const encoder = new TextEncoder();
const decoder = new TextDecoder();
// The exports never run the goroutines they make ready (the garbage collector's workers, the
// finalizers) other than a request's runner; poke, an event, lets them run once in this many
// calls.
const POKE_EVERY = 32;

// start returns the Go instance to serve a request with, starting one when there is none (the
// first request, or the first after the last one stopped).
function start() {
  if (current) return Promise.resolve(current);
  if (!starting) {
    starting = GoInstance.start().then((g) => {
      if (!g.retired) current = g; // a program that stopped while it started serves nobody
      return g;
    });
    // A failed start must not poison the isolate forever: the next request retries.
    starting.catch(() => {}).finally(() => { starting = undefined; });
  }
  return starting;
}

// GoInstance is one running instance of the Go Wasm: its exports, its memory, and the state
// of the requests it is deciding. A request makes every call of its own into the instance it
// began with (its tokens and waits mean nothing to another).
//
// An instance that stops is never called again. A panic or a fatal error (out of memory,
// say) in Go ends the program: wasm_exec.js marks it exited, and the call that was running
// returns whatever was on the stack, while its answer buffer still holds another request's
// last answer. So every call checks that the program still runs before its result is read;
// an instance found stopped is retired: its requests fail (the adapter's 500), and the next
// request starts a new instance, so that one failure costs the isolate a restart, not every
// request until the runtime recycles it.
class GoInstance {
  static async start() {
    const go = new globalThis.Go();
    const g = new GoInstance(go);
    // The runtime's SHA-256 and HMAC-SHA256, which the Go code imports from module
    // "kamuidash" (internal/route/digest_host.go) instead of linking the standard library's:
    // each reads its input at the addresses given in the Wasm's memory and writes the 32-byte
    // digest at out. (node:crypto, the runtime's synchronous crypto, needs the nodejs_compat
    // flag: route.WorkerCompatibilityFlags.)
    const digests = {
      sha256(msg, msgLen, out) {
        g.bytes(out, 32).set(createHash("sha256").update(g.bytes(msg, msgLen)).digest());
      },
      hmac_sha256(key, keyLen, msg, msgLen, out) {
        g.bytes(out, 32).set(createHmac("sha256", g.bytes(key, keyLen)).update(g.bytes(msg, msgLen)).digest());
      },
    };
    const instance = await WebAssembly.instantiate(compiled, { ...go.importObject, kamuidash: digests });
    // Before go.run: the digests read the memory from the first Go call on.
    g.exports = instance.exports;
    // go.run resolves only when the program exits, which it does only when it fails: main
    // blocks in select{} after registering __kamuiEdge.
    const exited = () => g.retire("the Go program exited");
    go.run(instance).then(exited, exited);
    if (typeof globalThis.__kamuiEdge !== "object" || globalThis.__kamuiEdge === null) {
      throw new Error("edge wasm did not register its entry point");
    }
    g.api = globalThis.__kamuiEdge;
    globalThis.__kamuiEdge = undefined;
    g.finishedAt = g.exports.kamuiFinished();
    return g;
  }

  constructor(go) {
    this.go = go;
    this.exports = undefined;
    this.api = undefined; // what main registered: init and poke
    this.configured = false;
    this.retired = false;
    this.syncCalls = 0;
    // Requests a runner decides, by token: token → { resolve, reject }.
    this.running = new Map();
    // The binding reads out, by the id of their wait: id → the token of the request whose
    // runner made it, which the read's settle wakes (or, the instance retired, fails).
    this.reads = new Map();
    this.active = undefined; // the token whose runner the call running now may wake
    this.io = settling(this, ioHelpers);
    this.finishedAt = 0; // the address of the Go side's "the last call finished" word
    this.finishedView = undefined; // a view of it, made again when the memory grows
  }

  // retire takes the instance out of service for good, once: new requests go to a new
  // instance. Its waiting requests are not failed here but each in an event of its own, when
  // its read comes back (settle): retire runs in whichever request's event met the stop, and
  // workerd cancels a request woken only by another's event as hung (nothing of its own is
  // left for it to wait on), as it would the request's own runner woken that way (main.go's
  // waitShared says the same). Every waiting request has a read of its own out: its runner
  // waits for one.
  retire(reason) {
    if (this.retired) return;
    this.retired = true;
    if (current === this) current = undefined;
    console.log(JSON.stringify({ msg: "edge.instance_retired", reason }));
  }

  // fail rejects the wait of token's request, if it still waits.
  fail(token, err) {
    const waiter = this.running.get(token);
    if (!waiter) return;
    this.running.delete(token);
    waiter.reject(err);
  }

  // call makes one call into the instance (no export takes more than two arguments: a fixed
  // arity, not a rest parameter, which would cost every call an array); a call into a retired
  // instance, or that finds the program stopped, throws rather than hand anything back.
  //
  // A call that came back without finishing retires the instance and throws as well: an
  // export that waits with nothing else to run (a bug) is unwound back to JS from the middle,
  // its result whatever the stack held and the answer buffer another request's, with the
  // program neither running nor stopped. Each export sets the word at finishedAt as it
  // returns, and this clears it first.
  call(name, a, b) {
    if (this.go.exited) this.retire("the Go program exited before " + name);
    if (this.retired) throw new Error("the edge's Go instance was retired");
    this.finishedWord()[0] = 0;
    let n;
    try {
      n = this.exports[name](a, b);
    } catch (err) {
      this.retire("a call into Go threw: " + (err && err.name ? err.name : "error"));
      throw err;
    }
    if (this.go.exited) {
      this.retire("the Go program exited during " + name);
      throw new Error("the edge's Go instance exited");
    }
    if (this.finishedWord()[0] !== 1) {
      this.retire("a call into Go did not finish: " + name);
      throw new Error("the edge's Go instance stopped in a call");
    }
    return n;
  }

  // finishedWord is the Go side's "the last call finished" word, through a view made again
  // only when the memory's buffer has been replaced (it is, whenever the memory grows).
  finishedWord() {
    const buffer = this.exports.mem.buffer;
    if (this.finishedView === undefined || this.finishedView.buffer !== buffer) {
      this.finishedView = new Uint32Array(buffer, this.finishedAt, 1);
    }
    return this.finishedView;
  }

  // check retires the instance if its program has stopped, after an event (poke), which the
  // caller reads no result of (call checks before and after each call itself). go.run's
  // settling says so too, but later, and in the context of the request that started the
  // instance, which workerd warns may no longer run it.
  check(when) {
    if (this.go.exited) this.retire("the Go program exited " + when);
  }

  // configure hands the instance its configuration and the binding helpers, once.
  configure(env) {
    if (this.configured) return;
    this.api.init(env, this.io);
    if (this.go.exited) {
      this.retire("the Go program exited during init");
      throw new Error("the edge's Go instance exited");
    }
    this.configured = true;
  }

  // bytes is a view of length bytes of Go's memory at address. It is made afresh each time:
  // the memory's buffer is replaced whenever it grows.
  bytes(address, length) {
    return new Uint8Array(this.exports.mem.buffer, address, length);
  }

  // write encodes a message into Go's input buffer and returns its length in bytes. UTF-8
  // takes at most three bytes per UTF-16 unit, so room for three per unit always holds it.
  write(fields) {
    const text = fields.join("\0") + "\0";
    const room = text.length * 3;
    const address = this.call("kamuiIn", room); // first: growing the memory detaches its old buffer
    return encoder.encodeInto(text, this.bytes(address, room)).written;
  }

  // answer reads the answer of n bytes a synchronous call just returned.
  answer(n) {
    const fields = decoder.decode(this.bytes(this.call("kamuiOut"), n)).split("\0");
    this.tick();
    return fields;
  }

  // tick counts a call into Go and pokes once in POKE_EVERY.
  tick() {
    if (++this.syncCalls >= POKE_EVERY) {
      this.syncCalls = 0;
      if (this.retired) return;
      this.api.poke();
      this.check("during poke");
    }
  }

  decide(fields) { return new Answer(this.answer(this.call("kamuiDecide", this.write(fields)))); }
  lookups(token, fields) { return new Answer(this.answer(this.call("kamuiLookups", token, this.write(fields)))); }
  finish(token, fields) { return new Answer(this.answer(this.call("kamuiFinish", token, this.write(fields)))); }
  puts() { return new Answer(this.answer(this.call("kamuiPuts"))); }
  remember(fields) {
    this.call("kamuiRemember", this.write(fields));
    this.tick();
  }

  // run hands token's exchange to a runner and resolves with its answer's fields and body
  // object once it is done. A call that fails (the instance stopped in it, or had stopped)
  // rejects the same promise, the one the request awaits: a rejection thrown here instead
  // would leave the wait, rejected by retire or never settled, with nobody to hear it.
  run(token) {
    const done = new Promise((resolve, reject) => this.running.set(token, { resolve, reject }));
    this.active = token;
    try {
      this.ran(this.call("kamuiRun", token));
    } catch (err) {
      this.fail(token, err);
    } finally {
      this.active = undefined;
    }
    return done;
  }

  // ran takes what run or settle returned: nothing while the runner waits, else its answer,
  // read now (the next call into Go may reuse the memory) and handed to the request by token.
  ran(n) {
    if (n === 0) {
      this.tick();
      return;
    }
    const fields = this.answer(n);
    const object = this.io.object;
    this.io.object = null;
    const waiter = this.running.get(Number(fields[1]));
    if (!waiter) return;
    this.running.delete(Number(fields[1]));
    waiter.resolve([fields, object]);
  }

  // settle completes a binding read a runner waits for. A read that comes back to a retired
  // instance fails the request that made it, in this event of its own (retire says why).
  settle(id, ok, value) {
    const token = this.reads.get(id);
    this.reads.delete(id);
    if (this.retired) {
      this.fail(token, new Error("the edge's Go instance was retired"));
      return;
    }
    this.io.value = value;
    this.active = token;
    try {
      this.ran(this.call("kamuiSettle", id, ok ? 1 : 0));
    } catch (err) {
      this.fail(token, err); // the instance stopped in the call (and was retired)
    } finally {
      this.io.value = null;
      this.active = undefined;
    }
  }
}

// Answer is a cursor over an answer's fields; the constructor prints its log lines.
class Answer {
  constructor(fields) {
    if (fields === null) throw new Error("edge adapter failed");
    this.f = fields;
    this.i = 0;
    this.kind = this.next();
    this.token = this.int();
    for (let k = this.int(); k > 0; k--) console.log(this.next());
    if (this.kind === "X") throw new Error("edge adapter lost the request");
  }
  next() { return this.f[this.i++]; }
  int() { return Number(this.f[this.i++]); }
  header() {
    const h = [];
    for (let k = this.int(); k > 0; k--) h.push([this.next(), this.next()]);
    return h;
  }
  // puts reads the count of route-cache entries waiting in Go and, if there are any, asks for
  // them once the response is on its way.
  puts(g, ctx) {
    if (this.int() > 0) ctx.waitUntil(afterResponse().then(() => storeWaiting(g)).catch(logPutFailure));
  }
}

function pushHeaders(fields, headers) {
  const at = fields.length;
  fields.push("0");
  let n = 0;
  for (const [name, value] of headers) {
    fields.push(name, value);
    n++;
  }
  fields[at] = String(n);
}

// lookup makes one Cache API lookup the core asked for and returns its fields and the
// entry, whose body (a content entry's) stays here.
async function lookup(key) {
  const f = [];
  try {
    const hit = await caches.default.match(key);
    if (!hit) {
      f.push("M");
      return { f };
    }
    f.push("H", String(hit.status));
    pushHeaders(f, hit.headers);
    return { f, hit };
  } catch (err) {
    f.push("E", "match: " + fieldMessage(err));
    return { f };
  }
}

// objectFields are the metadata of a static object the core uses, in wire.ObjectHeader's
// order: Content-Type, ETag, Last-Modified, Content-Length ("" when unknown). A Content-Type
// holding a control character (CR/LF would split a header; the bucket's binding stores one)
// throws, its body released: the read fails, a static-error, as a manifest's bad type does,
// rather than the response the core planned with it throwing after it was logged as served.
function objectFields(o) {
  const ct = o.httpMetadata && typeof o.httpMetadata.contentType === "string" ? o.httpMetadata.contentType : "";
  if (CONTROL.test(ct)) {
    release(o);
    throw new Error("the object's Content-Type is not a header value");
  }
  const etag = typeof o.httpEtag === "string" ? o.httpEtag : "";
  const modified = o.uploaded instanceof Date ? o.uploaded.toUTCString() : "";
  const size = Number.isSafeInteger(o.size) ? String(o.size) : "";
  return [ct, etag, modified, size];
}

// CONTROL matches what no header value may hold (RFC 9110 §5.5: a control character, HTAB
// aside).
const CONTROL = /[\0-\x08\x0a-\x1f\x7f]/;

// readObject makes the static object read the core named (a site's file, with its body) and
// returns its fields and the object, whose body stays here. The bucket is the one the core
// reads too (io.static, set by init from the binding contract).
async function readObject(io, key) {
  try {
    const o = await io.static.get(key);
    if (!o) return { f: ["M"] };
    return { f: ["H", ...objectFields(o)], o };
  } catch (err) {
    return { f: ["E", "get: " + fieldMessage(err)] };
  }
}

// readBinding makes the binding read the core named instead of reading it through io itself
// (the same reads as io.kv and io.text) and returns its fields: "M" when there is no value,
// "E" and the message when the read failed, "N" when the value holds a NUL (no field may),
// else "H" and the text.
async function readBinding(env, kind, binding, key, parameter) {
  try {
    const b = env[binding];
    const n = Number(parameter); // KV's cacheTtl, or the text's size limit
    const text = kind === "K" ? await kvText(b, key, n) : await objectText(b, key, n);
    if (text === null) return ["M"];
    if (text.includes("\0")) return ["N"];
    return ["H", text];
  } catch (err) {
    return ["E", fieldMessage(err)];
  }
}

// kvText reads one KV key as text with the core's cacheTtl (seconds); null when absent.
function kvText(namespace, key, cacheTtl) {
  return namespace.get(key, { type: "text", cacheTtl });
}

// fieldMessage is a rejection's message as a wire field may carry it (no NUL).
function fieldMessage(err) {
  return err && err.message ? String(err.message).replaceAll("\0", "") : "rejected";
}

// objectText reads a whole object as text (a site manifest); null when absent. Its size is
// checked before its body is read: a larger object rejects and its stream is released.
async function objectText(bucket, key, limit) {
  const o = await bucket.get(key);
  if (!o) return null;
  if (!(o.size <= limit)) {
    o.body.cancel().catch(() => {});
    throw new Error("object of " + o.size + " bytes is larger than " + limit);
  }
  return await o.text();
}

// rememberLater hands the core a route lookup its request was answered without, in the
// background: a hit only (the core has nothing to remember of a miss or a failure). Its
// failure costs no more than the route lookup it would have saved, and is not surfaced.
function rememberLater(g, ctx, key, lookup) {
  ctx.waitUntil(lookup.then(([, r]) => {
    release(r.hit);
    if (r.f[0] !== "H") return;
    g.remember([key, ...r.f]);
  }).catch(() => {}));
}

// release cancels the body of a looked-up entry or a read object the answer does not use,
// rather than leave it to the runtime.
function release(source) {
  if (source && source.body && !source.bodyUsed) source.body.cancel().catch(() => {});
}

// ioHelpers are what the Go adapter reads the bindings through when it runs a request with
// I/O, as each instance's io (settling). Go calls each helper with the id of its wait last;
// the helper returns nothing and settles the wait through the instance's settle (the
// kamuiSettle export) with io.value holding the answer (null for none) or, when not ok, the
// rejection's message. io.object carries a finished run's body object out of Go.
const ioHelpers = {
  // sleep lets a Go goroutine wait on a timer of its own request context.
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  // kv reads one key as text, as kvText does.
  kv: kvText,
  // kvBytes reads a binary value (the name filter) as bytes; null when absent.
  async kvBytes(namespace, key, cacheTtl) {
    const b = await namespace.get(key, { type: "arrayBuffer", cacheTtl });
    return b === null ? null : new Uint8Array(b);
  },
  // match is a Cache API lookup the core makes itself: the lookup's fields and the entry.
  async match(key) {
    const { f, hit } = await lookup(key);
    return { f: f.join("\0") + "\0", r: hit || null };
  },
  // r2 reads a static object (or only its metadata); the headers the core uses travel as
  // fields (Content-Type, ETag, Last-Modified, Content-Length), the object stays here for
  // its body. The whole object is read: the core decides 304/206 from this metadata and
  // respond sends the part it names, as it does for a content-cache entry.
  async r2(bucket, key, withBody) {
    const o = withBody ? await bucket.get(key) : await bucket.head(key);
    if (!o) return null;
    return { h: objectFields(o).join("\0") + "\0", o };
  },
  // text reads a whole object as text (a site manifest), as objectText does.
  text: objectText,
};

// settling is g's io: the helpers, each settling its wait in g.
function settling(g, helpers) {
  const out = { value: null, object: null };
  for (const [name, f] of Object.entries(helpers)) {
    out[name] = (...args) => {
      const id = args.pop();
      g.reads.set(id, g.active);
      let p;
      try {
        p = Promise.resolve(f(...args));
      } catch (err) {
        p = Promise.reject(err);
      }
      p.then(
        (v) => g.settle(id, true, v === undefined ? null : v),
        (err) => g.settle(id, false, err && err.message ? String(err.message) : "rejected"),
      );
    };
  }
  return out;
}

async function serve(g, request, env, ctx) {
  g.configure(env);
  const fields = [crypto.randomUUID(), request.method, request.url];
  pushHeaders(fields, request.headers);
  let a = g.decide(fields);
  // The lookups the core names run side by side; the core hears of each as soon as it
  // is back, so a content hit or a dynamic route-cache entry need not wait for the other.
  // The object read comes last, once the core knows everything else about the answer, or
  // beside the record's read when the core already knows which object the answer most
  // likely takes (edge/ahead.go); a binding read (a KV value, a manifest) once the core knows
  // which one it needs.
  let cached, object, objectKey, routeKey, aheadMade = false;
  const pending = [undefined, undefined, undefined, undefined, undefined]; // content, route, object, read, ahead
  while (a.kind === "L") {
    const keys = [a.next(), a.next(), a.next()];
    const read = [a.next(), a.next(), a.next(), a.next()]; // kind, binding, key, parameter
    const ahead = [a.next(), a.next(), a.next(), a.next()];
    // The route lookup is made first: a dynamic route needs only it, and a cache that serves
    // lookups in order then answers it before the content lookup.
    for (const i of [1, 0]) {
      if (keys[i] && !pending[i]) pending[i] = lookup(keys[i]).then((r) => [i, r]);
    }
    if (keys[1]) routeKey = keys[1];
    if (keys[2] && keys[2] !== objectKey) {
      // Another object than the one read before (the route moved between two passes, or the
      // one read ahead is not the one the record and manifest name): the first one's body is
      // not going to be sent. The same key named again is the read already made or out.
      objectKey = keys[2];
      release(object);
      object = undefined;
      if (pending[2]) pending[2].then(([, r]) => release(r.o));
      pending[2] = readObject(g.io, keys[2]).then((r) => [2, r]);
    }
    // A read still out is the one named again (the core names its next read only once it
    // has this one's text).
    if (read[0] && !pending[3]) pending[3] = readBinding(env, ...read).then((f) => [3, { f }]);
    // The read ahead (a site's manifest beside its record's read) is made once; named again
    // while it is out, it is that read.
    if (ahead[0] && !aheadMade) {
      aheadMade = true;
      pending[4] = readBinding(env, ...ahead).then((f) => [4, { f }]);
    }
    const [i, r] = await Promise.race(pending.filter(Boolean));
    pending[i] = undefined;
    const parts = [[""], [""], [""], [""], [""]];
    parts[i] = r.f;
    if (i === 1 && r.f[0] === "M" && pending[0]) {
      // A route-cache miss alone lets the core decide nothing (the route is then KV's, and a
      // GET still needs its content lookup): the core hears of it with the content lookup.
      const [, c] = await pending[0];
      pending[0] = undefined;
      parts[0] = c.f;
      if (c.hit) cached = c.hit;
    }
    if (i === 0 && r.hit) cached = r.hit;
    if (i === 2 && r.o) object = r.o;
    a = g.lookups(a.token, parts.flat());
  }
  // A route lookup the answer came without (a content hit is served as soon as it is back)
  // goes to the core once it is back, so that the host's next requests need none.
  if (pending[1]) rememberLater(g, ctx, routeKey, pending[1]);
  // An object read still out is one the answer does without (one read ahead, when the record
  // turned out to name something else): its body is released once it is back.
  if (pending[2]) pending[2].then(([, r]) => release(r.o));
  if (a.kind === "W") {
    const [fields, obj] = await g.run(a.token);
    a = new Answer(fields);
    if (obj) {
      if (obj !== object) release(object);
      object = obj;
    }
  }
  if (a.kind === "F") {
    release(object);
    return forward(g, request, a, ctx);
  }
  return respond(g, a, cached, object, ctx);
}

// respond builds the core's own, cached or static response; with a store key it also puts
// a copy (a tee of the stream) into the content cache with the core's stored headers.
function respond(g, a, cached, object, ctx) {
  const status = a.int(), bodyKind = a.next(), text = a.next();
  const offset = a.next(), length = a.next();
  const headers = a.header(), storeKey = a.next(), storeHeaders = a.header();
  a.puts(g, ctx);
  let body = null;
  if (bodyKind === "T") body = text;
  else if (bodyKind === "C" && cached) body = cached.body;
  else if (bodyKind === "O" && object) body = object.body;
  // A body the core did not ask for (a 304's) is released rather than left to the runtime.
  for (const source of [cached, object]) {
    if (source && source.body !== body) release(source);
  }
  if (storeKey !== "" && body) {
    let copy = body;
    if (typeof body !== "string") {
      [body, copy] = body.tee();
      copy = withLength(copy, storeHeaders);
    }
    putLater(ctx, storeKey, new Response(copy, { status, headers: storeHeaders }));
  }
  if (body && typeof body !== "string") {
    if (length !== "") body = slice(body, Number(offset), Number(length));
    body = withLength(body, headers);
  }
  return new Response(body, { status, headers });
}

// withLength gives a stream the length its headers name, if they name one: workerd ignores a
// Content-Length header given with a stream (and a tee loses the source's length), so
// without it the body would leave chunked, to the client or into the content cache.
function withLength(stream, headers) {
  const size = headers.find(([name]) => name.toLowerCase() === "content-length");
  return size ? stream.pipeThrough(new FixedLengthStream(Number(size[1]))) : stream;
}

// slice is the part of a stream the core's 206 names: length bytes from offset. Reading
// stops at the end of the part; the bytes before it are read and dropped.
function slice(stream, offset, length) {
  let skip = offset, left = length;
  const part = new TransformStream({
    transform(chunk, controller) {
      const from = Math.min(skip, chunk.byteLength);
      skip -= from;
      const take = chunk.subarray(from, from + Math.min(left, chunk.byteLength - from));
      left -= take.byteLength;
      if (take.byteLength) controller.enqueue(take);
      if (left === 0) controller.terminate();
    },
  });
  return stream.pipeThrough(part);
}

// forward carries out the core's upstream plan with the received body stream and an
// AbortController timeout that covers the wait for response headers, then applies the
// core's header edits; the body (or the WebSocket) passes through untouched.
async function forward(g, request, a, ctx) {
  const token = a.token;
  const method = a.next(), url = a.next(), timeoutMs = a.int(), webSocket = a.next() === "1";
  const headers = a.header();
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => { timedOut = true; controller.abort(); }, timeoutMs);
  let response, outcome = "ok", detail = "";
  try {
    // cache: "no-store": every app is forwarded to the same tunnel origin URL, and only the
    // signed Kamui-* headers say which tenant a request is for, so a zone cache keyed by URL
    // would hand one tenant's answer to another. The origin fetch never reads or fills it.
    const init = { method, headers, redirect: "manual", signal: controller.signal, cache: "no-store" };
    if (method !== "GET" && method !== "HEAD" && !webSocket) init.body = request.body;
    response = await fetch(url, init);
  } catch (err) {
    outcome = timedOut ? "timeout" : "error";
    detail = "upstream fetch failed: " + (err && err.name ? err.name : "error");
  } finally {
    clearTimeout(timer);
  }
  // A status no Response may carry (an upstream may send up to 999; only a WebSocket's 101
  // is below 200) would make the answer throw after the core logged it as served: it is a
  // failed upstream, answered and logged as one.
  if (response && !response.webSocket && !(response.status >= 200 && response.status <= 599)) {
    release(response);
    outcome = "error";
    detail = "upstream answered status " + response.status;
    response = undefined;
  }
  // The route-cache entries are asked for once the upstream has answered, so that making
  // and storing them never queues ahead of the request's own fetch.
  a.puts(g, ctx);
  const fields = [outcome, response ? String(response.status) : "0", detail];
  const at = fields.length;
  fields.push("0");
  if (response) {
    for (const [name] of response.headers) fields.push(name);
    fields[at] = String(fields.length - at - 1);
  }
  const e = g.finish(token, fields);
  if (e.kind === "R") return respond(g, e, undefined, undefined, ctx);
  const edited = new Headers(response.headers);
  for (let k = e.int(); k > 0; k--) edited.delete(e.next());
  for (const [name, value] of e.header()) edited.set(name, value);
  const init = { status: response.status, statusText: response.statusText, headers: edited };
  if (response.webSocket) init.webSocket = response.webSocket;
  const nullBody = response.status === 101 || response.status === 204 || response.status === 304;
  return new Response(nullBody ? null : response.body, init);
}

// storeWaiting has Go make the route-cache entries its answers planned (every one waiting,
// whichever request planned it) and stores them. Making an entry is Go work a request's own
// passes no longer wait for: it runs here, after the response.
function storeWaiting(g) {
  // The entries of an instance retired since went with its program: nothing failed to store.
  if (g.retired) return Promise.resolve();
  const a = g.puts();
  const stored = [];
  for (let k = a.int(); k > 0; k--) {
    const key = a.next(), status = a.int(), headers = a.header(), body = a.next();
    stored.push(caches.default.put(key, new Response(body, { status, headers })).catch(logPutFailure));
  }
  return Promise.all(stored);
}

// putLater stores response under key in the background, once the request's own response is
// on its way: the put starts on a timer, after this turn of the event loop returns the
// response. In workerd a put started before the response leaves delays it: a cold request to
// a custom host took 2–4 ms longer with its route-cache puts started inline (js-seed, the
// bench's yardstick, defers its puts the same way). A copy of a body (the content put's tee)
// waits in memory meanwhile, for no more than that turn.
function putLater(ctx, key, response) {
  ctx.waitUntil(afterResponse().then(() => caches.default.put(key, response)).catch(logPutFailure));
}

function afterResponse() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

// A failed put only costs a lookup later; it is logged, never surfaced to the client.
function logPutFailure(err) {
  console.log(JSON.stringify({ msg: "edge.cache_put_failed", error: err && err.name ? err.name : "error" }));
}

function failClosed() {
  // The Go core could not run (it failed to start, lost the request, or stopped while
  // deciding it): a fixed answer, never a routed request.
  const id = crypto.randomUUID();
  console.log(JSON.stringify({ msg: "edge.request", request_id: id, outcome: "adapter-failure", status: 500 }));
  return new Response("Internal error at the edge.\nRequest ID: " + id + "\n", {
    status: 500,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", "X-Request-Id": id },
  });
}

export default {
  async fetch(request, env, ctx) {
    try {
      return await serve(await start(), request, env, ctx);
    } catch {
      return failClosed();
    }
  },
};
