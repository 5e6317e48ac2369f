// The game catalog's HTTP contract on Cloudflare Workers, answered from the route table.
//
// Written by `catalogctl build --target cloudflare` beside routes.json, which holds every
// route, header, page and the problem template: this module only reads it. The documents are
// the static assets (public/), read once per isolate through the ASSETS binding, checked
// against the table (size and SHA-256) and sent as they are: a precompressed variant goes out
// with `encodeBody: "manual"`, so the runtime never compresses it a second time.
//
// The decisions are those of `catalogctl serve` (docs/reference/http.md): an invalid Host is a
// 400; an expectation other than 100-continue a 417; a method other than GET/HEAD the 403
// page; content with GET/HEAD a 413; a request target with bytes outside printable ASCII a
// 400; an unknown path under /api/ the contract's §7 problem with the path as sent (`instance`);
// other unknown paths the 404 page; a known path the variant chosen by Accept-Encoding
// (q-values; ties by the server's preference, br then gzip), a 412 when If-Match names none of
// its ETags, or a 304 when If-None-Match names its ETag. Every answer carries a Date header
// (a plain workerd sends none); every error the contract's error headers.
import table from "./routes.json";

const routes = new Map(Object.entries(table.routes));
const methods = new Set(table.methods);
const pages = table.pages;
const problems = table.problems;
const notFound = table.not_found;
const PRINTABLE = /^[\x21-\x7e]*$/;
const NOT_ASCII = /[\u007f-\uffff]/g;
// RFC 9110 §7.2: Host = uri-host [ ":" port ] (an IP-literal or an RFC 3986 reg-name, which
// covers IPv4; `%` starts two hex digits). Two Host lines arrive joined: "a, b" is invalid.
const HOST = /^(?!.*%(?![0-9A-Fa-f]{2}))(?:\[[0-9A-Fa-f:.]+\]|[-0-9A-Za-z._~!$&'()*+,;=%]*)(?::[0-9]*)?$/;
const ASSETS = "https://assets.invalid/";
// Verified document bytes kept per isolate (file -> Promise<Uint8Array>), up to this total.
const KEEP_BYTES = 64 * 1024 * 1024;
const kept = new Map();
let keptBytes = 0;

export default {
  async fetch(request, env) {
    const response = await answer(request, env);
    response.headers.set("Date", new Date().toUTCString()); // RFC 9110 §6.6.1 (IMF-fixdate)
    return response;
  },
};

async function answer(request, env) {
  const headers = request.headers;
  const host = headers.get("Host");
  if (host !== null && !HOST.test(host)) return page(problems["400"]);
  const expect = headers.get("Expect");
  if (expect !== null && expect.trim().toLowerCase() !== "100-continue") {
    return page(problems["417"]);
  }
  if (!methods.has(request.method)) return page(pages["403"]);
  if (hasContent(headers)) return page(problems["413"]);
  const target = requestTarget(request);
  if (!PRINTABLE.test(target)) return page(problems["400"]);
  const query = target.indexOf("?");
  const path = query < 0 ? target : target.slice(0, query);
  const route = routes.get(path);
  if (route === undefined) {
    return path.startsWith(notFound.prefix) ? problem(path) : page(pages["404"]);
  }
  const coding = chooseEncoding(acceptEncoding(request), route.encodings);
  const variant = route.variants[coding];
  // RFC 9110 §13.2.2: If-Match first (If-Unmodified-Since is ignored: no Last-Modified is sent)
  const ifMatch = headers.get("If-Match");
  if (ifMatch !== null && !ifMatchHolds(ifMatch, variant.etag)) return page(problems["412"]);
  const ifNoneMatch = headers.get("If-None-Match");
  if (ifNoneMatch !== null && etagMatches(ifNoneMatch, variant.etag)) {
    return new Response(null, { status: 304, headers: variant.not_modified });
  }
  let body;
  try {
    body = await documentBytes(env, variant);
  } catch (error) {
    console.error(`catalog: cannot read ${variant.file}: ${error}`);
    return page(problems["500"]);
  }
  // For HEAD the runtime sends the headers (Content-Length too) and drops the body.
  return new Response(body, { status: 200, headers: variant.headers, encodeBody: "manual" });
}

// GET and HEAD take no content: a Transfer-Encoding, or a Content-Length other than 0.
function hasContent(headers) {
  const length = headers.get("Content-Length");
  return headers.has("Transfer-Encoding") || (length !== null && !/^0+$/.test(length));
}

// --- the request target, as sent -----------------------------------------------------------

// `request.url` is the scheme, the Host header and the request target as the client sent it
// (workerd does not normalise it): cut the first two off without parsing the URL, since the
// URL parser would resolve `..`, turn `\` into `/` and %-encode quotes.
function requestTarget(request) {
  const url = request.url;
  const authority = url.indexOf("://") + 3;
  const host = request.headers.get("Host");
  if (host !== null && url.startsWith(host, authority)) {
    const rest = url.slice(authority + host.length);
    if (rest.startsWith("/")) return rest;
  }
  const slash = url.indexOf("/", authority);
  return slash < 0 ? "/" : url.slice(slash);
}

// Cloudflare's edge (and `wrangler dev`) replaces the client's Accept-Encoding with
// "br, gzip" and keeps the client's own in `request.cf.clientAcceptEncoding`: negotiate on the
// client's. A plain workerd passes the header as sent (and no `cf`).
function acceptEncoding(request) {
  const original = request.cf?.clientAcceptEncoding;
  return typeof original === "string" ? original : request.headers.get("Accept-Encoding");
}

// --- answers ----------------------------------------------------------------------------

function page(answer) {
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}

// JSON string of the path, with every character outside printable ASCII escaped as \uXXXX:
// byte for byte what serve writes (Python's json.dumps with ensure_ascii).
function jsonString(text) {
  return JSON.stringify(text).replace(
    NOT_ASCII,
    (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"),
  );
}

function problem(path) {
  const body = notFound.body_prefix + jsonString(path) + notFound.body_suffix;
  return new Response(body, { status: notFound.status, headers: notFound.headers });
}

function documentBytes(env, variant) {
  let bytes = kept.get(variant.file);
  if (bytes === undefined) {
    bytes = readAsset(env, variant);
    if (keptBytes + variant.size <= KEEP_BYTES) {
      kept.set(variant.file, bytes);
      keptBytes += variant.size;
      bytes.catch(() => {
        kept.delete(variant.file);
        keptBytes -= variant.size;
      });
    }
  }
  return bytes;
}

async function readAsset(env, variant) {
  const response = await env.ASSETS.fetch(new Request(ASSETS + variant.file));
  if (response.status !== 200) {
    throw new Error(`the asset server answered ${response.status}`);
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes.byteLength !== variant.size) {
    throw new Error(`${bytes.byteLength} bytes, the route table says ${variant.size}`);
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  if (hex !== variant.sha256) {
    throw new Error("its SHA-256 differs from the route table's (a stale deployment?)");
  }
  return bytes;
}

// --- content negotiation (RFC 9110 §12.5.3), as serve does it ------------------------------

// An element's parameters: `;q=` and a qvalue (RFC 9110 §12.4.2: 0[.ddd] or 1[.000]); any
// other parameters or value (`q=2`, `q=inf`, `q = 1`, `level=1`) count as q=0.
const WEIGHT = /^;[ \t]*[qQ]=(?:(1)(?:\.0{0,3})?|(0(?:\.[0-9]{0,3})?))[ \t]*$/;
const OWS = /^[ \t]+|[ \t]+$/g;

function parseAcceptEncoding(value) {
  const weights = new Map();
  for (const item of value.split(",")) {
    const semi = item.indexOf(";");
    let coding = (semi < 0 ? item : item.slice(0, semi)).replace(OWS, "").toLowerCase();
    if (!coding) continue;
    if (coding === "x-gzip") coding = "gzip"; // RFC 9110 §8.4.1.3
    if (weights.has(coding)) continue; // a coding listed twice: the first element counts
    let q = 1;
    if (semi >= 0) {
      const weight = WEIGHT.exec(item.slice(semi));
      q = weight === null ? 0 : weight[1] !== undefined ? 1 : Number(weight[2]);
    }
    weights.set(coding, q);
  }
  return weights;
}

// The highest q-value among the codings offered, ties by their order (the server's preference).
// No header means identity; identity wins only when listed with a higher q than the choice, and
// is the fallback even when ruled out (the plain bytes beat a 406).
function chooseEncoding(header, offered) {
  if (!header || offered.length === 0) return "identity";
  const weights = parseAcceptEncoding(header);
  const star = weights.get("*");
  let best = "identity";
  let bestQ = 0;
  for (const coding of offered) {
    const q = weights.has(coding) ? weights.get(coding) : (star ?? 0);
    if (q > bestQ) {
      best = coding;
      bestQ = q;
    }
  }
  if (best === "identity" || !weights.has("identity")) return best;
  return weights.get("identity") > bestQ ? "identity" : best;
}

// --- conditional requests ------------------------------------------------------------------

// If-Match (RFC 9110 §13.1.1): "*", or a list of entity tags one of which is the ETag by the
// strong comparison (a weak tag never matches); a malformed field never holds.
function ifMatchHolds(header, etag) {
  const value = header.replace(OWS, "");
  if (value === "*") return true;
  const tags = entityTags(value);
  return tags !== null && tags.includes(etag) && !etag.startsWith("W/");
}

// `#entity-tag` (empty elements allowed), or null when the field is not one.
function entityTags(value) {
  const tags = [];
  let i = 0;
  const n = value.length;
  for (;;) {
    while (i < n && " \t,".includes(value[i])) i++;
    if (i >= n) return tags;
    const start = i;
    if (value.startsWith("W/", i)) i += 2;
    if (value[i] !== '"') return null;
    const end = value.indexOf('"', i + 1);
    if (end < 0 || !ETAGC.test(value.slice(i + 1, end))) return null;
    tags.push(value.slice(start, end + 1));
    i = end + 1;
    while (i < n && " \t".includes(value[i])) i++;
    if (i < n && value[i] !== ",") return null;
  }
}

const ETAGC = /^[\x21\x23-\x7e\x80-\xff]*$/;

// If-None-Match (RFC 9110 §13.1.2): the weak comparison, "*" matches.

function opaque(tag) {
  return tag.startsWith("W/") ? tag.slice(2) : tag;
}

function etagMatches(header, etag) {
  const value = header.trim();
  if (value === "*") return true;
  const want = opaque(etag);
  // Entity tags may hold commas but not quotes: split on the quotes.
  let i = 0;
  const n = value.length;
  while (i < n) {
    while (i < n && " \t,".includes(value[i])) i++;
    if (i >= n) return false;
    const start = i;
    if (value.startsWith("W/", i)) i += 2;
    if (i < n && value[i] === '"') {
      const end = value.indexOf('"', i + 1);
      if (end < 0) return false;
      if (opaque(value.slice(start, end + 1)) === want) return true;
      i = end + 1;
    } else {
      const comma = value.indexOf(",", i);
      i = comma < 0 ? n : comma + 1;
    }
  }
  return false;
}
