'use strict';
// Shared by the JS client checks: the shared server's address and devnet
// values (from the environment .ci/clients.sh sets, read on first use), raw
// HTTP calls that bypass every client, a field-by-field comparison of a
// client's decoded value with the raw JSON answer, a `w3api serve` and a
// webhook receiver of a check's own, and a tiny check runner that ends with
// the line `N passed, N failed`.

const fs = require('node:fs');

function env(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (run through .ci/clients.sh)`);
  return value;
}

// The shared server's address, key and devnet values, read on first use: a
// check that starts a server of its own (moralis-streams.cjs, dashboard.cjs)
// loads this file without them.
let sharedValues;
function shared() {
  if (!sharedValues) {
    const url = env('W3API_URL').replace(/\/$/, '');
    const key = env('W3API_API_KEY');
    sharedValues = {
      URL: url, KEY: key, RPC_URL: `${url}/eth/${key}`,
      fixture: JSON.parse(fs.readFileSync(env('W3API_CLIENTS_FIXTURE'), 'utf8')),
    };
  }
  return sharedValues;
}

let rawId = 1000;
/** The raw JSON-RPC answer (the whole envelope) to one call, by plain HTTP POST. */
async function rawRpc(method, params = []) {
  const res = await fetch(shared().RPC_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: rawId++, method, params }),
    signal: AbortSignal.timeout(20000),
  });
  const text = await res.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${method}: HTTP ${res.status}, not JSON: ${text.slice(0, 200)}`);
  }
  return body;
}

/** The raw result of one JSON-RPC call; throws with the server's error when it answers one. */
async function rawResult(method, params = []) {
  const body = await rawRpc(method, params);
  if (body.error) {
    const e = new Error(`raw ${method}: JSON-RPC error ${body.error.code} ${body.error.message}`);
    e.rpcError = body.error;
    throw e;
  }
  if (!('result' in body)) throw new Error(`raw ${method}: neither result nor error: ${JSON.stringify(body)}`);
  return body.result;
}

