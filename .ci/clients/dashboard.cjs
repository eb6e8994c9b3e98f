'use strict';
// The deliveries page (GET /dashboard) in a real browser (Debian's chromium,
// driven by playwright-core), against a `w3api serve --block-time 1s` of its
// own and a webhook receiver on loopback: a stream created by plain HTTP
// (after its test webhook) shows on the page, its deliveries appear with
// the x-signature the receiver got, a delivery's detail shows its attempts,
// and Replay sends the same block again and counts one more attempt. The
// page must log no console error and no failed request, and load nothing
// but its own origin.

const { chromium } = require('playwright-core');
const { runner, assert, within, startReceiver, startServer: startW3api } = require('./lib.cjs');

const { check, done, fatal } = runner('dashboard');
const KEY = 'dashboard-key';
const TAG = 'dashboard-transfers';
const TRANSFER_ABI = [{
  anonymous: false,
  inputs: [
    { indexed: true, name: 'from', type: 'address' },
    { indexed: true, name: 'to', type: 'address' },
    { indexed: false, name: 'value', type: 'uint256' },
  ],
  name: 'Transfer',
  type: 'event',
}];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));


/** Polls fn until it returns a truthy value; throws after ms with what was last seen. */
async function waitFor(what, fn, ms = 30000) {
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
    await sleep(250);
  }
}



/** Plain HTTP with the key; returns {status, headers, text, json}. */
async function call(url, { method = 'GET', body, key = KEY } = {}) {
  const headers = {};
  if (key) headers['x-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(20000),
  });
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch { /* not JSON */ }
  return { status: res.status, headers: res.headers, text, json };
}

let rpcId = 1;
async function rpc(base, method, params = []) {
  const { status, json, text } = await call(`${base}/eth/${KEY}`, {
    method: 'POST', key: null, body: { jsonrpc: '2.0', id: rpcId++, method, params },
  });
  assert(json && !json.error && 'result' in json, `${method}: HTTP ${status} ${json && json.error ? JSON.stringify(json.error) : text.slice(0, 200)}`);
  return json.result;
}

const isHook = (r, streamId) => r.json && r.json.streamId === streamId && r.json.block && r.json.block.hash;
const sameBlock = (r, payload) => r.json.block.hash === payload.block.hash && r.json.confirmed === payload.confirmed;

