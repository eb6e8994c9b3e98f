'use strict';
// The official Moralis JS SDK's streams module (npm `moralis`,
// Moralis.Streams) against a `w3api serve` of its own (a block of ordinary
// activity every second, confirmed after 2 blocks) and a webhook receiver
// on loopback that answers 200:
// - every management call (add, update, addAddress, getAddresses,
//   deleteAddress, updateStatus, getAll, getById, delete, readSettings,
//   setSettings, getHistory, getLogs, getStats, getStatsById, retry), each
//   SDK result compared with the raw REST answer (plain HTTP with X-API-Key);
// - the SDK's webhook helpers on the real deliveries the receiver got:
//   verifySignature accepts each one (the secret being the API key until
//   POST /settings changes it, and config streamsSecret after) and rejects
//   tampered ones; parsedLogs decodes each delivery's logs with its ABI into
//   what the payload's erc20Transfers say.
//
// The streams module has no base-URL setting (https://api.moralis-streams.com
// is a constant): as in moralis-js.cjs, an axios request interceptor on the
// SDK's axios instance rewrites it to the local server and refuses anything
// not on loopback.

const path = require('node:path');
const Moralis = require('moralis').default;
const axios = require(require.resolve('axios', { paths: [path.dirname(require.resolve('@moralisweb3/common-core'))] }));
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
  try {
    receiver = await startReceiver();
    server = await startServer(['--api-key', KEY, '--block-time', '1s', '--confirmations', '2', '--stream-retries', '1s,1s']);
    base = server.url;
    await Moralis.start({ apiKey: KEY });
    await checks(receiver);
  } catch (e) {
    fatal(e);
  } finally {
    if (server) {
      if (!server.alive()) fatal(new Error(`w3api serve exited during the checks:\n${server.stderr()}`));
      await server.stop();
    }
    if (receiver) await receiver.close();
  }
}

async function checks(receiver) {
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

  // --- History and totals, with both streams paused so they hold still.

  await check('Streams.getHistory, getLogs, getStats, getStatsById = raw (streams paused)', async () => {
    for (const id of [need('s1'), need('s2')]) await Moralis.Streams.updateStatus({ id, networkType: 'evm', status: 'paused' });
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
    for (const id of [need('s1'), need('s2')]) {
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