/** The raw JSON body of a REST GET (header X-API-Key); throws on a non-2xx status. */
async function rawGet(path, query = {}) {
  const u = new URL(shared().URL + path);
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    for (const item of Array.isArray(v) ? v : [v]) u.searchParams.append(k, String(item));
  }
  const res = await fetch(u, { headers: { 'x-api-key': shared().KEY }, signal: AbortSignal.timeout(20000) });
  const text = await res.text();
  if (!res.ok) throw new Error(`GET ${u.pathname}${u.search}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** Raw REST POST with a JSON body; returns {status, body}. */
async function rawPost(path, body) {
  const res = await fetch(shared().URL + path, {
    method: 'POST',
    headers: { 'x-api-key': shared().KEY, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(20000),
  });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, body: json };
}

// ---------------------------------------------------------------------------
// Comparison of a client's decoded value with the raw JSON value.
//
// A spec says how the client names and shapes the raw object's fields:
//   { alias: { rawKey: 'clientKey' | (clientObj, rawValue, rawObj) => value | SKIP },
//     nested: { rawKey: spec }, enums: { rawKey: { rawValue: clientValue } },
//     keyMap: (rawKey) => clientKey (tried first, at every depth) }
// Every field of the raw object that the client exposes (not undefined) is
// compared; the fields it does not expose are counted, not failed.

const SKIP = Symbol('skip');
const HEX = /^0x[0-9a-fA-F]*$/;
const QUANTITY_KEYS = /\.(r|s)$/;

function show(v) {
  if (typeof v === 'bigint') return `${v}n`;
  if (v instanceof Uint8Array) return `bytes(0x${Buffer.from(v).toString('hex')})`;
  try {
    const s = JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? `${x}n` : x));
    return s === undefined ? String(v) : s.length > 160 ? s.slice(0, 160) + '…' : s;
  } catch {
    return String(v);
  }
}

class Comparison {
  constructor() {
    this.mismatches = [];
    this.compared = 0;
    this.hidden = new Set();
  }
  fail(path, client, raw, why = '') {
    this.mismatches.push(`${path}: client ${show(client)} != raw ${show(raw)}${why ? ` (${why})` : ''}`);
  }
  value(client, raw, path, spec) {
    if (spec && (spec.alias || spec.nested || spec.enums || spec.keyMap) && raw && typeof raw === 'object' && !Array.isArray(raw)) {
      return this.object(client, raw, path, spec);
    }
    if (raw === null || raw === undefined) {
      this.compared++;
      if (client !== null && client !== undefined) this.fail(path, client, raw);
      return;
    }
    if (Array.isArray(raw)) {
      if (!Array.isArray(client)) return this.fail(path, client, raw, 'not an array');
      if (client.length !== raw.length) return this.fail(path, `length ${client.length}`, `length ${raw.length}`);
      raw.forEach((r, i) => this.value(client[i], r, `${path}[${i}]`, spec));
      return;
    }
    if (typeof raw === 'object') return this.object(client, raw, path, spec || {});
    this.compared++;
    if (typeof raw === 'boolean' || typeof raw === 'number') {
      const c = typeof client === 'bigint' ? Number(client) : client;
      if (c !== raw) this.fail(path, client, raw);
      return;
    }
    // raw is a string
    if (client instanceof Date) {
      // a timestamp the client decoded: the same instant
      if (Number.isNaN(Date.parse(raw)) || Date.parse(raw) !== client.getTime()) this.fail(path, client, raw);
      return;
    }
    if (QUANTITY_KEYS.test(path) && HEX.test(raw) && raw !== '0x') {
      // Signature values are quantities in the execution API ("0xf05..."),
      // 32-byte strings in some clients ("0x0f05..."): compare the numbers.
      if (client instanceof Uint8Array) client = '0x' + Buffer.from(client).toString('hex');
      let n;
      try {
        n = BigInt(client);
      } catch {
        return this.fail(path, client, raw);
      }
      if (n !== BigInt(raw)) this.fail(path, client, raw);
      return;
    }
    if (HEX.test(raw)) {
      if (typeof client === 'bigint' || typeof client === 'number') {
        if (raw === '0x' || BigInt(raw) !== BigInt(client)) this.fail(path, client, raw);
        return;
      }
      if (client instanceof Uint8Array) client = '0x' + Buffer.from(client).toString('hex');
      if (typeof client !== 'string' || client.toLowerCase() !== raw.toLowerCase()) this.fail(path, client, raw);
      return;
    }
    if (typeof client === 'number' || typeof client === 'bigint') {
      // a decimal string the client decoded into a number
      if (!/^-?\d+$/.test(raw) || BigInt(raw) !== BigInt(client)) this.fail(path, client, raw);
      return;
    }
    if (client !== raw) this.fail(path, client, raw);
  }
  object(client, raw, path, spec) {
    if (client === null || client === undefined || typeof client !== 'object') {
      return this.fail(path, client, raw, 'not an object');
    }
    for (const [key, rawValue] of Object.entries(raw)) {
      const p = `${path}.${key}`;
      const alias = spec.alias && spec.alias[key];
      let c;
      if (typeof alias === 'function') c = alias(client, rawValue, raw);
      else if (alias) c = client[alias];
      else if (spec.keyMap && client[spec.keyMap(key)] !== undefined) c = client[spec.keyMap(key)];
      else c = client[key];
      if (c === SKIP) continue;
      if (c === undefined && rawValue !== undefined) {
        this.hidden.add(key);
        continue;
      }
      if (spec.enums && spec.enums[key] && typeof rawValue === 'string' && rawValue in spec.enums[key]) {
        this.compared++;
        if (c !== spec.enums[key][rawValue]) this.fail(p, c, rawValue, `expected ${show(spec.enums[key][rawValue])}`);
        continue;
      }
      const nested = (spec.nested && spec.nested[key]) || (spec.keyMap ? { keyMap: spec.keyMap } : undefined);
      this.value(c, rawValue, p, nested);
    }
  }
}

/** Compares and throws one error listing every mismatch; returns the number of fields compared. */
function expectSame(client, raw, what, spec) {
  const cmp = new Comparison();
  cmp.value(client, raw, what, spec);
  if (cmp.mismatches.length) {
    const list = cmp.mismatches.slice(0, 12).join('\n      ');
    const more = cmp.mismatches.length > 12 ? `\n      … ${cmp.mismatches.length - 12} more` : '';
    throw new Error(`${cmp.mismatches.length} mismatch(es):\n      ${list}${more}`);
  }
  if (cmp.compared === 0) throw new Error(`${what}: nothing compared (the client exposes none of the raw fields)`);
  return cmp;
}

// ---------------------------------------------------------------------------
// Check runner.

function runner(suite) {
  const results = [];
  async function check(name, fn) {
    const started = Date.now();
    try {
      const note = await Promise.race([
        fn(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('timed out after 60 s')), 60000).unref()),
      ]);
      results.push({ name, ok: true });
      const extra = note && typeof note === 'object' && note.compared !== undefined
        ? ` (${note.note ? `${note.note}, ` : ''}${note.compared} values${note.hidden && note.hidden.size ? `; not exposed: ${[...note.hidden].sort().join(',')}` : ''})`
        : typeof note === 'string' ? ` (${note})` : '';
      console.log(`ok   ${suite}: ${name}${extra} [${Date.now() - started} ms]`);
    } catch (e) {
      results.push({ name, ok: false });
      const message = (e && (e.shortMessage || e.message)) || String(e);
      console.log(`FAIL ${suite}: ${name}\n      ${message.split('\n').join('\n      ')}`);
    }
  }
  function fatal(e) {
    results.push({ name: 'setup', ok: false });
    console.log(`FAIL ${suite}: setup\n      ${(e && e.stack) || e}`);
  }
  function done() {
    const passed = results.filter((r) => r.ok).length;
    const failed = results.length - passed;
    console.log(`${suite}: ${passed} passed, ${failed} failed`);
    process.exitCode = failed ? 1 : 0;
  }
  return { check, done, fatal };
}

/** Runs fn, which must throw; returns the error. */
async function mustThrow(fn, what) {
  let value;
  try {
    value = await fn();
  } catch (e) {
    return e;
  }
  throw new Error(`${what}: the client returned ${show(value)} instead of an error`);
}

/** The client's error must carry the server's JSON-RPC error code. */
function sameRpcError(code, rawError, what) {
  if (code !== rawError.code) throw new Error(`${what}: the client's error has code ${show(code)}, the server answered ${rawError.code} ${rawError.message}`);
}

