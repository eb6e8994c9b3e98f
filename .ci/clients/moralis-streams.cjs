'use strict';
// The official Moralis JS SDK's streams module (npm `moralis`,
// Moralis.Streams) against a `w3api serve` of its own (a block of ordinary
// activity every second, confirmed after 2 blocks) and webhook receivers
// on loopback: one that answers 200, one (of a third stream, on 0x89) that
// answers 500 to the first attempt of each delivery:
// - every management call (add, update, addAddress, getAddresses,
//   deleteAddress, updateStatus, getAll, getById, delete, readSettings,
//   setSettings, getHistory, getLogs, getStats, getStatsById, retry), each
//   SDK result compared with the raw REST answer (plain HTTP with X-API-Key);
// - the SDK's webhook helpers on the real deliveries the receiver got:
//   verifySignature accepts each one (the secret being the API key until
//   POST /settings changes it, and config streamsSecret after) and rejects
//   tampered ones; parsedLogs decodes each delivery's logs with its ABI into
//   what the payload's erc20Transfers say;
// - production's filters of getAll (status), getHistory (streamId,
//   transactionHash, chainId, blockNumber, fromTimestamp, toTimestamp) and
//   getLogs (those and deliveryStatus). The SDK (moralis 2.27.2) cannot send
//   them: its operations list only limit, cursor (and excludePayload), and
//   Streams.getAll/getHistory/getLogs refuse any other parameter before
//   sending (checked, so a newer SDK that sends them is noticed). They are
//   sent through the SDK's own request pipeline instead: its operation
//   (getStreamsEvmOperation, getHistoryOperation, getLogsOperation) with the
//   filters added, run by @moralisweb3/api-utils' PaginatedOperationResolver,
//   which serializes arrays as axios does (`chainId[]=0x1&chainId[]=0x89`)
//   and repeats them on every next page. Each answer is compared page by
//   page with the raw GET of the same query (arrays as repeated keys), and
//   with what the filter must select from the unfiltered answer, which it
//   must narrow.
//
// The streams module has no base-URL setting (https://api.moralis-streams.com
// is a constant): as in moralis-js.cjs, an axios request interceptor on the
// SDK's axios instance rewrites it to the local server and refuses anything
// not on loopback.

const path = require('node:path');
const Moralis = require('moralis').default;
const axios = require(require.resolve('axios', { paths: [path.dirname(require.resolve('@moralisweb3/common-core'))] }));
// The copies the SDK's streams module uses.
const sdkPaths = { paths: [path.dirname(require.resolve('@moralisweb3/streams'))] };
const { PaginatedOperationResolver } = require(require.resolve('@moralisweb3/api-utils', sdkPaths));
const {
  getHistoryOperation, getLogsOperation, getStreamsEvmOperation,
} = require(require.resolve('@moralisweb3/common-streams-utils', sdkPaths));
const {
  call, startServer, startReceiver, waitFor, sleep, expectSame, runner, assert, mustThrow, show,
} = require('./lib.cjs');

const { check, done, fatal } = runner('moralis-streams');
const KEY = 'moralis-streams-key';
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
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
// Two devnet accounts for the address list (any addresses would do).
const WATCHED = ['0x00000000000000000000000000000000000000a1', '0x00000000000000000000000000000000000000b2'];
// The streams module's base URL (a constant of @moralisweb3/streams), rewritten by the interceptor below.
const STREAMS_URL = 'https://api.moralis-streams.com';
// Production's filters of each listing, and the SDK operation and path of it.
const LISTINGS = {
  getAll: { operation: getStreamsEvmOperation, path: '/streams/evm', filters: ['status'] },
  getHistory: {
    operation: getHistoryOperation, path: '/history',
    filters: ['streamId', 'transactionHash', 'chainId', 'blockNumber', 'fromTimestamp', 'toTimestamp'],
  },
  getLogs: {
    operation: getLogsOperation, path: '/history/logs',
    filters: ['streamId', 'transactionHash', 'deliveryStatus', 'chainId', 'blockNumber', 'fromTimestamp', 'toTimestamp'],
  },
};

let base;
const sent = [];
axios.interceptors.request.use((config) => {
  const production = 'https://api.moralis-streams.com';
  for (const key of ['baseURL', 'url']) {
    const value = config[key];
    if (typeof value === 'string' && value.startsWith(production)) config[key] = base + value.slice(production.length);
  }
  const target = axios.getUri(config);
  const host = new URL(target).hostname;
  if (host !== '127.0.0.1' && host !== 'localhost') throw new Error(`refusing a request to ${target}`);
  sent.push(`${(config.method || 'get').toUpperCase()} ${target}`);
  return config;
});

/** The SDK's typed values (EvmAddress, EvmChain, EvmStream…) as JSON. */
function sdkView(value) {
  if (value === null || value === undefined) return value;
  if (Array.isArray(value)) return value.map(sdkView);
  if (typeof value === 'object') {
    if (value.constructor && value.constructor.name === 'BigNumber' && typeof value.toBigInt === 'function') return value.toBigInt();
    if (typeof value.toJSON === 'function' && value.constructor !== Object) return sdkView(value.toJSON());
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = sdkView(v);
    return out;
  }
  return value;
}

const raw = {};
async function rest(method, pathname, body, expect = 200) {
  const res = await call(base, KEY, method, pathname, body);
  if (expect !== null && res.status !== expect) throw new Error(`raw ${method} ${pathname}: HTTP ${res.status} ${res.text.slice(0, 300)}`);
  return expect === null ? res : res.json;
}

function sameAs(sdkValue, rawValue, what) {
  // An empty page (a full last page has a cursor to one) has nothing to compare but its length.
  if (Array.isArray(rawValue) && rawValue.length === 0) {
    assert(Array.isArray(sdkValue) && sdkValue.length === 0, `${what}: the SDK has ${show(sdkValue)}, raw []`);
    return { compared: 1, hidden: new Set() };
  }
  return expectSame(sdkView(sdkValue), rawValue, what);
}