async function main() {
  const ctx = {};
  let receiver;
  let server;
  let browser;
  try {
    receiver = await startReceiver();
    server = await startW3api(['--api-key', KEY, '--block-time', '1s']);
    const base = server.url;
    assert(/^http:\/\/127\.0\.0\.1:\d+$/.test(base), `w3api serve listens on ${base}, not loopback`);

    await check('GET /dashboard is HTML without a key; /dashboard/data needs the key', async () => {
      const page = await call(`${base}/dashboard`, { key: null });
      assert(page.status === 200, `GET /dashboard: HTTP ${page.status}`);
      assert(/^text\/html/.test(page.headers.get('content-type') || ''), `content-type ${page.headers.get('content-type')}`);
      const data = await call(`${base}/dashboard/data?limit=50`, { key: null });
      assert(data.status === 401, `GET /dashboard/data without a key: HTTP ${data.status}, expected 401`);
      const keyed = await call(`${base}/dashboard/data?limit=50`);
      assert(keyed.status === 200, `GET /dashboard/data with the key: HTTP ${keyed.status} ${keyed.text.slice(0, 200)}`);
      assert(Array.isArray(keyed.json.streams) && Array.isArray(keyed.json.deliveries), 'streams and deliveries are arrays');
      return `${page.text.length} bytes of HTML`;
    });

    await check('PUT /streams/evm creates the stream after a signed test webhook to the receiver', async () => {
      const created = await call(`${base}/streams/evm`, {
        method: 'PUT',
        body: {
          webhookUrl: receiver.url, description: 'Transfers, for the dashboard check', tag: TAG, chainIds: ['0x1'],
          topic0: ['Transfer(address,address,uint256)'], allAddresses: true, includeContractLogs: true, abi: TRANSFER_ABI,
        },
      });
      assert(created.status === 200, `HTTP ${created.status} ${created.text.slice(0, 300)}`);
      assert(created.json.id && created.json.status === 'active', `stream ${created.text.slice(0, 300)}`);
      ctx.streamId = created.json.id;
      const test = receiver.requests.find((r) => r.json && r.json.block && !r.json.block.hash);
      assert(test, `no test webhook among the ${receiver.requests.length} request(s) received before the answer`);
      assert(test.method === 'POST', `the test webhook came as ${test.method}`);
      assert(test.headers['x-signature'], 'the test webhook has no x-signature header');
      assert(Array.isArray(test.json.logs) && test.json.logs.length === 0, 'the test webhook has logs');
      return `stream ${ctx.streamId}`;
    });

    await check('JSON-RPC: a new token minted to a new wallet (a Transfer log for the stream)', async () => {
      const wallet = await rpc(base, 'w3api_createWallet', []);
      assert(/^0x[0-9a-fA-F]{40}$/.test(wallet.address), `createWallet: ${JSON.stringify(wallet)}`);
      const token = await rpc(base, 'w3api_createToken', [{ name: 'Good', symbol: 'GOOD', decimals: 18 }]);
      assert(/^0x[0-9a-fA-F]{40}$/.test(token), `createToken: ${JSON.stringify(token)}`);
      await rpc(base, 'w3api_mintToken', [token, wallet.address, '0x3e8']);
      await rpc(base, 'evm_mine', []);
      return `token ${token}`;
    });

    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    });
    const page = await browser.newPage();
    const problems = [];
    let watching = true;
    const note = (line) => { if (watching) problems.push(line); };
    page.on('console', (m) => m.type() === 'error' && note(`console error: ${m.text()}`));
    page.on('pageerror', (e) => note(`page error: ${e.message}`));
    page.on('requestfailed', (r) => note(`request failed: ${r.method()} ${r.url()}: ${r.failure() && r.failure().errorText}`));
    page.on('response', (r) => r.status() >= 400 && note(`HTTP ${r.status()}: ${r.request().method()} ${r.url()}`));
    page.on('request', (r) => !r.url().startsWith(`${base}/`) && !r.url().startsWith('data:') && note(`request to another origin: ${r.url()}`));

    await check('the page lists the stream, active', async () => {
      assert(ctx.streamId, 'no stream (an earlier check failed)');
      await page.goto(`${base}/dashboard?key=${encodeURIComponent(KEY)}`, { timeout: 20000 });
      const row = page.locator(`[data-testid="stream-row"][data-stream-id="${ctx.streamId}"]`);
      await row.waitFor({ state: 'visible', timeout: 15000 });
      const text = await row.innerText();
      for (const part of [TAG, 'active', '0x1', receiver.url]) assert(text.includes(part), `the row does not show ${part}: ${text}`);
      return text.replace(/\s+/g, ' ').slice(0, 120);
    });

    await check('a delivery appears with the x-signature the receiver got', async () => {
      assert(ctx.streamId, 'no stream (an earlier check failed)');
      const rows = `[data-testid="delivery-row"][data-stream-id="${ctx.streamId}"]`;
      const picked = await waitFor('a delivered delivery of the stream on the page', async () => {
        const seen = await page.$$eval(rows, (trs) => trs.map((tr) => ({
          id: tr.getAttribute('data-delivery-id'), state: tr.getAttribute('data-state'), attempts: Number(tr.getAttribute('data-attempts')),
        })));
        return seen.find((d) => d.state === 'delivered' && d.attempts >= 1);
      });
      ctx.deliveryId = picked.id;
      ctx.row = page.locator(`[data-testid="delivery-row"][data-delivery-id="${picked.id}"]`);
      await ctx.row.locator('[data-testid="details"]').click();
      const detail = page.getByTestId('delivery-detail');
      await detail.waitFor({ state: 'visible', timeout: 5000 });
      const signature = (await detail.getByTestId('signature').innerText()).trim();
      ctx.payload = JSON.parse(await detail.getByTestId('payload').innerText());
      assert(ctx.payload.streamId === ctx.streamId, `the payload is of stream ${ctx.payload.streamId}`);
      assert(/^0x[0-9a-fA-F]+$/.test(signature), `signature shown: ${JSON.stringify(signature)}`);
      const got = await waitFor('the receiver got this delivery', () => {
        const same = receiver.requests.filter((r) => isHook(r, ctx.streamId) && sameBlock(r, ctx.payload));
        return same.length ? same : null;
      }, 10000);
      const signatures = got.map((r) => r.headers['x-signature']);
      assert(signatures.includes(signature), `the page shows ${signature}; the receiver got ${signatures.join(', ')}`);
      return `block ${ctx.payload.block.number}, ${ctx.payload.confirmed ? 'confirmed' : 'unconfirmed'}`;
    });

    await check("the delivery's detail shows its attempt: status 200, time, latency", async () => {
      assert(ctx.deliveryId, 'no delivery (an earlier check failed)');
      const attempts = page.getByTestId('delivery-detail').getByTestId('attempt-row');
      assert(await attempts.count() >= 1, 'no attempt row in the detail');
      const text = await attempts.first().innerText();
      const status = (await attempts.first().getByTestId('attempt-status').innerText()).trim();
      assert(status === '200', `status code shown: ${JSON.stringify(status)} (row: ${text})`);
      assert(/\d+ ms/.test(text), `no latency in: ${text}`);
      return text.replace(/\s+/g, ' ');
    });

    await check('Replay sends the same block again and the row counts one more attempt', async () => {
      assert(ctx.deliveryId, 'no delivery (an earlier check failed)');
      const before = Number(await ctx.row.getAttribute('data-attempts'));
      const sent = receiver.requests.filter((r) => isHook(r, ctx.streamId) && sameBlock(r, ctx.payload)).length;
      const path = `/history/replay/${ctx.streamId}/${ctx.deliveryId}`;
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === path, { timeout: 10000 }),
        ctx.row.getByTestId('replay').click(),
      ]);
      assert(answer.status() === 200, `POST ${path}: HTTP ${answer.status()}`);
      await waitFor(`data-attempts above ${before}`, async () => Number(await ctx.row.getAttribute('data-attempts', { timeout: 2000 })) > before, 20000);
      const again = await waitFor('the receiver got the block again', () => {
        const same = receiver.requests.filter((r) => isHook(r, ctx.streamId) && sameBlock(r, ctx.payload));
        return same.length > sent ? same[same.length - 1] : null;
      }, 10000);
      assert(again.json.streamId === ctx.streamId && again.json.block.hash === ctx.payload.block.hash
        && again.json.confirmed === ctx.payload.confirmed, 'the replayed body is of another delivery');
      ctx.replayed = again;
      const { retries: a, ...restAgain } = again.json;
      const { retries: b, ...restFirst } = ctx.payload;
      const identical = JSON.stringify(restAgain) === JSON.stringify(restFirst);
      return `attempts ${before} -> ${before + 1}; retries ${b} -> ${a}; body otherwise ${identical ? 'identical' : 'different'}`;
    });

    await check('the opened detail stays open through refreshes and shows the new attempt and its signature', async () => {
      assert(ctx.replayed, 'no replay (an earlier check failed)');
      const detail = page.getByTestId('delivery-detail');
      const updated = page.getByTestId('updated');
      const stamp = await updated.innerText();
      await waitFor('a refresh of the page', async () => (await updated.innerText()) !== stamp, 5000);
      assert(await detail.isVisible(), 'the detail closed on a refresh');
      const attempts = Number(await ctx.row.getAttribute('data-attempts'));
      await waitFor(`${attempts} attempt rows in the detail`, async () => (await detail.getByTestId('attempt-row').count()) === attempts, 5000);
      const expected = ctx.replayed.headers['x-signature'];
      await waitFor(`the detail's signature becomes the replay's x-signature ${expected}`,
        async () => (await detail.getByTestId('signature').innerText()).trim() === expected, 5000);
      return `${attempts} attempts`;
    });

    await check('a wrong key: the page says the API key was refused', async () => {
      const context = await browser.newContext();
      try {
        const other = await context.newPage();
        await other.goto(`${base}/dashboard?key=not-the-key`, { timeout: 20000 });
        const status = other.getByTestId('status');
        await waitFor('a "refused" status line', async () => /refused/i.test(await status.innerText()), 10000);
        return (await status.innerText()).trim();
      } finally {
        await context.close();
      }
    });

    await check('the page logged no error, no request failed, nothing came from another origin', async () => {
      watching = false;
      assert(problems.length === 0, `${problems.length} problem(s):\n${problems.slice(0, 12).join('\n')}`);
      return 'clean';
    });
  } finally {
    if (browser) await within(browser.close(), 10000);
    if (server) await server.stop();
    if (receiver) await receiver.close();
  }
}

main().catch(fatal).finally(() => {
  done();
  // Whatever is left open (it should be nothing) does not keep the check running.
  setTimeout(() => process.exit(), 5000).unref();
});