/** The raw answer must be a JSON-RPC error (not a result). */
async function expectRawError(method, params) {
  const body = await rawRpc(method, params);
  if (!body.error || 'result' in body) throw new Error(`raw ${method}: expected a JSON-RPC error, got ${show(body)}`);
  return body.error;
}

function assert(cond, message) {
  if (!cond) throw new Error(message);
}

// ---------------------------------------------------------------------------
// A server and webhook receivers of a check's own.

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves to true when promise settles within ms, false otherwise. */
function within(promise, ms) {
  let timer;
  return Promise.race([
    promise.then(() => true, () => true),
    new Promise((resolve) => { timer = setTimeout(() => resolve(false), ms); }),
  ]).finally(() => clearTimeout(timer));
}

/** Polls fn until it returns a truthy value; throws after ms with what was last seen. */
async function waitFor(what, fn, ms = 30000, every = 200) {
  const deadline = Date.now() + ms;
  let last = '';
  for (;;) {
    try {
      const value = await fn();
      if (value) return value;
    } catch (e) {
      last = e.message;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s${last ? ` (last: ${last})` : ''}`);
    await sleep(every);
  }
}

/** Plain HTTP to base + path with the key; returns {status, headers, text, json}. */
async function call(base, key, method, path, body) {
  const headers = {};
  if (key) headers['x-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(20000),
  });
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch { /* not JSON */ }
  return { status: res.status, headers: res.headers, text, json };
}

/**
 * `$W3API_BIN serve --listen 127.0.0.1:0 ARGS` of a check's own; resolves to
 * {url, stop, stderr()} once it prints `listening on` (at most 60 s). stop()
 * sends SIGTERM, then SIGKILL after 10 s.
 */
function startServer(args) {
  const { spawn } = require('node:child_process');
  const bin = env('W3API_BIN');
  const child = spawn(bin, ['serve', '--listen', '127.0.0.1:0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (chunk) => { err = (err + chunk).slice(-20000); });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal || code)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    if (!(await within(exited, 10000))) {
      child.kill('SIGKILL');
      await within(exited, 5000);
    }
  };
  const alive = () => child.exitCode === null && child.signalCode === null;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error('w3api serve printed no "listening on" line within 60 s'));
    }, 60000);
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk; // read to the end, so the pipe never fills
      const match = out.match(/^listening on (\S+)$/m);
      if (match && timer) {
        clearTimeout(timer);
        const url = match[1].replace(/\/$/, '');
        if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(url)) {
          stop();
          reject(new Error(`w3api serve listens on ${url}, not loopback`));
        }
        resolve({ url, stop, alive, stderr: () => err.split('\n').slice(-20).join('\n') });
      }
    });
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`cannot start ${bin}: ${e.message}`));
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`w3api serve exited (${code}) before listening\n${err}`));
    });
  });
}

/**
 * A webhook receiver on 127.0.0.1 (a free port) that answers 200 and keeps
 * every request: {body (the exact text), json, signature (x-signature),
 * headers, at, status}. Resolves to {url, requests, close()}.
 * options.answer(request, earlier): the HTTP status to answer instead
 * (earlier: the requests kept before this one).
 */
function startReceiver(options = {}) {
  const http = require('node:http');
  const requests = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json = null;
      try {
        json = JSON.parse(body);
      } catch { /* kept as text */ }
      const request = { method: req.method, url: req.url, headers: req.headers, signature: req.headers['x-signature'], body, json, at: Date.now() };
      request.status = options.answer ? options.answer(request, requests) : 200;
      requests.push(request);
      res.writeHead(request.status, { 'content-type': 'application/json' });
      res.end(request.status < 300 ? '{"ok":true}' : '{"ok":false}');
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve({
      url: `http://127.0.0.1:${server.address().port}/hook`,
      requests,
      close: () => within(new Promise((r) => {
        server.close(r);
        server.closeAllConnections();
      }), 5000),
    }));
  });
}

module.exports = {
  rawRpc, rawResult, rawGet, rawPost,
  SKIP, Comparison, expectSame, runner, mustThrow, expectRawError, sameRpcError, assert, show,
  call, startServer, startReceiver, within, waitFor, sleep,
};
for (const name of ['URL', 'KEY', 'RPC_URL', 'fixture']) {
  Object.defineProperty(module.exports, name, { enumerable: true, get: () => shared()[name] });
}