/**
 * Streams[method] as the SDK would run it if its operation listed
 * production's filters: the SDK's operation with them added (values as
 * strings, arrays kept: axios sends `name[]=` for each item), run by the
 * SDK's PaginatedOperationResolver.
 */
function filtered(method) {
  const { operation, filters } = LISTINGS[method];
  const withFilters = {
    ...operation,
    urlSearchParamNames: [...operation.urlSearchParamNames, ...filters],
    getRequestUrlParams: (request, core) => {
      const params = operation.getRequestUrlParams(request, core);
      for (const name of filters) {
        const value = request[name];
        if (value !== undefined) params[name] = Array.isArray(value) ? value.map(String) : String(value);
      }
      return params;
    },
  };
  return (request) => new PaginatedOperationResolver(withFilters, STREAMS_URL, Moralis.Core).fetch(request);
}

/** pathname?query; arrays as repeated keys (`repeated`), `name[]=` (`brackets`) or `name[0]=` (`indexed`). */
function withQuery(pathname, params, arrays = 'repeated') {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null) continue;
    if (!Array.isArray(v)) q.append(k, String(v));
    else v.forEach((item, i) => q.append({ repeated: k, brackets: `${k}[]`, indexed: `${k}[${i}]` }[arrays], String(item)));
  }
  return `${pathname}?${q}`;
}

/**
 * Every page of filtered(method)(params) (following the SDK's next()) and of
 * the raw GET with the same query (arrays as repeated keys), compared page
 * by page; every request the SDK sent must carry each filter. Returns the
 * raw items, the values compared and the SDK's requests.
 */
async function filteredPages(method, params) {
  const { path: pathname, filters } = LISTINGS[method];
  const from = sent.length;
  let page = await filtered(method)(params);
  let cursor;
  let compared = 0;
  const items = [];
  let total;
  for (let n = 0; ; n++) {
    assert(n < 50, 'more than 50 pages');
    const rawPage = await rest('GET', withQuery(pathname, { ...params, cursor }));
    compared += sameAs(page.result, rawPage.result, `page ${n}`).compared;
    assert(page.pagination.total === rawPage.total, `page ${n}: total ${page.pagination.total} != raw ${rawPage.total}`);
    assert((page.pagination.cursor || null) === (rawPage.cursor || null), `page ${n}: cursor ${page.pagination.cursor} != raw ${rawPage.cursor}`);
    items.push(...rawPage.result);
    total = rawPage.total;
    cursor = rawPage.cursor;
    if (!cursor) break;
    assert(page.hasNext(), `page ${n}: a cursor, but the SDK has no next page`);
    page = await page.next();
  }
  const requests = sent.slice(from).map((line) => new URL(line.slice(line.indexOf(' ') + 1)));
  for (const url of requests) {
    for (const name of filters.filter((f) => params[f] !== undefined)) {
      const key = Array.isArray(params[name]) ? `${name}[]` : name;
      const want = [].concat(params[name]).map(String);
      assert(url.searchParams.getAll(key).join() === want.join(), `the SDK sent ${url.pathname}${url.search}: ${key} is not ${want}`);
    }
  }
  assert(total === items.length, `raw total ${total}, ${items.length} items on its pages`);
  return { items, compared, pages: requests.length };
}

/** The items' keys must be the expected ones, in order. */
function expectItems(items, expected, key, what) {
  const got = items.map(key);
  const want = expected.map(key);
  assert(got.join() === want.join(), `${what}: ${got.length} items (${show(got.slice(0, 4))}…), expected ${want.length} (${show(want.slice(0, 4))}…)`);
}

/**
 * An unknown value of one filter: the raw GET answers 400 naming it, and the
 * SDK's request (filtered) fails with that answer.
 */
async function refused(method, params, name) {
  const res = await rest('GET', withQuery(LISTINGS[method].path, params), undefined, null);
  const messages = [].concat(res.json && res.json.message);
  assert(res.status === 400 && messages.some((m) => typeof m === 'string' && m.startsWith(`${name}:`)),
    `${show(params)}: HTTP ${res.status} ${res.text.slice(0, 200)}, not a 400 naming ${name}`);
  const e = await mustThrow(() => filtered(method)(params), `${method} ${show(params)}`);
  assert(e.message.includes('400') && e.message.includes(`${name}:`), `${show(params)}: the SDK's error ${e.message}`);
  return messages.find((m) => m.startsWith(`${name}:`));
}

// Small pages, so that the SDK's next() must carry the filters on.
const PAGE = 5;
const historyKey = (h) => h.id;
const logKey = (l) => `${l.id}#${l.retries}@${l.createdAt}`;
/** A history item's payload carries the transaction (in txs, logs or txsInternal). */
const carries = (hash) => (h) => ['txs', 'logs', 'txsInternal'].some((k) => (h.payload[k] || []).some((x) => (x.hash || x.transactionHash) === hash));

/** What verifySignature decides: true, or the SDK error's message. */
function verdict(body, signature) {
  try {
    return Moralis.Streams.verifySignature({ body, signature });
  } catch (e) {
    return e.message;
  }
}

async function main() {
  let server;
  let receiver;
  let failing;
  try {
    receiver = await startReceiver();
    // 500 to the first attempt of each delivery (a stream, block and confirmed flag); 200 to the test webhooks.
    failing = await startReceiver({
      answer: (r, earlier) => {
        if (!(r.json && r.json.block && r.json.block.hash)) return 200;
        const same = (o) => o.json && o.json.streamId === r.json.streamId && o.json.block && o.json.block.hash === r.json.block.hash
          && o.json.confirmed === r.json.confirmed;
        return earlier.some(same) ? 200 : 500;
      },
    });
    server = await startServer(['--api-key', KEY, '--block-time', '1s', '--confirmations', '2', '--stream-retries', '1s,1s']);
    base = server.url;
    await Moralis.start({ apiKey: KEY });
    await checks(receiver, failing);
  } catch (e) {
    fatal(e);
  } finally {
    if (server) {
      if (!server.alive()) fatal(new Error(`w3api serve exited during the checks:\n${server.stderr()}`));
      await server.stop();
    }
    if (receiver) await receiver.close();
    if (failing) await failing.close();
  }
}

