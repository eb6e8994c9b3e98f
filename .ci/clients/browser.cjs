'use strict';
// A web page calls the server from a real browser (Debian's chromium, driven
// by playwright-core): the page at http://localhost:3000 fetches wallet
// tokens with its API key header, a JSON-RPC call and a sign-in request,
// each of which makes the browser send a CORS preflight first. A second
// server, restricted with --cors-origin http://localhost:3000, serves that
// page and refuses the same page served from http://127.0.0.1:3000.

const http = require('node:http');
const { spawn } = require('node:child_process');
const { chromium } = require('playwright-core');
const { URL: BASE, KEY, fixture: fx, rawGet, rawResult, expectSame, runner, assert } = require('./lib.cjs');

const PAGE_PORT = 3000;
const ALLOWED = `http://localhost:${PAGE_PORT}`;
const { check, done, fatal } = runner('browser');

/** A blank page on localhost:3000, for as long as the checks run. */
function pageServer() {
  const server = http.createServer((_, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>w3api CORS check</title>');
  });
  return new Promise((resolve, reject) => {
    server.once('error', (e) => reject(new Error(`cannot serve the page on port ${PAGE_PORT}: ${e.message}`)));
    server.listen(PAGE_PORT, '127.0.0.1', () => resolve(server));
  });
}

/** A second `w3api serve` that lets in only http://localhost:3000. */
function restrictedServer() {
  const child = spawn(process.env.W3API_BIN, [
    'serve', '--listen', '127.0.0.1:0', '--api-key', KEY, '--cors-origin', ALLOWED,
  ], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = out.match(/^listening on (\S+)$/m);
      if (match) resolve({ url: match[1], stop: () => child.kill() });
    });
    child.once('exit', (code) => reject(new Error(`the restricted server exited (${code})`)));
  });
}

/** What the page's fetch calls answer, run inside the browser. */
async function fromPage(page, base) {
  return page.evaluate(async ({ base, key, wallet }) => {
    const attempt = async (url, init) => {
      try {
        const res = await fetch(url, init);
        return { status: res.status, body: await res.json(), requestId: res.headers.get('x-request-id') };
      } catch (e) {
        return { failed: String(e) };
      }
    };
    const json = { 'content-type': 'application/json' };
    return {
      tokens: await attempt(`${base}/api/v2.2/wallets/${wallet}/tokens?chain=eth&limit=3`, { headers: { 'X-API-Key': key } }),
      rpc: await attempt(`${base}/eth/${key}`, {
        method: 'POST', headers: json, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
      }),
      signin: await attempt(`${base}/challenge/request/solana`, {
        method: 'POST',
        headers: { ...json, 'X-API-Key': key },
        body: JSON.stringify({
          domain: 'localhost', address: '3fbvSBt23R6TbSkPQoyi56XSaFE6mYHxQyQwqnMa93fK', uri: 'http://localhost:3000/',
          network: 'mainnet', timeout: 60,
        }),
      }),
    };
  }, { base, key: KEY, wallet: fx.wallets[0] });
}

async function main() {
  const pages = await pageServer();
  const restricted = await restrictedServer();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage();
    await page.goto(`${ALLOWED}/`);
    const answers = await fromPage(page, BASE);
    await check('wallet tokens with X-API-Key from http://localhost:3000', async () => {
      assert(!answers.tokens.failed, `the browser refused the call: ${answers.tokens.failed}`);
      assert(answers.tokens.status === 200, `HTTP ${answers.tokens.status}`);
      assert(answers.tokens.requestId, 'x-request-id is exposed to the page');
      const raw = await rawGet(`/api/v2.2/wallets/${fx.wallets[0]}/tokens`, { chain: 'eth', limit: 3 });
      return expectSame(answers.tokens.body.result, raw.result, 'tokens');
    });
    await check('JSON-RPC POST from http://localhost:3000', async () => {
      assert(!answers.rpc.failed, `the browser refused the call: ${answers.rpc.failed}`);
      return expectSame(answers.rpc.body.result, await rawResult('eth_blockNumber'), 'blockNumber');
    });
    await check('sign-in request POST from http://localhost:3000', async () => {
      assert(!answers.signin.failed, `the browser refused the call: ${answers.signin.failed}`);
      assert(answers.signin.status === 201 && answers.signin.body.message, `HTTP ${answers.signin.status}`);
      return 'challenge issued';
    });
    const allowed = await fromPage(page, restricted.url);
    await check('--cors-origin lets the named origin in', async () => {
      for (const [name, answer] of Object.entries(allowed)) {
        assert(!answer.failed && answer.status < 300, `${name}: ${answer.failed || answer.status}`);
      }
      return '3 calls';
    });
    const other = await browser.newPage();
    await other.goto(`http://127.0.0.1:${PAGE_PORT}/`);
    const refused = await fromPage(other, restricted.url);
    await check('--cors-origin keeps other origins out', async () => {
      for (const [name, answer] of Object.entries(refused)) {
        assert(answer.failed, `${name} from http://127.0.0.1:${PAGE_PORT} was let through: HTTP ${answer.status}`);
      }
      return '3 calls refused by the browser';
    });
  } finally {
    await browser.close();
    restricted.stop();
    pages.close();
  }
}

main().catch(fatal).finally(done);