async function checks(receiver, failing) {
  const ctx = {};
  const need = (name) => {
    assert(ctx[name], `no ${name} (an earlier check failed)`);
    return ctx[name];
  };
  const blocks = (id) => receiver.requests.filter((r) => r.json && r.json.streamId === id && r.json.block && r.json.block.hash);

  await check('Streams.add (allAddresses, topic0 Transfer, ABI, includeContractLogs, 0x1) = raw GET /streams/evm/{id}', async () => {
    const before = receiver.requests.length;
    const created = await Moralis.Streams.add({
      chains: ['0x1'], description: 'moralis-streams: transfers', tag: 'sdk-transfers', webhookUrl: receiver.url,
      topic0: ['Transfer(address,address,uint256)'], abi: TRANSFER_ABI, allAddresses: true, includeContractLogs: true,
    });
    const stream = created.result;
    ctx.s1 = stream.id;
    const test = receiver.requests.slice(before).find((r) => r.json && r.json.block && r.json.block.hash === '');
    assert(test, 'no test webhook before the answer');
    assert(stream.status === 'active', `status ${stream.status}`);
    assert(stream.chainIds.join() === '0x1', `chainIds ${stream.chainIds}`);
    return sameAs(stream.toJSON(), await rest('GET', `/streams/evm/${stream.id}`), 'stream');
  });

  await check('Streams.add (address stream, includeNativeTxs) = raw GET', async () => {
    const created = await Moralis.Streams.add({
      chains: ['0x1', '0x89'], description: 'moralis-streams: wallets', tag: 'sdk-wallets', webhookUrl: receiver.url,
      includeNativeTxs: true,
    });
    ctx.s2 = created.result.id;
    assert(created.result.chainIds.join() === '0x1,0x89', `chainIds ${created.result.chainIds}`);
    return sameAs(created.result.toJSON(), await rest('GET', `/streams/evm/${ctx.s2}`), 'stream');
  });

  await check('Streams.update (description, tag) = raw GET', async () => {
    const before = receiver.requests.length;
    const updated = await Moralis.Streams.update({
      id: need('s1'), networkType: 'evm', description: 'moralis-streams: transfers (changed)', tag: 'sdk-transfers-2',
    });
    assert(updated.result.description === 'moralis-streams: transfers (changed)', `description ${updated.result.description}`);
    assert(updated.result.tag === 'sdk-transfers-2', `tag ${updated.result.tag}`);
    assert(receiver.requests.slice(before).some((r) => r.json && r.json.block && r.json.block.hash === ''), 'no test webhook');
    return sameAs(updated.result.toJSON(), await rest('GET', `/streams/evm/${ctx.s1}`), 'stream');
  });

  await check('Streams.addAddress ([2], sent checksummed) + getAddresses = raw GET /streams/evm/{id}/address', async () => {
    const id = need('s2');
    const added = await Moralis.Streams.addAddress({ id, networkType: 'evm', address: WATCHED });
    const result = added.result;
    assert(result.streamId === id, `streamId ${result.streamId}`);
    const addresses = (Array.isArray(result.address) ? result.address : [result.address]).map((a) => a.lowercase);
    assert(addresses.join() === WATCHED.join(), `addAddress answered ${show(addresses)}`);
    // The raw answer to the same request (adding again changes nothing).
    let compared = sameAs(result, await rest('POST', `/streams/evm/${id}/address`, { address: WATCHED }), 'addAddress').compared;
    const page = await Moralis.Streams.getAddresses({ id, networkType: 'evm', limit: 10 });
    const rawPage = await rest('GET', `/streams/evm/${id}/address?limit=10`);
    assert(rawPage.result.length === 2, `raw: ${rawPage.result.length} addresses`);
    compared += sameAs(page.result, rawPage.result, 'addresses').compared;
    assert(page.pagination.total === rawPage.total, `total ${page.pagination.total} != raw ${rawPage.total}`);
    assert(Boolean(page.pagination.cursor) === Boolean(rawPage.cursor), 'cursor presence differs');
    const stream = await Moralis.Streams.getById({ id, networkType: 'evm' });
    assert(stream.result.toJSON().amountOfAddresses === 2, `amountOfAddresses ${stream.result.toJSON().amountOfAddresses}`);
    return { compared, hidden: new Set() };
  });

  await check('Streams.deleteAddress (1) + getAddresses = raw', async () => {
    const id = need('s2');
    const removed = await Moralis.Streams.deleteAddress({ id, networkType: 'evm', address: WATCHED[1] });
    const addresses = [].concat(removed.result.address).map((a) => a.lowercase);
    assert(removed.result.streamId === id && addresses.join() === WATCHED[1], `deleteAddress answered ${show(removed.raw)}`);
    const page = await Moralis.Streams.getAddresses({ id, networkType: 'evm', limit: 10 });
    const rawPage = await rest('GET', `/streams/evm/${id}/address?limit=10`);
    assert(rawPage.result.length === 1 && rawPage.result[0].address === WATCHED[0], `raw: ${show(rawPage.result)}`);
    return sameAs(page.result, rawPage.result, 'addresses');
  });

  await check('Streams.updateStatus (paused, then active) = raw GET', async () => {
    const id = need('s2');
    const paused = await Moralis.Streams.updateStatus({ id, networkType: 'evm', status: 'paused' });
    assert(paused.result.status === 'paused', `status ${show(paused.result.status)}`);
    let compared = sameAs(paused.result, await rest('GET', `/streams/evm/${id}`), 'paused').compared;
    const active = await Moralis.Streams.updateStatus({ id, networkType: 'evm', status: 'active' });
    assert(active.result.status === 'active', `status ${show(active.result.status)}`);
    compared += sameAs(active.result, await rest('GET', `/streams/evm/${id}`), 'active').compared;
    return { compared, hidden: new Set() };
  });

  await check('Streams.getAll (limit 1): every page through cursors = raw GET /streams/evm', async () => {
    need('s2');
    let page = await Moralis.Streams.getAll({ limit: 1, networkType: 'evm' });
    let cursor;
    let compared = 0;
    const ids = [];
    for (let n = 0; ; n++) {
      assert(n < 10, 'more than 10 pages for 2 streams');
      const rawPage = await rest('GET', `/streams/evm?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      compared += sameAs(page.result, rawPage.result, `page ${n}`).compared;
      assert(page.pagination.total === rawPage.total, `page ${n}: total ${page.pagination.total} != raw ${rawPage.total}`);
      assert((page.pagination.cursor || null) === (rawPage.cursor || null), `page ${n}: cursor ${page.pagination.cursor} != raw ${rawPage.cursor}`);
      ids.push(...rawPage.result.map((s) => s.id));
      cursor = rawPage.cursor;
      if (!cursor) break;
      assert(page.hasNext(), `page ${n}: a cursor, but the SDK has no next page`);
      page = await page.next();
    }
    assert(ids.join() === [ctx.s1, ctx.s2].join(), `streams ${ids}, created ${ctx.s1},${ctx.s2}`);
    return { compared, hidden: new Set(), note: `${ids.length} pages` };
  });

  // --- Production's filters. moralis 2.27.2 cannot send them (see the header).

  await check('Streams.getAll, getHistory, getLogs refuse production\'s filters before sending anything (moralis 2.27.2: C0005)', async () => {
    const calls = [
      ...LISTINGS.getAll.filters.map((f) => ['getAll', { networkType: 'evm', limit: 10 }, f]),
      ...LISTINGS.getHistory.filters.map((f) => ['getHistory', { limit: 10 }, f]),
      ...LISTINGS.getLogs.filters.map((f) => ['getLogs', { limit: 10 }, f]),
    ];
    const value = { status: 'paused', streamId: need('s1'), transactionHash: `0x${'ab'.repeat(32)}`, chainId: ['0x1'], blockNumber: [1], deliveryStatus: ['failed'], fromTimestamp: 0, toTimestamp: 0 };
    const before = sent.length;
    for (const [method, request, name] of calls) {
      const e = await mustThrow(() => Moralis.Streams[method]({ ...request, [name]: value[name] }), `Streams.${method} with ${name}`);
      assert(new RegExp(`unknown parameter: ${name}\\b`).test(e.message), `Streams.${method} with ${name}: ${e.message}`);
    }
    assert(sent.length === before, `the SDK sent ${sent.slice(before).join(', ')}`);
    return `${calls.length} calls refused, none sent`;
  });

  await check('getAll + status (the SDK\'s getStreamsEvm operation with status): each status = raw GET /streams/evm?status; paused: the paused stream only', async () => {
    const [s1, s2] = [need('s1'), need('s2')];
    await Moralis.Streams.updateStatus({ id: s2, networkType: 'evm', status: 'paused' });
    try {
      const all = (await rest('GET', '/streams/evm?limit=100')).result;
      assert(all.length === 2, `${all.length} streams unfiltered`);
      const expected = { paused: [s2], active: [s1], error: [], terminated: [] };
      let compared = 0;
      for (const [status, ids] of Object.entries(expected)) {
        const r = await filteredPages('getAll', { limit: 1, status });
        expectItems(r.items, all.filter((s) => ids.includes(s.id)), (s) => s.id, `status ${status}`);
        compared += r.compared;
      }
      await refused('getAll', { limit: 10, status: 'stopped' }, 'status');
      return { compared, hidden: new Set(), note: `paused [s2], active [s1], error [], terminated [] of 2; stopped: 400` };
    } finally {
      await Moralis.Streams.updateStatus({ id: s2, networkType: 'evm', status: 'active' });
    }
  });

  await check('Streams.getById = raw GET', async () => {
    const stream = await Moralis.Streams.getById({ id: need('s1'), networkType: 'evm' });
    return sameAs(stream.result.toJSON(), await rest('GET', `/streams/evm/${ctx.s1}`), 'stream');
  });

  await check('Streams.readSettings = raw GET /settings (the secret is the API key)', async () => {
    const settings = await Moralis.Streams.readSettings();
    const rawSettings = await rest('GET', '/settings');
    assert(rawSettings.secretKey === KEY, `secretKey ${rawSettings.secretKey}, production's default is the API key`);
    return sameAs(settings.result, rawSettings, 'settings');
  });

  await check('Streams.setSettings (region) = raw GET /settings; the secret is kept', async () => {
    const changed = await Moralis.Streams.setSettings({ region: 'eu-central-1' });
    const rawSettings = await rest('GET', '/settings');
    assert(rawSettings.region === 'eu-central-1', `region ${rawSettings.region}`);
    assert(rawSettings.secretKey === KEY, `secretKey ${rawSettings.secretKey} after a region change`);
    const r = sameAs(changed.result, rawSettings, 'settings');
    await Moralis.Streams.setSettings({ region: 'us-east-1' });
    assert((await rest('GET', '/settings')).region === 'us-east-1', 'region not restored');
    return r;
  });

  // --- The webhook helpers on real deliveries.

  await check('Streams.verifySignature (the API key, by default) accepts every delivery received', async () => {
    const id = need('s1');
    await waitFor('3 deliveries of stream 1', () => blocks(id).length >= 3, 40000);
    const all = receiver.requests.filter((r) => r.json);
    const refused = all.map((r) => [r, verdict(r.json, r.signature)]).filter(([, v]) => v !== true);
    assert(!refused.length, `${refused.length} of ${all.length} refused: ${refused.slice(0, 3).map(([r, v]) => `${v} (${r.body.slice(0, 80)}…)`).join('; ')}`);
    // The SDK signs JSON.stringify(body): the server's bytes are that exactly.
    const reserialized = all.filter((r) => JSON.stringify(r.json) !== r.body);
    assert(!reserialized.length, `${reserialized.length} bodies are not JSON.stringify of themselves`);
    ctx.verifiedBefore = all.length;
    return `${all.length} requests (${blocks(id).length} block deliveries of stream 1, test webhooks) accepted`;
  });

  await check('Streams.verifySignature rejects a tampered body and a wrong signature', async () => {
    const [d] = blocks(need('s1'));
    assert(d, 'no delivery');
    const tampered = JSON.parse(d.body);
    tampered.erc20Transfers = tampered.erc20Transfers.map((t) => ({ ...t, value: `${t.value}0` }));
    tampered.confirmed = !tampered.confirmed;
    const cases = [
      ['a changed body', tampered, d.signature],
      ['another delivery\'s signature', d.json, blocks(ctx.s1)[1].signature],
    ];
    for (const [what, body, signature] of cases) {
      const e = await mustThrow(() => Moralis.Streams.verifySignature({ body, signature }), what);
      assert(/Signature is not valid/.test(e.message), `${what}: ${e.message}`);
    }
    return `${cases.length} refused`;
  });

  await check('Streams.parsedLogs decodes each delivery\'s logs with its ABI into its erc20Transfers', async () => {
    const deliveries = blocks(need('s1'));
    let decoded = 0;
    let skipped = 0;
    for (const d of deliveries) {
      const body = d.json;
      if (body.logs.some((l) => l.topic3 !== null)) {
        // An ERC721 Transfer (tokenId indexed) is no ERC20 Transfer of the ABI: ethers cannot decode it.
        skipped++;
        continue;
      }
      const parsed = Moralis.Streams.parsedLogs(body);
      assert(parsed.length === body.logs.length, `block ${body.block.number}: ${parsed.length} decoded of ${body.logs.length} logs`);
      assert(body.erc20Transfers.length === body.logs.length, `block ${body.block.number}: ${body.erc20Transfers.length} erc20Transfers for ${body.logs.length} logs`);
      parsed.forEach((p, i) => {
        const t = body.erc20Transfers[i];
        const got = { from: p.from.toLowerCase(), to: p.to.toLowerCase(), value: p.value.toString() };
        const want = { from: t.from, to: t.to, value: t.value };
        assert(JSON.stringify(got) === JSON.stringify(want), `block ${body.block.number} log ${i}: parsedLogs ${show(got)} != erc20Transfers ${show(want)}`);
        assert(t.logIndex === body.logs[i].logIndex && t.transactionHash === body.logs[i].transactionHash, `block ${body.block.number}: erc20Transfers[${i}] is not logs[${i}]`);
        decoded++;
      });
    }
    assert(decoded > 0, `no delivery with ERC20 transfers only (${skipped} with ERC721 transfers)`);
    return `${decoded} logs of ${deliveries.length - skipped} deliveries decoded${skipped ? `; ${skipped} with an ERC721 Transfer skipped` : ''}`;
  });

  await check('a new secret (POST /settings): verifySignature needs config streamsSecret, then accepts', async () => {
    const id = need('s1');
    const secret = `moralis-streams-${Date.now()}`;
    const changed = await rest('POST', '/settings', { secretKey: secret });
    assert(changed.secretKey === secret, `POST /settings answered ${show(changed)}`);
    const at = Date.now();
    const settings = await Moralis.Streams.readSettings();
    assert(settings.result.secretKey === secret, `readSettings: ${show(settings.result)}`);
    await waitFor('2 deliveries after the change', () => blocks(id).filter((r) => r.at > at + 500).length >= 2, 30000);
    const later = blocks(id).filter((r) => r.at > at + 500);
    for (const d of later) {
      const v = verdict(d.json, d.signature);
      assert(/Signature is not valid/.test(v), `block ${d.json.block.number}: with the API key (the SDK's fallback): ${v}`);
    }
    Moralis.Core.config.set('streamsSecret', secret);
    try {
      for (const d of later) {
        const v = verdict(d.json, d.signature);
        assert(v === true, `block ${d.json.block.number}: with streamsSecret: ${v}`);
      }
    } finally {
      Moralis.Core.config.set('streamsSecret', null);
    }
    await rest('POST', '/settings', { secretKey: KEY });
    return `${later.length} deliveries: refused with the API key, accepted with streamsSecret`;
  });

  await check('Streams.add (0x89, allAddresses, topic0 Transfer, ABI) to a receiver that answers 500 to each first attempt: retried, delivered', async () => {
    const created = await Moralis.Streams.add({
      chains: ['0x89'], description: 'moralis-streams: polygon transfers', tag: 'sdk-polygon', webhookUrl: failing.url,
      topic0: ['Transfer(address,address,uint256)'], abi: TRANSFER_ABI, allAddresses: true, includeContractLogs: true,
    });
    const id = created.result.id;
    ctx.s3 = id;
    const ofS3 = (r) => r.json && r.json.streamId === id && r.json.block && r.json.block.hash;
    const retried = () => failing.requests.filter((r) => ofS3(r) && r.status === 200);
    await waitFor('3 deliveries of stream 3 answered 500, then 200', () => retried().length >= 3, 40000);
    const failed = failing.requests.filter((r) => ofS3(r) && r.status === 500).length;
    return `${failed} attempts answered 500, ${retried().length} retries answered 200`;
  });

  // --- History and totals, with every stream paused so they hold still.

  await check('Streams.getHistory, getLogs, getStats, getStatsById = raw (streams paused)', async () => {
    for (const id of [need('s1'), need('s2'), ...(ctx.s3 ? [ctx.s3] : [])]) await Moralis.Streams.updateStatus({ id, networkType: 'evm', status: 'paused' });
    let previous = '';
    await waitFor('GET /stats to hold still', async () => {
      const now = JSON.stringify(await rest('GET', '/stats'));
      const still = now === previous;
      previous = now;
      return still;
    }, 20000, 2500);
    let compared = 0;
    const history = await Moralis.Streams.getHistory({ limit: 5 });
    const rawHistory = await rest('GET', '/history?limit=5');
    assert(rawHistory.result.length === 5, `raw history: ${rawHistory.result.length} items`);
    compared += sameAs(history.result, rawHistory.result, 'history').compared;
    assert(history.pagination.cursor === rawHistory.cursor && history.pagination.total === rawHistory.total, 'history pagination differs');
    if (rawHistory.cursor) {
      assert(history.hasNext(), 'a raw cursor, but the SDK has no next page');
      const next = await history.next();
      const rawNext = await rest('GET', `/history?limit=5&cursor=${encodeURIComponent(rawHistory.cursor)}`);
      compared += sameAs(next.result, rawNext.result, 'history page 2').compared;
    }
    const logs = await Moralis.Streams.getLogs({ limit: 5 });
    compared += sameAs(logs.result, (await rest('GET', '/history/logs?limit=5')).result, 'logs').compared;
    const stats = await Moralis.Streams.getStats();
    const rawStats = await rest('GET', '/stats');
    assert(rawStats.totalWebhooksDelivered > 0, 'no delivery counted');
    compared += sameAs(stats.result, rawStats, 'stats').compared;
    const one = await Moralis.Streams.getStatsById({ streamId: ctx.s1 });
    compared += sameAs(one.result, await rest('GET', `/stats/${ctx.s1}`), 'stats by id').compared;
    ctx.history = rawHistory.result;
    return { compared, hidden: new Set(), note: `${rawStats.totalWebhooksDelivered} delivered` };
  });

  await check('Streams.getHistory excludePayload (a parameter the SDK sends) = raw GET /history?excludePayload=true: no payloads', async () => {
    need('history');
    const page = await Moralis.Streams.getHistory({ limit: 10, excludePayload: true });
    const rawPage = await rest('GET', '/history?limit=10&excludePayload=true');
    const r = sameAs(page.result, rawPage.result, 'history');
    const withPayload = (await rest('GET', '/history?limit=10')).result;
    assert(withPayload.length === 10 && withPayload.every((h) => h.payload), 'the page without excludePayload has no payloads');
    assert(rawPage.result.length === 10 && rawPage.result.every((h) => !('payload' in h)), 'excludePayload=true: payloads left');
    expectItems(rawPage.result, withPayload, historyKey, 'the same deliveries');
    return r;
  });

  // Everything, unfiltered and raw, for what each filter must select.
  const everything = async (pathname) => {
    const items = [];
    let cursor;
    for (let n = 0; n < 100; n++) {
      const page = await rest('GET', withQuery(pathname, { limit: 100, cursor }));
      items.push(...page.result);
      cursor = page.cursor;
      if (!cursor) return { items, total: page.total };
    }
    throw new Error(`${pathname}: more than 100 pages`);
  };

  await check('every delivery and attempt, unfiltered (raw, every page): held still, of 2 chains, with failed attempts', async () => {
    need('history');
    const s3 = need('s3');
    const history = await everything('/history');
    const logs = await everything('/history/logs');
    await sleep(1500);
    const [h2, l2] = [await everything('/history'), await everything('/history/logs')];
    assert(h2.total === history.total && l2.total === logs.total, `still changing: history ${history.total} → ${h2.total}, logs ${logs.total} → ${l2.total}`);
    assert(history.items.length === history.total && logs.items.length === logs.total, 'the pages do not add up to the totals');
    const chains = new Set(history.items.map((h) => h.payload.chainId));
    assert(chains.has('0x1') && chains.has('0x89'), `deliveries of chains ${[...chains]}`);
    assert(history.items.some((h) => h.streamId === s3), 'no delivery of stream 3');
    assert(logs.items.some((l) => l.deliveryStatus === 'failed'), 'no failed attempt');
    ctx.all = history.items;
    ctx.allLogs = logs.items;
    return `${history.total} deliveries (${[...chains].join(', ')}), ${logs.total} attempts`;
  });

  await check('getHistory + transactionHash (the SDK\'s getHistory operation with it) = raw: only the deliveries carrying it', async () => {
    const all = need('all');
    const s3 = need('s3');
    const item = all.find((h) => h.streamId === s3 && h.payload.logs.length);
    assert(item, 'no delivery of stream 3 with a log');
    const hash = item.payload.logs[0].transactionHash;
    const expected = all.filter(carries(hash));
    assert(expected.length >= 1 && expected.length < all.length, `${expected.length} of ${all.length} deliveries carry ${hash}`);
    let r = await filteredPages('getHistory', { limit: PAGE, transactionHash: hash });
    expectItems(r.items, expected, historyKey, `transactionHash ${hash}`);
    let { compared } = r;
    // In capitals: the same deliveries.
    const upper = await rest('GET', withQuery('/history', { limit: 100, transactionHash: `0x${hash.slice(2).toUpperCase()}` }));
    expectItems(upper.result, expected, historyKey, 'the hash in capitals');
    r = await filteredPages('getHistory', { limit: PAGE, transactionHash: `0x${'00'.repeat(31)}01` });
    expectItems(r.items, [], historyKey, 'a hash nobody sent');
    compared += r.compared;
    ctx.tx = { hash, deliveries: new Set(expected.map(historyKey)) };
    return { compared, hidden: new Set(), note: `${expected.length} of ${all.length} deliveries carry it (${expected.map((h) => `${h.payload.chainId} block ${h.tinyPayload.block}${h.payload.confirmed ? ' confirmed' : ''}`).join(', ')})` };
  });

  await check('getHistory + chainId (array: the SDK sends chainId[]=) = raw (repeated keys): 0x89 only its deliveries; 0x1,0x89 all; 0x38 none', async () => {
    const all = need('all');
    let compared = 0;
    const cases = [[['0x89'], (h) => h.payload.chainId === '0x89'], [['0x1', '0x89'], () => true], [['0x38'], () => false]];
    for (const [chainId, select] of cases) {
      const expected = all.filter(select);
      const r = await filteredPages('getHistory', { limit: PAGE, chainId });
      expectItems(r.items, expected, historyKey, `chainId ${chainId}`);
      compared += r.compared;
    }
    const polygon = all.filter(cases[0][1]).length;
    assert(polygon > 0 && polygon < all.length, `${polygon} of ${all.length} deliveries on 0x89`);
    for (const arrays of ['brackets', 'indexed']) {
      const page = await rest('GET', withQuery('/history', { limit: 100, chainId: ['0x89'] }, arrays));
      expectItems(page.result, all.filter(cases[0][1]).slice(0, 100), historyKey, `chainId 0x89 (${arrays})`);
    }
    const both = await filteredPages('getHistory', { limit: PAGE, chainId: ['0x89'], streamId: need('s1') });
    expectItems(both.items, [], historyKey, 'chainId 0x89 and stream 1 (of 0x1)');
    compared += both.compared;
    return { compared, hidden: new Set(), note: `0x89: ${polygon} of ${all.length}` };
  });

  await check('getHistory + blockNumber (array) = raw, in each array form: the deliveries of those blocks; with chainId 0x1, of 0x1 only', async () => {
    const all = need('all');
    const ofEth = [...new Set(all.filter((h) => h.payload.chainId === '0x1').map((h) => Number(h.tinyPayload.block)))];
    assert(ofEth.length >= 3, `deliveries of ${ofEth.length} blocks of 0x1`);
    const blocks = [ofEth[0], ofEth[ofEth.length - 1]];
    const expected = all.filter((h) => blocks.includes(Number(h.tinyPayload.block)));
    assert(expected.length >= 2 && expected.length < all.length, `${expected.length} of ${all.length} deliveries of blocks ${blocks}`);
    let r = await filteredPages('getHistory', { limit: PAGE, blockNumber: blocks });
    expectItems(r.items, expected, historyKey, `blockNumber ${blocks}`);
    let { compared } = r;
    for (const arrays of ['brackets', 'indexed']) {
      const page = await rest('GET', withQuery('/history', { limit: 100, blockNumber: blocks }, arrays));
      expectItems(page.result, expected, historyKey, `blockNumber ${blocks} (${arrays})`);
    }
    r = await filteredPages('getHistory', { limit: PAGE, blockNumber: blocks, chainId: ['0x1'] });
    expectItems(r.items, expected.filter((h) => h.payload.chainId === '0x1'), historyKey, `blockNumber ${blocks} of 0x1`);
    compared += r.compared;
    return { compared, hidden: new Set(), note: `blocks ${blocks}: ${expected.length} of ${all.length} deliveries` };
  });

  await check('getHistory + fromTimestamp/toTimestamp (queued; seconds or milliseconds; inclusive) = raw', async () => {
    const all = need('all');
    const at = (h) => Date.parse(h.date);
    const t = at(all[Math.floor(all.length / 2)]);
    const seconds = Math.floor(t / 1000);
    const cases = [
      [{ fromTimestamp: t }, (h) => at(h) >= t],
      [{ toTimestamp: t }, (h) => at(h) <= t],
      [{ fromTimestamp: t, toTimestamp: t }, (h) => at(h) === t],
      [{ fromTimestamp: seconds }, (h) => at(h) >= seconds * 1000],
      [{ toTimestamp: seconds }, (h) => at(h) <= seconds * 1000],
      [{ fromTimestamp: Math.floor(Date.now() / 1000) + 3600 }, () => false],
      [{ toTimestamp: Math.floor(Math.min(...all.map(at)) / 1000) - 1 }, () => false],
    ];
    let compared = 0;
    const sizes = [];
    for (const [bounds, select] of cases) {
      const expected = all.filter(select);
      const r = await filteredPages('getHistory', { limit: PAGE, ...bounds });
      expectItems(r.items, expected, historyKey, show(bounds));
      compared += r.compared;
      sizes.push(expected.length);
    }
    assert(sizes.slice(0, 5).every((n) => n > 0 && n < all.length), `selected ${sizes} of ${all.length}: no bound narrows`);
    return { compared, hidden: new Set(), note: `${sizes.join(', ')} of ${all.length}` };
  });

  await check('getLogs + deliveryStatus (array) = raw: failed: the attempts answered 500 (stream 3\'s receiver) only; success: the rest', async () => {
    const logs = need('allLogs');
    const s3 = need('s3');
    const failedLogs = logs.filter((l) => l.deliveryStatus === 'failed');
    let compared = 0;
    for (const [deliveryStatus, expected] of [[['failed'], failedLogs], [['success'], logs.filter((l) => l.deliveryStatus === 'success')], [['failed', 'success'], logs]]) {
      const r = await filteredPages('getLogs', { limit: PAGE, deliveryStatus });
      expectItems(r.items, expected, logKey, `deliveryStatus ${deliveryStatus}`);
      compared += r.compared;
    }
    assert(failedLogs.length > 0 && failedLogs.length < logs.length, `${failedLogs.length} of ${logs.length} attempts failed`);
    const wrong = failedLogs.filter((l) => l.streamId !== s3 || l.statusCode !== 500 || l.webhookUrl !== failing.url);
    assert(!wrong.length, `failed attempts not of stream 3's receiver answering 500: ${show(wrong.slice(0, 2))}`);
    const answered500 = failing.requests.filter((r) => r.status === 500).length;
    assert(failedLogs.length === answered500, `${failedLogs.length} failed attempts logged, the receiver answered 500 ${answered500} times`);
    const none = await filteredPages('getLogs', { limit: PAGE, deliveryStatus: ['failed'], streamId: need('s1') });
    expectItems(none.items, [], logKey, 'failed attempts of stream 1 (its receiver answers 200)');
    compared += none.compared;
    return { compared, hidden: new Set(), note: `${failedLogs.length} failed of ${logs.length} attempts = the receiver's 500s` };
  });

  await check('getLogs + streamId, transactionHash, chainId, blockNumber = raw: the attempts of the deliveries selected', async () => {
    const logs = need('allLogs');
    const s3 = need('s3');
    const { hash, deliveries } = need('tx');
    const block = logs.find((l) => l.chain === '0x1').blockNumber;
    const cases = [
      [{ streamId: s3 }, (l) => l.streamId === s3],
      [{ transactionHash: hash }, (l) => deliveries.has(l.id)],
      [{ chainId: ['0x89'] }, (l) => l.chain === '0x89'],
      [{ blockNumber: [block] }, (l) => l.blockNumber === block],
      [{ blockNumber: [block], chainId: ['0x1'] }, (l) => l.blockNumber === block && l.chain === '0x1'],
    ];
    let compared = 0;
    const sizes = [];
    for (const [filter, select] of cases) {
      const expected = logs.filter(select);
      assert(expected.length > 0 && expected.length < logs.length, `${show(filter)}: ${expected.length} of ${logs.length} attempts`);
      const r = await filteredPages('getLogs', { limit: PAGE, ...filter });
      expectItems(r.items, expected, logKey, show(filter));
      compared += r.compared;
      sizes.push(expected.length);
    }
    return { compared, hidden: new Set(), note: `${sizes.join(', ')} of ${logs.length} attempts` };
  });

  await check('getLogs + fromTimestamp/toTimestamp (attempted; inclusive) = raw', async () => {
    const logs = need('allLogs');
    const at = (l) => Date.parse(l.createdAt);
    const t = at(logs[Math.floor(logs.length / 2)]);
    const cases = [
      [{ fromTimestamp: t }, (l) => at(l) >= t],
      [{ toTimestamp: t }, (l) => at(l) <= t],
      [{ fromTimestamp: t, toTimestamp: t }, (l) => at(l) === t],
      [{ fromTimestamp: Math.floor(t / 1000) }, (l) => at(l) >= Math.floor(t / 1000) * 1000],
      [{ fromTimestamp: Math.floor(Date.now() / 1000) + 3600 }, () => false],
    ];
    let compared = 0;
    const sizes = [];
    for (const [bounds, select] of cases) {
      const expected = logs.filter(select);
      const r = await filteredPages('getLogs', { limit: PAGE, ...bounds });
      expectItems(r.items, expected, logKey, show(bounds));
      compared += r.compared;
      sizes.push(expected.length);
    }
    assert(sizes.slice(0, 4).every((n) => n > 0 && n < logs.length), `selected ${sizes} of ${logs.length}: no bound narrows`);
    return { compared, hidden: new Set(), note: `${sizes.join(', ')} of ${logs.length}` };
  });

  await check('unknown filter values: raw 400 naming the parameter; the SDK\'s request fails with it', async () => {
    const cases = [
      ['getHistory', { transactionHash: '0x1234' }, 'transactionHash'],
      ['getHistory', { chainId: ['0x1', 'nochain'] }, 'chainId'],
      ['getHistory', { blockNumber: ['12', 'twelve'] }, 'blockNumber'],
      ['getHistory', { fromTimestamp: 'yesterday' }, 'fromTimestamp'],
      ['getHistory', { toTimestamp: -5 }, 'toTimestamp'],
      ['getHistory', { streamId: 'stream-1' }, 'streamId'],
      ['getLogs', { deliveryStatus: ['failed', 'pending'] }, 'deliveryStatus'],
      ['getLogs', { chainId: ['0xzz'] }, 'chainId'],
      ['getLogs', { streamId: 'stream-1' }, 'streamId'],
    ];
    const said = [];
    for (const [method, params, name] of cases) said.push(await refused(method, { limit: 10, ...params }, name));
    return `${cases.length} refused, e.g. ${said[6]}`;
  });

  await check('Streams.retry (replay) = the raw history item; the receiver gets the delivery again', async () => {
    const id = need('s1');
    await Moralis.Streams.updateStatus({ id, networkType: 'evm', status: 'active' });
    const item = need('history').find((h) => h.streamId === id);
    assert(item, 'no history item of stream 1');
    const same = (r) => r.json && r.json.streamId === id && r.json.block.hash === item.payload.block.hash && r.json.confirmed === item.payload.confirmed;
    const count = receiver.requests.filter(same).length;
    const replayed = await Moralis.Streams.retry({ streamId: id, id: item.id });
    const { payload: _p, ...rawItem } = item;
    const r = sameAs(replayed.result, rawItem, 'replayed');
    const again = await waitFor('the replayed delivery', () => receiver.requests.filter(same)[count], 15000);
    assert(verdict(again.json, again.signature) === true, 'the replayed delivery does not verify');
    return r;
  });

  await check('Streams.delete = the stream as it was; raw GET then 404', async () => {
    let compared = 0;
    for (const id of [need('s1'), need('s2'), ...(ctx.s3 ? [ctx.s3] : [])]) {
      const before = await rest('GET', `/streams/evm/${id}`);
      const deleted = await Moralis.Streams.delete({ id, networkType: 'evm' });
      compared += sameAs(deleted.result.toJSON(), before, 'deleted').compared;
      const after = await rest('GET', `/streams/evm/${id}`, undefined, null);
      assert(after.status === 404, `GET a deleted stream: HTTP ${after.status}`);
    }
    assert((await rest('GET', '/streams/evm?limit=10')).total === 0, 'streams left');
    return { compared, hidden: new Set() };
  });

  await sleep(0);
}

main().catch(fatal).finally(() => {
  done();
  if (process.env.W3API_CLIENTS_TRACE) console.log(sent.join('\n'));
});
