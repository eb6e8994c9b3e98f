#!/usr/bin/env node
// Compares w3api's answers in node mode with the node's own, at the same
// blocks.
//
//   check.cjs --rpc NODE_URL --api W3API_URL --key KEY --deployment FILE
//             [--blocks LIST] [--absent FILE,...] [--wait SECONDS] [--limit N]
//   check.cjs --rpc NODE_URL --deployment FILE --self-test [--blocks LIST]
//   check.cjs --rpc NODE_URL --api W3API_URL --key KEY --deployment FILE --wait-only
//
// First it waits (--wait, 120 s by default) until w3api has indexed the
// node's head: `block_number` of the first wallet's tokens equals the node's
// eth_blockNumber. Then, at the latest block and at historical ones (--blocks:
// numbers, `latest`, or `-K` for K blocks before the head; by default a spread
// over the chain and the last few blocks):
//   - tokens (GET /api/v2.2/wallets/{w}/tokens?chain=eth[&to_block=B], every
//     page): each wallet's listed balances equal balanceOf at B, every token
//     with a balance is listed, the native entry equals eth_getBalance at B;
//     name, symbol, decimals, balance_formatted, total_supply, usd_price and
//     usd_value agree with the node and with the prices below;
//   - NFTs, at the latest block (GET /api/v2.2/{w}/nft and .../nft/collections,
//     every page): ERC721 owners are ownerOf, ERC1155 amounts are balanceOf,
//     token_uri is tokenURI/uri, every token the wallet holds is listed, and
//     the collections are exactly those it holds tokens of;
//   - prices (eth_getTokenPrice on POST /eth/{key}, and usd_price above):
//     computed here from each pair's getReserves() at B with the rule of
//     crates/w3api-ledger/src/pricing.rs; wei compared exactly, USD with a
//     relative tolerance of 1e-12;
//   - --absent: the branch-only address of each discarded branch (deploy.cjs
//     --branch) has no tokens, no native balance and no NFTs.
// One line per failed comparison, then `check: N passed, M failed`; exits 1
// on any failure.
//
// --self-test reads only the node: it computes the expected balances,
// owners and prices at the blocks, prints them, and checks that they hang
// together (the wallets hold every token's whole supply, every NFT's owner
// is a wallet, the USD and wei prices agree).
'use strict';

const { AbiCoder, Interface, id } = require('ethers');
const { Node, RpcError, fail, getJson, parseArgs, pool, postJson, readJson, requestJson, required, sleep, ZERO } = require('./lib.cjs');

const NATIVE = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
const REL_TOLERANCE = 1e-12;
const PRICE_NOT_FOUND = -32001;
// The fields production documents for eth_getTokenPrice, each in every
// answer (null when unknown): the spec's required lists.
const PRICE_SCHEMAS = JSON.parse(require('fs').readFileSync(require('path').join(__dirname, '../../spec/openrpc.json'), 'utf8')).components.schemas;
const PRICE_FIELDS = PRICE_SCHEMAS.TokenPrice.required;
const NATIVE_PRICE_FIELDS = PRICE_SCHEMAS.NativePrice.required;

// ---------------------------------------------------------------- results

class Results {
  constructor() {
    this.passed = 0;
    this.failed = 0;
    this.printed = 0;
  }

  /// Counts one comparison; prints it when it failed.
  check(ok, where, what, expected, got) {
    if (ok) {
      this.passed++;
      return true;
    }
    this.failed++;
    if (this.printed++ < 400) {
      console.log(`FAIL ${where}: ${what}: expected ${show(expected)}, got ${show(got)}`);
    } else if (this.printed === 401) {
      console.log('FAIL ... (more failures are counted, not printed)');
    }
    return false;
  }

  eq(where, what, expected, got) {
    return this.check(expected === got, where, what, expected, got);
  }

  close(where, what, expected, got, tolerance = REL_TOLERANCE) {
    return this.check(near(expected, got, tolerance), where, what, expected, got);
  }
}

function show(value) {
  if (value === undefined) return 'nothing';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') return value;
  return JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? v.toString() : v));
}

/// Both null, or both numbers within a relative tolerance.
function near(expected, got, tolerance = REL_TOLERANCE) {
  if (expected === null || got === null || expected === undefined || got === undefined) return expected === got;
  const a = Number(expected);
  const b = Number(got);
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  if (a === b) return true;
  return Math.abs(a - b) <= tolerance * Math.max(Math.abs(a), Math.abs(b));
}

const lower = (value) => (typeof value === 'string' ? value.toLowerCase() : value);

// ---------------------------------------------------------------- pricing

/// `raw / 10^decimals` as a float, as the Rust code computes it: the
/// integer rounded to the nearest float, divided by an exact power of ten.
function toFloat(raw, decimals) {
  let scale = 1;
  for (let i = 0; i < decimals; i++) scale *= 10;
  return Number(raw) / scale;
}

/// Prices of every token at one block, from the pairs' reserves.
///
/// `pairs`: in creation order, `{address, token0, token1, factory, r0, r1}`;
/// `decimals`: address → decimals; `wrapped`, `stable`: the anchors;
/// `exchange`: only pairs of this factory price (the native reference
/// still comes from every pair). Mirrors price() in pricing.rs.
function priceOf(asset, { pairs, decimals, wrapped, stable, exchange = null }) {
  if (asset === NATIVE) asset = wrapped;
  const native = nativeReference({ pairs, decimals, wrapped, stable });
  if (!native) return null;
  let best = null;
  for (const pair of pairs) {
    if (pair.token0 !== asset && pair.token1 !== asset) continue;
    if (exchange && pair.factory !== exchange) continue;
    const price = priceInPair(asset, pair, { decimals, wrapped, stable, native });
    if (!price) continue;
    if (!best || price.liquidityUsd > best.liquidityUsd) best = price;
  }
  return best;
}

/// The pair's reserves oriented for `asset`, or null when a side is empty.
function quote(asset, pair) {
  const [reserveToken, reserveQuote, quoteToken] =
    asset === pair.token0 ? [pair.r0, pair.r1, pair.token1] : [pair.r1, pair.r0, pair.token0];
  if (reserveToken <= 0n || reserveQuote <= 0n) return null;
  return { reserveToken, reserveQuote, quote: quoteToken };
}

/// The native currency's USD price, from the wrapped/stable pair with the
/// most stablecoin (the last of equals, as Rust's max_by).
function nativeReference({ pairs, decimals, wrapped, stable }) {
  let best = null;
  for (const pair of pairs) {
    if (pair.token0 !== wrapped && pair.token1 !== wrapped) continue;
    const q = quote(wrapped, pair);
    if (!q || q.quote !== stable) continue;
    const stableWhole = toFloat(q.reserveQuote, decimals.get(stable));
    const usd = stableWhole / toFloat(q.reserveToken, decimals.get(wrapped));
    if (!best || stableWhole >= best.stable) {
      best = { usd, reserveWrapped: q.reserveToken, reserveStable: q.reserveQuote, stable: stableWhole, pair: pair.address };
    }
  }
  return best;
}

function priceInPair(asset, pair, { decimals, wrapped, stable, native }) {
  const q = quote(asset, pair);
  if (!q || (q.quote !== wrapped && q.quote !== stable)) return null;
  const tokenDecimals = decimals.get(asset);
  const quoteDecimals = decimals.get(q.quote);
  const quoteUsd = q.quote === stable ? 1.0 : native.usd;
  const quoteSideUsd = toFloat(q.reserveQuote, quoteDecimals) * quoteUsd;
  const wholeTokens = toFloat(q.reserveToken, tokenDecimals);
  const usd = asset === stable ? 1.0 : quoteSideUsd / wholeTokens;
  const scale = 10n ** BigInt(tokenDecimals);
  const nativeWei =
    q.quote === wrapped
      ? (q.reserveQuote * scale) / q.reserveToken
      : (q.reserveQuote * scale * native.reserveWrapped) / (q.reserveToken * native.reserveStable);
  return { usd, nativeWei, pair: pair.address, factory: pair.factory, liquidityUsd: 2.0 * quoteSideUsd, quote: q.quote };
}

// ---------------------------------------------------------------- the node's side

/// What is known of the deployment's contracts, read once from the node.
async function loadContracts(node, dep) {
  const pairs = dep.contracts
    .filter((c) => c.role === 'pair')
    .map((c) => ({ address: c.address, token0: c.token0, token1: c.token1, factory: c.factory, name: c.name, block: c.block }));
  const tokenEntries = dep.contracts.filter((c) => ['wrapped', 'stable', 'token', 'pair'].includes(c.role));
  const reads = await node.views(
    tokenEntries.flatMap((c) => [
      [c.address, 'name', [], 'latest'],
      [c.address, 'symbol', [], 'latest'],
      [c.address, 'decimals', [], 'latest'],
    ]),
  );
  const tokens = tokenEntries.map((c, i) => {
    const [name, symbol, decimals] = reads.slice(i * 3, i * 3 + 3);
    if (!name || !symbol || !decimals) throw new Error(`${c.address} (${c.role}) does not answer name/symbol/decimals`);
    return {
      address: c.address,
      role: c.role,
      label: c.role === 'pair' ? `LP ${c.name}` : symbol[0],
      name: name[0],
      symbol: symbol[0],
      decimals: Number(decimals[0]),
      block: c.block,
    };
  });
  const collections = dep.contracts.filter((c) => c.role === 'erc721' || c.role === 'erc1155');
  const names = await node.views(collections.flatMap((c) => [[c.address, 'name', [], 'latest'], [c.address, 'symbol', [], 'latest']]));
  collections.forEach((c, i) => {
    c.nodeName = names[2 * i] ? names[2 * i][0] : null;
    c.nodeSymbol = names[2 * i + 1] ? names[2 * i + 1][0] : null;
  });
  return {
    tokens,
    byAddress: new Map(tokens.map((t) => [t.address, t])),
    decimals: new Map(tokens.map((t) => [t.address, t.decimals])),
    pairs,
    factories: dep.contracts.filter((c) => c.role === 'factory').map((c) => c.address),
    // An exchange is known from its first pair on: before that block, a
    // price on it is not asked for.
    firstPairOf: new Map(
      dep.contracts
        .filter((c) => c.role === 'factory')
        .map((f) => [f.address, Math.min(...pairs.filter((p) => p.factory === f.address).map((p) => p.block))]),
    ),
    collections: new Map(collections.map((c) => [c.address, c])),
    wrapped: dep.contracts.find((c) => c.role === 'wrapped').address,
    stable: dep.contracts.find((c) => c.role === 'stable').address,
  };
}

/// Balances, native balances, supplies, reserves and prices at `block`.
async function expectedAt(node, contracts, wallets, block) {
  const { tokens, pairs } = contracts;
  const holders = [...wallets, ZERO];
  const calls = [];
  for (const token of tokens) for (const who of holders) calls.push([token.address, 'balanceOf', [who], block]);
  for (const token of tokens) calls.push([token.address, 'totalSupply', [], block]);
  for (const pair of pairs) calls.push([pair.address, 'getReserves', [], block]);
  const answers = await node.views(calls);
  let at = 0;
  const balances = new Map(holders.map((w) => [w, new Map()]));
  for (const token of tokens) {
    for (const who of holders) {
      const answer = answers[at++];
      balances.get(who).set(token.address, answer ? answer[0] : 0n);
    }
  }
  const supplies = new Map();
  for (const token of tokens) {
    const answer = answers[at++];
    supplies.set(token.address, answer ? answer[0] : 0n);
  }
  const reserves = pairs.map((pair) => {
    const answer = answers[at++];
    return { ...pair, r0: answer ? answer[0] : 0n, r1: answer ? answer[1] : 0n };
  });
  const natives = new Map();
  const nativeAnswers = await node.rpc.batch(wallets.map((w) => ['eth_getBalance', [w, '0x' + block.toString(16)]]));
  wallets.forEach((w, i) => {
    if (nativeAnswers[i].error) throw new Error(`eth_getBalance ${w} at ${block}: ${nativeAnswers[i].error.message}`);
    natives.set(w, BigInt(nativeAnswers[i].result));
  });
  const book = { pairs: reserves, decimals: contracts.decimals, wrapped: contracts.wrapped, stable: contracts.stable };
  const prices = new Map();
  const pricesOn = new Map(contracts.factories.map((f) => [f, new Map()]));
  for (const token of tokens) {
    prices.set(token.address, priceOf(token.address, book));
    for (const factory of contracts.factories) {
      pricesOn.get(factory).set(token.address, priceOf(token.address, { ...book, exchange: factory }));
    }
  }
  prices.set(NATIVE, priceOf(NATIVE, book));
  return { block, balances, natives, supplies, reserves, prices, pricesOn, native: nativeReference(book) };
}

/// Every wallet's NFTs at the latest block: wallet → Map(`collection:id` → item).
async function expectedNfts(node, dep, contracts, wallets) {
  const minted = [];
  const seen = new Set();
  for (const nft of dep.nfts) {
    const key = `${nft.collection}:${nft.tokenId}`;
    if (!seen.has(key)) {
      seen.add(key);
      minted.push(nft);
    }
  }
  const erc721 = minted.filter((n) => n.standard === 'ERC721');
  const erc1155 = minted.filter((n) => n.standard === 'ERC1155');
  const calls = [];
  for (const n of erc721) calls.push([n.collection, 'ownerOf', [BigInt(n.tokenId)], 'latest'], [n.collection, 'tokenURI', [BigInt(n.tokenId)], 'latest']);
  for (const n of erc1155) calls.push([n.collection, 'uri', [BigInt(n.tokenId)], 'latest']);
  for (const n of erc1155) for (const w of wallets) calls.push([n.collection, 'balanceOf', [w, BigInt(n.tokenId)], 'latest']);
  const answers = await node.views(calls, READ_NFT);
  let at = 0;
  const held = new Map(wallets.map((w) => [w, new Map()]));
  const owners = [];
  for (const n of erc721) {
    const owner = answers[at++];
    const uri = answers[at++];
    const item = {
      collection: n.collection,
      tokenId: n.tokenId,
      standard: 'ERC721',
      amount: 1n,
      uri: uri ? uri[0] : null,
      minted: n.block,
      owner: owner ? owner[0].toLowerCase() : null,
    };
    owners.push(item);
    if (item.owner && held.has(item.owner)) held.get(item.owner).set(`${n.collection}:${n.tokenId}`, item);
  }
  const uris = erc1155.map(() => answers[at++]);
  erc1155.forEach((n, i) => {
    for (const w of wallets) {
      const answer = answers[at++];
      const amount = answer ? answer[0] : 0n;
      if (amount > 0n) {
        held.get(w).set(`${n.collection}:${n.tokenId}`, {
          collection: n.collection,
          tokenId: n.tokenId,
          standard: 'ERC1155',
          amount,
          // EIP-1155: clients replace {id} with the id in 64 lowercase hex digits.
          uri: uris[i] ? uris[i][0].replaceAll('{id}', BigInt(n.tokenId).toString(16).padStart(64, '0')) : null,
          owner: w,
        });
      }
    }
  });
  return { held, owners721: owners };
}

// ERC721 and ERC1155 both have balanceOf, with other arguments.
const READ_NFT = new Interface([
  'function ownerOf(uint256) view returns (address)',
  'function tokenURI(uint256) view returns (string)',
  'function uri(uint256) view returns (string)',
  'function balanceOf(address, uint256) view returns (uint256)',
]);

// ---------------------------------------------------------------- w3api's side

class Api {
  constructor(base, key, chain, limit) {
    this.base = base.replace(/\/+$/, '');
    this.key = key;
    this.chain = chain;
    this.limit = limit;
    this.requests = 0;
  }

  async get(path, query) {
    const params = new URLSearchParams({ chain: this.chain, ...query });
    this.requests++;
    return getJson(`${this.base}${path}?${params}`, { 'x-api-key': this.key, accept: 'application/json' });
  }

  /// Every page of a paged operation: `{items, pages, error}`.
  async pages(path, query = {}) {
    const items = [];
    const pages = [];
    const cursors = new Set();
    let cursor = null;
    for (let n = 0; n < 500; n++) {
      const page = await this.get(path, cursor ? { ...query, limit: String(this.limit), cursor } : { ...query, limit: String(this.limit) });
      if (page.status !== 200 || !page.json || !Array.isArray(page.json.result)) {
        return { items, pages, error: `HTTP ${page.status}: ${(page.text || '').slice(0, 300)}` };
      }
      pages.push(page.json);
      items.push(...page.json.result);
      cursor = page.json.cursor;
      if (cursor === null || cursor === undefined || cursor === '') return { items, pages, error: null };
      if (cursors.has(cursor)) return { items, pages, error: `cursor ${cursor} came back` };
      cursors.add(cursor);
    }
    return { items, pages, error: 'more than 500 pages' };
  }

  tokens(wallet, block) {
    return this.pages(`/api/v2.2/wallets/${wallet}/tokens`, block === null ? {} : { to_block: String(block) });
  }

  nfts(wallet) {
    return this.pages(`/api/v2.2/${wallet}/nft`);
  }

  collections(wallet) {
    return this.pages(`/api/v2.2/${wallet}/nft/collections`);
  }

  /// A GET of the data API with `query` as pairs (an array parameter repeats
  /// its key, as the Python SDK sends it); `{status, json, text}`.
  rest(path, pairs, { chain = true } = {}) {
    this.requests++;
    const params = new URLSearchParams([...(chain ? [['chain', this.chain]] : []), ...pairs]);
    return getJson(`${this.base}${path}?${params}`, { 'x-api-key': this.key, accept: 'application/json' });
  }

  /// A POST of the data API with a JSON body; `{status, json, text}`.
  restPost(path, body) {
    this.requests++;
    const headers = { 'x-api-key': this.key, accept: 'application/json' };
    return requestJson(`${this.base}${path}?chain=${this.chain}`, { method: 'POST', headers, body });
  }

  /// eth_getTokenPrice on the gateway: `{result}` or `{error}`.
  tokenPrice(params) {
    return this.extended('eth_getTokenPrice', params);
  }

  /// An extended method of the gateway, whose one parameter is an object:
  /// `{result}` or `{error}`.
  async extended(method, params) {
    this.requests++;
    const { status, json } = await postJson(`${this.base}/${this.chain}/${this.key}`, {
      jsonrpc: '2.0',
      id: 1,
      method,
      params: [params],
    });
    if (json.error) return { error: json.error, status };
    return { result: json.result, status };
  }
}

/// Waits until w3api's latest block is the node's head; answers the head.
async function waitForHead(node, api, wallet, seconds) {
  const deadline = Date.now() + seconds * 1000;
  let last = null;
  let lastReport = 0;
  while (true) {
    const head = await node.head();
    try {
      const page = await api.get(`/api/v2.2/wallets/${wallet}/tokens`, { limit: '1' });
      last = page.status === 200 && page.json ? Number(page.json.block_number) : `HTTP ${page.status} ${page.text.slice(0, 200)}`;
    } catch (error) {
      last = `no answer (${error.message})`;
    }
    if (last === head) return head;
    if (Date.now() > deadline) throw new Error(`w3api did not reach the node's head ${head} in ${seconds} s; its block_number: ${show(last)}`);
    if (Date.now() - lastReport > 10_000) {
      console.log(`waiting for w3api: node head ${head}, w3api ${show(last)}`);
      lastReport = Date.now();
    }
    await sleep(250);
  }
}

/// `balance_formatted` as an exact count of raw units, or null when it is not a number.
function parseFormatted(text, decimals) {
  if (typeof text !== 'string' || !/^[0-9]+(\.[0-9]+)?$/.test(text)) return null;
  const [whole, fraction = ''] = text.split('.');
  if (fraction.length > decimals) {
    if (/[^0]/.test(fraction.slice(decimals))) return null;
  }
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt((fraction.slice(0, decimals) || '0').padEnd(decimals, '0'));
}

function compareTokens(results, contracts, expected, wallet, answer, { latest }) {
  const block = expected.block;
  const where = `tokens block=${block}${latest ? ' (latest)' : ''} wallet=${wallet}`;
  if (!results.check(answer.error === null, where, 'answer', 'every page with HTTP 200', answer.error)) return;
  for (const page of answer.pages) results.eq(where, 'block_number', String(block), page.block_number);
  const got = new Map();
  for (const item of answer.items) {
    const address = lower(item.token_address);
    if (!results.check(!got.has(address), where, `token ${address}`, 'listed once', 'listed twice')) continue;
    got.set(address, item);
  }
  // The native currency.
  const nativeBalance = expected.natives.get(wallet);
  const nativePrice = expected.prices.get(NATIVE);
  const native = [...got.values()].filter((item) => item.native_token === true);
  results.check(native.length <= 1, where, 'native entries', 'at most one', native.length);
  if (native.length) {
    const item = native[0];
    results.eq(where, 'native token_address', NATIVE, lower(item.token_address));
    results.eq(where, 'native balance', nativeBalance.toString(), item.balance);
    results.check(near(nativePrice ? nativePrice.usd : null, item.usd_price), where, 'native usd_price', nativePrice ? nativePrice.usd : null, item.usd_price);
  } else {
    results.check(nativeBalance === 0n, where, 'native entry', `balance ${nativeBalance}`, 'no native entry');
  }
  // Every listed token.
  for (const [address, item] of got) {
    if (item.native_token === true) continue;
    const token = contracts.byAddress.get(address);
    const tag = `${where} token=${address}${token ? `(${token.label})` : ''}`;
    if (!results.check(token !== undefined, tag, 'token', 'a token of the deployment', 'an unknown token')) continue;
    const balance = expected.balances.get(wallet).get(address);
    results.eq(tag, 'balance', balance.toString(), item.balance);
    results.eq(tag, 'decimals', token.decimals, Number(item.decimals));
    results.eq(tag, 'symbol', token.symbol, item.symbol);
    results.eq(tag, 'name', token.name, item.name);
    results.eq(tag, 'native_token', false, item.native_token);
    const formatted = parseFormatted(item.balance_formatted, token.decimals);
    results.check(formatted === balance, tag, 'balance_formatted', `${balance} raw units`, item.balance_formatted);
    if ('total_supply' in item) results.eq(tag, 'total_supply', expected.supplies.get(address).toString(), item.total_supply);
    const price = expected.prices.get(address);
    const usd = price ? price.usd : null;
    results.check(near(usd, item.usd_price), tag, 'usd_price', usd, item.usd_price);
    if (usd !== null && item.usd_price !== null && item.usd_value !== undefined) {
      results.close(tag, 'usd_value', toFloat(balance, token.decimals) * usd, item.usd_value, 1e-9);
    }
  }
  // Every token the wallet holds is listed.
  for (const [address, balance] of expected.balances.get(wallet)) {
    if (balance === 0n) continue;
    const token = contracts.byAddress.get(address);
    results.check(got.has(address), `${where} token=${address}(${token.label})`, 'listed', `balance ${balance}`, 'not listed');
  }
}

function comparePrice(results, contracts, token, block, expected, answer, exchange) {
  const where = `eth_getTokenPrice block=${block} token=${token.address}(${token.label})${exchange ? ` exchange=${exchange}` : ''}`;
  if (expected === null) {
    results.check(
      answer.error !== undefined && answer.error.code === PRICE_NOT_FOUND,
      where,
      'answer',
      `the PriceNotFound error (${PRICE_NOT_FOUND})`,
      answer.error ?? answer.result,
    );
    return;
  }
  if (!results.check(answer.result !== undefined, where, 'answer', 'a price', answer.error)) return;
  const r = answer.result;
  for (const field of PRICE_FIELDS) results.check(field in r, where, field, 'present', 'absent');
  for (const field of NATIVE_PRICE_FIELDS) results.check(r.nativePrice && field in r.nativePrice, where, `nativePrice.${field}`, 'present', 'absent');
  results.close(where, 'usdPrice', expected.usd, r.usdPrice);
  results.eq(where, 'nativePrice.value', expected.nativeWei.toString(), r.nativePrice && r.nativePrice.value);
  results.eq(where, 'nativePrice.decimals', 18, r.nativePrice && r.nativePrice.decimals);
  if (r.nativePrice && r.nativePrice.address !== null) results.eq(where, 'nativePrice.address', contracts.wrapped, lower(r.nativePrice.address));
  results.eq(where, 'pairAddress', expected.pair, lower(r.pairAddress));
  results.eq(where, 'exchangeAddress', expected.factory, lower(r.exchangeAddress));
  if (r.pairTotalLiquidityUsd !== undefined) results.close(where, 'pairTotalLiquidityUsd', expected.liquidityUsd, Number(r.pairTotalLiquidityUsd));
  if (r.tokenAddress !== undefined) results.eq(where, 'tokenAddress', token.address, lower(r.tokenAddress));
  if (r.tokenDecimals !== undefined) results.eq(where, 'tokenDecimals', String(token.decimals), String(r.tokenDecimals));
  if (r.toBlock !== undefined) results.eq(where, 'toBlock', String(block), String(r.toBlock));
}

/// The operations that read NFTs by collection agree with the node and with
/// the wallet operations: a collection's owners are the owners `ownerOf`
/// gives (the inverse of the wallets' NFTs), its tokens list each once,
/// one token reads as it is listed, several tokens as one token each (null
/// for none), and the extended RPC twins page as the REST ones.
async function compareNftListings(results, api, owners721, held, wallets, nftAnswers) {
  const byCollection = new Map();
  for (const item of owners721) {
    if (!byCollection.has(item.collection)) byCollection.set(item.collection, []);
    byCollection.get(item.collection).push(item);
  }
  const tokenKey = (item) => `${lower(item.token_address)}:${item.token_id}`;
  for (const [collection, tokens] of byCollection) {
    const where = `nft collection=${collection}`;
    const living = tokens.filter((t) => t.owner && t.owner !== '0x0000000000000000000000000000000000000000');
    const expected = show(living.map((t) => [t.tokenId, t.owner]).sort(byId));
    const owners = await api.pages(`/api/v2.2/nft/${collection}/owners`);
    if (results.check(owners.error === null, where, 'getNFTOwners', 'every page with HTTP 200', owners.error)) {
      results.eq(where, 'getNFTOwners = ownerOf of every token', expected, show(owners.items.map((i) => [i.token_id, lower(i.owner_of)]).sort(byId)));
    }
    const listed = await api.pages(`/api/v2.2/nft/${collection}`);
    if (!results.check(listed.error === null, where, 'getContractNFTs', 'every page with HTTP 200', listed.error)) continue;
    results.eq(where, 'getContractNFTs = ownerOf of every token', expected, show(listed.items.map((i) => [i.token_id, lower(i.owner_of)]).sort(byId)));
    const first = listed.items[0];
    if (!first) continue;
    const one = await api.rest(`/api/v2.2/nft/${collection}/${first.token_id}`, []);
    const brief = (i) => i && show([tokenKey(i), lower(i.owner_of), i.amount, i.token_uri, i.block_number, i.block_number_minted]);
    results.eq(`${where} token=${first.token_id}`, 'getNFTMetadata = its getContractNFTs item', brief(first), brief(one.json));
    const its = await api.rest(`/api/v2.2/nft/${collection}/${first.token_id}/owners`, []);
    results.eq(`${where} token=${first.token_id}`, 'getNFTTokenIdOwners', show([lower(first.owner_of)]), show(((its.json && its.json.result) || []).map((i) => lower(i.owner_of))));
    const asked = listed.items.slice(0, 3);
    const body = { tokens: [...asked, { token_address: collection, token_id: '999999999' }].map((i) => ({ token_address: collection, token_id: i.token_id })), normalizeMetadata: false };
    const several = await api.restPost('/api/v2.2/nft/getMultipleNFTs', body);
    results.eq(where, 'getMultipleNFTs = each token, null for none', show([...asked.map(brief), null]), show((several.json || []).map((i) => (i ? brief(i) : null))));
  }
  // ERC1155 holders: each sampled wallet's amount of each token, seen from the token.
  const tokens1155 = new Map();
  for (const w of wallets) for (const item of held.get(w).values()) if (item.standard === 'ERC1155') tokens1155.set(`${item.collection}:${item.tokenId}`, item);
  for (const [key, item] of [...tokens1155].slice(0, 20)) {
    const where = `nft token=${key}`;
    const all = await api.pages(`/api/v2.2/nft/${item.collection}/${item.tokenId}/owners`);
    if (!results.check(all.error === null, where, 'getNFTTokenIdOwners', 'every page with HTTP 200', all.error)) continue;
    const got = new Map(all.items.map((i) => [lower(i.owner_of), i.amount]));
    for (const w of wallets) {
      const want = held.get(w).get(key);
      results.eq(`${where} wallet=${w}`, 'getNFTTokenIdOwners amount = balanceOf', want ? want.amount.toString() : undefined, got.get(w));
    }
  }
  // The extended twins, for a few wallets, page through what REST lists.
  for (const [i, w] of wallets.slice(0, 8).entries()) {
    const [nfts, collections] = nftAnswers[i];
    if (nfts.error || collections.error) continue;
    const balances = [];
    let cursor;
    for (let n = 0; n < 100; n++) {
      const page = await api.extended('eth_getNFTBalances', { address: w, limit: 2, ...(cursor ? { cursor } : {}) });
      if (!results.check(page.result, `extended wallet=${w}`, 'eth_getNFTBalances', 'a result', show(page.error))) break;
      balances.push(...page.result.nfts.map((b) => `${lower(b.contract_address)}:${b.token_id}=${b.amount}`));
      cursor = page.result.cursor;
      if (!cursor) break;
    }
    results.eq(`extended wallet=${w}`, 'eth_getNFTBalances = getWalletNFTs', show(nfts.items.map((n) => `${tokenKey(n)}=${n.amount}`)), show(balances));
    const counted = await api.extended('eth_getNFTCollections', { address: w });
    const counts = new Map();
    for (const n of nfts.items) counts.set(lower(n.token_address), (counts.get(lower(n.token_address)) || 0) + 1);
    const want = collections.items.map((c) => `${lower(c.token_address)}=${counts.get(lower(c.token_address))}`);
    const got = counted.result ? counted.result.result.map((c) => `${lower(c.token_address)}=${c.count}`) : show(counted.error);
    results.eq(`extended wallet=${w}`, 'eth_getNFTCollections = getWalletNFTCollections with counts', show(want), show(got));
  }
}

const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const TRANSFER_SINGLE = '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62';
const TRANSFER_BATCH = '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb';
const DEPOSIT = id('Deposit(address,uint256)');
const WITHDRAWAL = id('Withdrawal(address,uint256)');
const addressOfTopic = (topic) => '0x' + topic.slice(26).toLowerCase();

/// Transfer listings against the node's own logs (every contract's, as a
/// standard reading of ERC20, ERC721 and ERC1155 events), and wallet
/// transactions against its blocks. Transfers: each wallet's
/// ERC20 and NFT transfers, each token's and each collection's, as
/// block:tx:log:contract:from:to:amount (an ERC1155 batch one item per id),
/// newest first.
async function compareTransfers(results, api, node, contracts, wallets, head) {
  const tokens = new Set(contracts.tokens.map((t) => t.address));
  const collections = new Set(contracts.collections.keys());
  const range = { fromBlock: '0x0', toBlock: '0x' + head.toString(16) };
  const logs = await node.rpc.call('eth_getLogs', [{ ...range, topics: [[TRANSFER, TRANSFER_SINGLE, TRANSFER_BATCH]] }]);
  // The wrapped native token mints by Deposit and burns by Withdrawal: a
  // transfer from and to the zero address, so that transfers sum to balances.
  const wrapping = await node.rpc.call('eth_getLogs', [{ ...range, address: contracts.wrapped, topics: [[DEPOSIT, WITHDRAWAL]] }]);
  logs.push(...wrapping);
  logs.sort((a, b) => Number(a.blockNumber) - Number(b.blockNumber) || Number(a.logIndex) - Number(b.logIndex));
  const fungible = [];
  const nfts = [];
  const coder = AbiCoder.defaultAbiCoder();
  for (const log of logs) {
    const address = lower(log.address);
    const at = [Number(log.blockNumber), lower(log.transactionHash), Number(log.logIndex), address];
    if (log.topics[0] === DEPOSIT || log.topics[0] === WITHDRAWAL) {
      const party = addressOfTopic(log.topics[1]);
      const [from, to] = log.topics[0] === DEPOSIT ? [ZERO, party] : [party, ZERO];
      fungible.push({ key: [...at, from, to, BigInt(log.data).toString()] });
    } else if (log.topics[0] === TRANSFER && log.topics.length === 3) {
      fungible.push({ key: [...at, addressOfTopic(log.topics[1]), addressOfTopic(log.topics[2]), BigInt(log.data).toString()] });
    } else if (log.topics[0] === TRANSFER && log.topics.length === 4) {
      nfts.push({ key: [...at, BigInt(log.topics[3]).toString(), addressOfTopic(log.topics[1]), addressOfTopic(log.topics[2]), '1'] });
    } else if (log.topics[0] === TRANSFER_SINGLE) {
      const [id, value] = coder.decode(['uint256', 'uint256'], log.data);
      nfts.push({ key: [...at, id.toString(), addressOfTopic(log.topics[2]), addressOfTopic(log.topics[3]), value.toString()] });
    } else if (log.topics[0] === TRANSFER_BATCH) {
      const [ids, values] = coder.decode(['uint256[]', 'uint256[]'], log.data);
      ids.forEach((id, i) => nfts.push({ key: [...at, id.toString(), addressOfTopic(log.topics[2]), addressOfTopic(log.topics[3]), values[i].toString()] }));
    }
  }
  const newestFirst = (items) => items.map((i) => i.key.join(':')).reverse();
  const erc20Key = (t) => [Number(t.block_number), lower(t.transaction_hash), t.log_index, lower(t.address), lower(t.from_address), lower(t.to_address), t.value].join(':');
  const nftKey = (t) => [Number(t.block_number), lower(t.transaction_hash), t.log_index, lower(t.token_address), t.token_id, lower(t.from_address), lower(t.to_address), t.amount].join(':');
  // Within one batch log the node's order is the event's; ours is the same.
  const involves = (w) => (i) => i.key[4 + (i.key.length === 8 ? 1 : 0)] === w || i.key.at(-2) === w;
  for (const w of wallets.slice(0, 8)) {
    const where = `transfers wallet=${w}`;
    const erc20 = await api.pages(`/api/v2.2/${w}/erc20/transfers`);
    if (results.check(erc20.error === null, where, 'getWalletTokenTransfers', 'every page with HTTP 200', erc20.error)) {
      results.eq(where, 'getWalletTokenTransfers = the Transfer logs from or to it', show(newestFirst(fungible.filter(involves(w)))), show(erc20.items.map(erc20Key)));
    }
    const moved = await api.pages(`/api/v2.2/${w}/nft/transfers`);
    if (results.check(moved.error === null, where, 'getWalletNFTTransfers', 'every page with HTTP 200', moved.error)) {
      results.eq(where, 'getWalletNFTTransfers = the NFT transfer logs from or to it', show(newestFirst(nfts.filter(involves(w)))), show(moved.items.map(nftKey)));
    }
  }
  // A wallet's transactions: those it sent or was sent, from the node's blocks.
  const sent = [];
  for (let number = 0; number <= head; number++) {
    const block = await node.rpc.call('eth_getBlockByNumber', ['0x' + number.toString(16), true]);
    for (const tx of block.transactions) sent.push({ key: `${number}:${Number(tx.transactionIndex)}:${lower(tx.hash)}`, from: lower(tx.from), to: tx.to ? lower(tx.to) : null, value: BigInt(tx.value).toString() });
  }
  for (const w of wallets.slice(0, 8)) {
    const where = `transactions wallet=${w}`;
    const listed = await api.pages(`/api/v2.2/${w}`);
    if (!results.check(listed.error === null, where, 'getWalletTransactions', 'every page with HTTP 200', listed.error)) continue;
    const expected = sent.filter((t) => t.from === w || t.to === w).map((t) => t.key).reverse();
    results.eq(where, 'getWalletTransactions = the blocks\' transactions from or to it', show(expected), show(listed.items.map((t) => `${t.block_number}:${t.transaction_index}:${lower(t.hash)}`)));
    const rpc = await api.extended('eth_getTransactions', { address: w, limit: api.limit });
    results.eq(where, 'eth_getTransactions = the first REST page', show(listed.pages[0] && listed.pages[0].result), show(rpc.result ? rpc.result.result : rpc.error));
    // Its counts are those of its listings, and its activity runs from its first transaction to its last.
    const stats = (await api.rest(`/api/v2.2/wallets/${w}/stats`, [])).json;
    const counted = async (path) => (await api.pages(path)).items.length;
    const want = [listed.items.length, await counted(`/api/v2.2/${w}/erc20/transfers`), await counted(`/api/v2.2/${w}/nft/transfers`), await counted(`/api/v2.2/${w}/nft`)];
    results.eq(where, 'getWalletStats = the listings\' counts', show(want.map(String)), show(stats && [stats.transactions.total, stats.token_transfers.total, stats.nft_transfers.total, stats.nfts]));
    const active = (await api.rest(`/api/v2.2/wallets/${w}/chains`, [['chains', api.chain]], { chain: false })).json;
    const mark = (t) => t && `${t.block_number}:${lower(t.transaction_hash)}`;
    const items = listed.items;
    const span = items.length ? [mark({ block_number: items.at(-1).block_number, transaction_hash: items.at(-1).hash }), mark({ block_number: items[0].block_number, transaction_hash: items[0].hash })] : [null, null];
    results.eq(where, 'getWalletActiveChains = its first and last transactions', show(span), show(active && active.active_chains.map((c) => [mark(c.first_transaction), mark(c.last_transaction)])[0]));
  }
  // A wallet's history: its transactions and those that moved its tokens or
  // NFTs, each with those transfers and the transaction's own value.
  const byKey = new Map(sent.map((t) => [t.key.split(':')[2], t]));
  const place = (key) => key.split(':').slice(0, 2).map(Number);
  const newestPlaceFirst = (a, b) => place(b)[0] - place(a)[0] || place(b)[1] - place(a)[1];
  for (const w of wallets.slice(0, 4)) {
    const where = `history wallet=${w}`;
    const history = await api.pages(`/api/v2.2/wallets/${w}/history`);
    if (!results.check(history.error === null, where, 'getWalletHistory', 'every page with HTTP 200', history.error)) continue;
    const mine = [...fungible, ...nfts].filter(involves(w));
    const keys = new Set(sent.filter((t) => t.from === w || t.to === w).map((t) => t.key));
    for (const item of mine) keys.add(byKey.get(item.key[1]).key);
    results.eq(where, 'getWalletHistory = its transactions and those of its transfers', show([...keys].sort(newestPlaceFirst)), show(history.items.map((t) => `${t.block_number}:${t.transaction_index}:${lower(t.hash)}`)));
    const moves = (items, hash) => items.filter((i) => i.key[1] === hash).map((i) => i.key.slice(2).join(':'));
    for (const item of history.items) {
      const hash = lower(item.hash);
      const tx = byKey.get(hash);
      const at = `${where} tx=${hash}`;
      results.eq(at, 'erc20_transfers = its Transfer logs from or to the wallet', show(moves(mine.filter((i) => i.key.length === 7), hash)), show(item.erc20_transfers.map((t) => [t.log_index, lower(t.address), lower(t.from_address), lower(t.to_address), t.value].join(':'))));
      results.eq(at, 'nft_transfers = its NFT transfer logs from or to the wallet', show(moves(mine.filter((i) => i.key.length === 8), hash)), show(item.nft_transfers.map((t) => [t.log_index, lower(t.token_address), t.token_id, lower(t.from_address), lower(t.to_address), t.amount].join(':'))));
      const native = tx && tx.value !== '0' && tx.to && (tx.from === w || tx.to === w) ? [`${tx.from}:${tx.to}:${tx.value}`] : [];
      results.eq(at, 'native_transfers = its own value to or from the wallet', show(native), show(item.native_transfers.map((n) => `${lower(n.from_address)}:${lower(n.to_address)}:${n.value}`)));
    }
    const decoded = await api.extended('eth_getDecodedTransactions', { address: w });
    const first = (await api.rest(`/api/v2.2/wallets/${w}/history`, [['include_input_data', 'true']])).json;
    results.eq(where, 'eth_getDecodedTransactions = the first REST page with method labels', show(first && first.result), show(decoded.result || decoded.error));
  }
  for (const token of [...tokens].slice(0, 4)) {
    const listed = await api.pages(`/api/v2.2/erc20/${token}/transfers`);
    if (!results.check(listed.error === null, `transfers token=${token}`, 'getTokenTransfers', 'every page with HTTP 200', listed.error)) continue;
    results.eq(`transfers token=${token}`, 'getTokenTransfers = its Transfer logs', show(newestFirst(fungible.filter((i) => i.key[3] === token))), show(listed.items.map(erc20Key)));
  }
  for (const collection of collections) {
    const listed = await api.pages(`/api/v2.2/nft/${collection}/transfers`);
    if (!results.check(listed.error === null, `transfers collection=${collection}`, 'getNFTContractTransfers', 'every page with HTTP 200', listed.error)) continue;
    results.eq(`transfers collection=${collection}`, 'getNFTContractTransfers = its transfer logs', show(newestFirst(nfts.filter((i) => i.key[3] === collection))), show(listed.items.map(nftKey)));
  }
}

function byId(a, b) {
  const [x, y] = [BigInt(a[0]), BigInt(b[0])];
  return x < y ? -1 : x > y ? 1 : 0;
}

/// A REST block and its transactions are the node's, rewritten: the block
/// by number and by hash, each transaction beside the node's receipt, one
/// transaction alone, and its verbose form's fee.
async function compareBlock(results, api, node, number) {
  const where = `rest block=${number}`;
  const block = await node.rpc.call('eth_getBlockByNumber', ['0x' + number.toString(16), true]);
  const byNumber = await api.rest(`/api/v2.2/block/${number}`, []);
  if (!results.check(byNumber.status === 200, where, 'getBlock', 'HTTP 200', byNumber.text)) return;
  const rest = byNumber.json;
  const byHash = await api.rest(`/api/v2.2/block/${block.hash}`, []);
  results.eq(where, 'getBlock by hash = by number', show(rest), show(byHash.json));
  results.eq(where, 'hash', block.hash, rest.hash);
  results.eq(where, 'parent_hash', block.parentHash, rest.parent_hash);
  results.eq(where, 'gas_used', BigInt(block.gasUsed).toString(), rest.gas_used);
  results.eq(where, 'timestamp', Number(block.timestamp), Date.parse(rest.timestamp) / 1000);
  results.eq(where, 'transactions', show(block.transactions.map((t) => t.hash)), show(rest.transactions.map((t) => t.hash)));
  for (const [i, tx] of block.transactions.entries()) {
    const item = rest.transactions[i];
    if (!item) continue;
    const receipt = await node.rpc.call('eth_getTransactionReceipt', [tx.hash]);
    const tag = `${where} tx=${tx.hash}`;
    const want = [lower(tx.from), tx.to ? lower(tx.to) : null, BigInt(tx.value).toString(), BigInt(receipt.gasUsed).toString(), String(Number(receipt.status)), BigInt(receipt.effectiveGasPrice ?? tx.gasPrice).toString()];
    results.eq(tag, 'from, to, value, gas used, status, gas price', show(want), show([item.from_address, item.to_address, item.value, item.receipt_gas_used, item.receipt_status, item.gas_price]));
    results.eq(tag, 'logs', show(receipt.logs.map((l) => [lower(l.address), l.topics, l.data])), show(item.logs.map((l) => [l.address, [l.topic0, l.topic1, l.topic2, l.topic3].filter((t) => t), l.data])));
    if (i > 0) continue;
    const alone = await api.rest(`/api/v2.2/transaction/${tx.hash}`, []);
    results.eq(tag, 'getTransaction = its block item', show(item), show(alone.json));
    const verbose = await api.rest(`/api/v2.2/transaction/${tx.hash}/verbose`, []);
    const fee = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice ?? tx.gasPrice);
    results.eq(tag, 'getTransactionVerbose fee (wei)', fee.toString(), verbose.json && weiOf(verbose.json.transaction_fee));
  }
}

/// Whole units of 18 decimals (as the Data API writes a fee) back to wei.
function weiOf(text) {
  const [whole, fraction = ''] = String(text).split('.');
  return (BigInt(whole) * 10n ** 18n + BigInt((fraction + '0'.repeat(18)).slice(0, 18))).toString();
}

function compareNfts(results, contracts, held, wallet, answer, collectionsAnswer) {
  const where = `nft wallet=${wallet}`;
  const expected = held.get(wallet);
  if (results.check(answer.error === null, where, 'answer', 'every page with HTTP 200', answer.error)) {
    for (const page of answer.pages) results.eq(where, 'status', 'SYNCED', page.status);
    const total = answer.pages.length ? answer.pages[0].total : null;
    if (total !== null && total !== undefined) results.eq(where, 'total', answer.items.length, Number(total));
    const got = new Map();
    for (const item of answer.items) {
      const key = `${lower(item.token_address)}:${item.token_id}`;
      const tag = `${where} nft=${key}`;
      if (!results.check(!got.has(key), tag, 'item', 'listed once', 'listed twice')) continue;
      got.set(key, item);
      const want = expected.get(key);
      if (!results.check(want !== undefined, tag, 'held', 'not held by the wallet (per the node)', `listed with amount ${item.amount}`)) continue;
      results.eq(tag, 'contract_type', want.standard, item.contract_type);
      results.eq(tag, 'owner_of', wallet, lower(item.owner_of));
      results.eq(tag, 'amount', want.amount.toString(), item.amount);
      results.eq(tag, 'token_uri', want.uri, item.token_uri);
      if (want.standard === 'ERC721') {
        const collection = contracts.collections.get(want.collection);
        results.eq(tag, 'name', collection.nodeName, item.name);
        results.eq(tag, 'symbol', collection.nodeSymbol, item.symbol);
        if (want.minted !== null && want.minted !== undefined) results.eq(tag, 'block_number_minted', String(want.minted), item.block_number_minted);
      }
    }
    for (const [key, want] of expected) {
      results.check(got.has(key), `${where} nft=${key}`, 'listed', `held (${want.standard}, amount ${want.amount})`, 'not listed');
    }
  }
  const cwhere = `nft/collections wallet=${wallet}`;
  if (results.check(collectionsAnswer.error === null, cwhere, 'answer', 'every page with HTTP 200', collectionsAnswer.error)) {
    for (const page of collectionsAnswer.pages) results.eq(cwhere, 'status', 'SYNCED', page.status);
    const wanted = new Map();
    for (const item of expected.values()) wanted.set(item.collection, item.standard);
    const got = new Map();
    for (const item of collectionsAnswer.items) {
      const address = lower(item.token_address);
      results.check(!got.has(address), `${cwhere} collection=${address}`, 'collection', 'listed once', 'listed twice');
      got.set(address, item);
      const standard = wanted.get(address);
      if (results.check(standard !== undefined, `${cwhere} collection=${address}`, 'held', 'no token of it held', 'listed')) {
        results.eq(`${cwhere} collection=${address}`, 'contract_type', standard, item.contract_type);
      }
    }
    for (const [address, standard] of wanted) {
      results.check(got.has(address), `${cwhere} collection=${address}`, 'listed', `held (${standard})`, 'not listed');
    }
  }
}

// ---------------------------------------------------------------- blocks

/// The blocks to check: `--blocks` (numbers, `latest`, `-K`), or a spread
/// over the chain and the last few blocks.
/// The everyday operations at `block`, against the node and against the
/// answers compared above: native balances are eth_getBalance; a wallet's
/// ERC20 balances are balanceOf for every token it holds, and
/// eth_getTokenBalances answers the same; a REST price is
/// the gateway's eth_getTokenPrice, and multiple prices the single ones;
/// dateToBlock names the last block at or before a date. At the latest
/// block also: token metadata is name, symbol, decimals and totalSupply (and
/// eth_getTokenMetadata answers the same),
/// and net worth is the sum of the wallet tokens' USD values.
async function compareEveryday(results, api, node, contracts, expected, wallets, priced, { latest, tokensAnswers }) {
  const block = expected.block;
  const at = latest ? [] : [['to_block', String(block)]];
  const where = (what) => `everyday block=${block}${what ? ' ' + what : ''}`;
  for (const wallet of wallets) {
    const one = await api.rest(`/api/v2.2/${wallet}/balance`, at);
    results.eq(where(`wallet=${wallet}`), 'getNativeBalance', expected.natives.get(wallet).toString(), one.json && one.json.balance);
    const erc20 = await api.rest(`/api/v2.2/${wallet}/erc20`, [...at, ['exclude_spam', 'false']]);
    if (!results.check(erc20.status === 200 && Array.isArray(erc20.json), where(`wallet=${wallet}`), 'getWalletTokenBalances', 'HTTP 200 array', erc20.text)) continue;
    const toBlock = latest ? 'latest' : block;
    const viaRpc = await api.extended('eth_getTokenBalances', { address: wallet, excludeSpam: false, toBlock });
    results.eq(where(`wallet=${wallet}`), 'eth_getTokenBalances = getWalletTokenBalances', show(erc20.json), show(viaRpc.result ?? viaRpc.error));
    const listed = new Map(erc20.json.map((t) => [t.token_address.toLowerCase(), t]));
    for (const token of contracts.tokens) {
      const held = expected.balances.get(wallet).get(token.address);
      const item = listed.get(token.address);
      results.eq(where(`wallet=${wallet} token=${token.label}`), 'getWalletTokenBalances balance', held > 0n ? held.toString() : undefined, item && item.balance);
      if (item) results.eq(where(`token=${token.label}`), 'getWalletTokenBalances decimals', token.decimals, item.decimals);
    }
  }
  const some = wallets.slice(0, 25);
  const many = await api.rest('/api/v2.2/wallets/balances', [...at, ...some.map((w) => ['wallet_addresses', w])]);
  const chain = many.json && many.json[0];
  if (results.check(many.status === 200 && chain, where(), 'getNativeBalancesForAddresses', 'HTTP 200', many.text)) {
    results.eq(where(), 'getNativeBalancesForAddresses block', String(block), chain.block_number);
    const total = some.reduce((sum, w) => sum + expected.natives.get(w), 0n);
    results.eq(where(), 'getNativeBalancesForAddresses total', total.toString(), chain.total_balance);
    some.forEach((w, i) => results.eq(where(`wallet=${w}`), 'getNativeBalancesForAddresses', expected.natives.get(w).toString(), chain.wallet_balances[i] && chain.wallet_balances[i].balance));
  }
  // REST prices against the gateway's answers at the same block.
  const singles = [];
  priced = priced.slice(0, 30);
  for (const { token, answer } of priced) {
    const rest = await api.rest(`/api/v2.2/erc20/${token.address}/price`, at);
    if (answer.error) {
      results.eq(where(`token=${token.label}`), 'getTokenPrice status (the gateway has no price)', 404, rest.status);
    } else {
      results.eq(where(`token=${token.label}`), 'getTokenPrice = eth_getTokenPrice', show(answer.result), show(rest.json));
      singles.push(answer.result);
    }
  }
  const body = { tokens: priced.map(({ token }) => ({ token_address: token.address, to_block: String(block) })) };
  const multiple = await api.restPost('/api/v2.2/erc20/prices', body);
  results.eq(where(), 'getMultipleTokenPrices = the single prices', show(singles), show(multiple.json));
  // dateToBlock at this block's second: the last block of that second.
  const time = async (n) => Number((await node.rpc.call('eth_getBlockByNumber', ['0x' + n.toString(16), false])).timestamp);
  const date = await time(block);
  const head = await node.head();
  let last = block;
  while (last < head && (await time(last + 1)) <= date) last++;
  const found = await api.rest('/api/v2.2/dateToBlock', [['date', String(date)]]);
  results.eq(where(), 'dateToBlock block', last, found.json && found.json.block);
  if (!latest) return;
  const addresses = contracts.tokens.filter((t) => t.role !== 'pair').slice(0, 10);
  const metadata = await api.rest('/api/v2.2/erc20/metadata', addresses.map((t) => ['addresses', t.address]));
  const viaRpc = await api.extended('eth_getTokenMetadata', { addresses: addresses.map((t) => t.address) });
  results.eq(where(), 'eth_getTokenMetadata = getTokenMetadata', show(metadata.json), show(viaRpc.result ?? viaRpc.error));
  const byAddress = new Map((metadata.json || []).map((m) => [m.address.toLowerCase(), m]));
  for (const token of addresses) {
    const m = byAddress.get(token.address) || {};
    const w = where(`token=${token.label}`);
    results.eq(w, 'getTokenMetadata name', token.name, m.name);
    results.eq(w, 'getTokenMetadata symbol', token.symbol, m.symbol);
    results.eq(w, 'getTokenMetadata decimals', String(token.decimals), m.decimals);
    results.eq(w, 'getTokenMetadata total_supply', expected.supplies.get(token.address).toString(), m.total_supply);
  }
  for (let i = 0; i < wallets.length; i++) {
    const answer = tokensAnswers[i];
    if (answer.error) continue;
    const native = answer.items.filter((t) => t.native_token).reduce((sum, t) => sum + (t.usd_value ?? 0), 0);
    const erc20 = answer.items.filter((t) => !t.native_token).reduce((sum, t) => sum + (t.usd_value ?? 0), 0);
    const worth = await api.rest(`/api/v2.2/wallets/${wallets[i]}/net-worth`, [['chains', api.chain]], { chain: false });
    const chain = worth.json && worth.json.chains && worth.json.chains[0];
    const w = where(`wallet=${wallets[i]}`);
    results.eq(w, 'getWalletNetWorth native', (native).toFixed(2), chain && chain.native_balance_usd);
    results.eq(w, 'getWalletNetWorth tokens', (erc20).toFixed(2), chain && chain.token_balance_usd);
    results.eq(w, 'getWalletNetWorth total', (native + erc20).toFixed(2), worth.json && worth.json.total_networth_usd);
  }
}

function chooseBlocks(spec, head, first) {
  let blocks;
  if (spec) {
    blocks = spec.split(',').map((s) => s.trim()).filter(Boolean).map((s) => {
      if (s === 'latest') return head;
      const n = Number(s);
      if (!Number.isInteger(n)) throw new Error(`--blocks: ${s} is not a block`);
      return n < 0 ? head + n : n;
    });
  } else {
    blocks = [head, head - 1, head - 2, head - 5, head - 10, head - 20];
    const from = Math.max(0, first);
    for (let i = 0; i < 8; i++) blocks.push(from + Math.floor(((head - from) * i) / 8));
  }
  return [...new Set(blocks.filter((b) => b >= 0 && b <= head))].sort((a, b) => b - a);
}

// ---------------------------------------------------------------- main

async function selfTest(node, dep, contracts, wallets, blocks, absent) {
  const results = new Results();
  const head = await node.head();
  const latest = await expectedAt(node, contracts, wallets, head);
  const { held: heldNow } = await expectedNfts(node, dep, contracts, wallets);
  // Each branch of this chain left its marks on its own address...
  for (const branch of dep.branches ?? []) {
    const only = branch.onlyAddress;
    const where = `self-test branch=${branch.name} address=${only}`;
    results.check(latest.natives.get(only) > 0n, where, 'native balance', 'some', latest.natives.get(only));
    const tokens = [...latest.balances.get(only).values()].filter((b) => b > 0n).length;
    results.check(tokens > 0, where, 'tokens', 'some', tokens);
    const standards = new Set([...heldNow.get(only).values()].map((i) => i.standard));
    results.check(standards.has('ERC721') && standards.has('ERC1155'), where, 'NFTs', 'ERC721 and ERC1155', [...standards]);
  }
  // ...and a discarded branch's address holds nothing on the node.
  for (const file of absent) {
    const branch = readJson(file).branches.at(-1);
    const only = branch.onlyAddress;
    const where = `self-test discarded branch=${branch.name} address=${only}`;
    const gone = await expectedAt(node, contracts, [only], head);
    results.eq(where, 'native balance', 0n, gone.natives.get(only));
    results.eq(where, 'tokens', 0, [...gone.balances.get(only).values()].filter((b) => b > 0n).length);
    const { held } = await expectedNfts(node, readJson(file), contracts, [only]);
    results.eq(where, 'NFTs', 0, held.get(only).size);
  }
  for (const block of blocks) {
    const expected = await expectedAt(node, contracts, wallets, block);
    let holdings = 0;
    for (const w of wallets) for (const balance of expected.balances.get(w).values()) if (balance > 0n) holdings++;
    const priced = contracts.tokens.filter((t) => expected.prices.get(t.address));
    const native = expected.native;
    const pairName = (address) => {
      const pair = contracts.pairs.find((p) => p.address === address);
      return `${pair.name}@${contracts.factories.indexOf(pair.factory) + 1}`;
    };
    console.log(
      `block ${block}: ${holdings} non-zero token balances over ${wallets.length} wallets; ` +
        (native ? `ETH ${native.usd} USD (${pairName(native.pair)}); ` : 'no ETH price; ') +
        priced.map((t) => `${t.label} ${expected.prices.get(t.address).usd} (${pairName(expected.prices.get(t.address).pair)})`).join(', '),
    );
    for (const token of contracts.tokens) {
      // The wallets (and the zero address, where pairs lock their first
      // liquidity) hold the whole supply: the deployment names every holder.
      let sum = 0n;
      for (const w of [...wallets, ZERO]) sum += expected.balances.get(w).get(token.address);
      results.eq(`self-test block=${block} token=${token.label}`, 'sum of the wallets\' balances', expected.supplies.get(token.address), sum);
      const price = expected.prices.get(token.address);
      if (price) {
        // The USD and the wei prices say the same.
        const viaWei = (Number(price.nativeWei) / 1e18) * native.usd;
        results.close(`self-test block=${block} token=${token.label}`, 'usd vs wei × ETH price', price.usd, viaWei, 1e-6);
      }
    }
  }
  const { held, owners721 } = await expectedNfts(node, dep, contracts, wallets);
  for (const item of owners721) {
    if (item.owner) results.check(wallets.includes(item.owner), `self-test nft=${item.collection}:${item.tokenId}`, 'owner', 'a wallet of the deployment', item.owner);
  }
  let nfts = 0;
  for (const [w, items] of held) {
    nfts += items.size;
    if (items.size && process.env.W3API_VERBOSE) {
      console.log(`${w}: ` + [...items.values()].map((i) => `${i.standard} ${i.collection}:${i.tokenId}×${i.amount}`).join(', '));
    }
  }
  console.log(`latest: ${nfts} NFT holdings; ${owners721.filter((o) => !o.owner).length} ERC721 tokens burned`);
  return results;
}

async function main() {
  const args = parseArgs(process.argv.slice(2), { flags: ['selfTest', 'waitOnly'] });
  required(args, 'rpc', 'deployment');
  const dep = readJson(args.deployment);
  const node = new Node(args.rpc);
  const wallets = [...new Set(dep.wallets.map((w) => w.address.toLowerCase()))];
  const started = Date.now();

  if (args.selfTest) {
    const head = await node.head();
    const contracts = await loadContracts(node, dep);
    const blocks = chooseBlocks(args.blocks, head, dep.firstBlock ?? 1);
    console.log(`--- self-test at blocks ${blocks.join(', ')} (head ${head})`);
    const absent = (args.absent ?? '').split(',').filter(Boolean);
    const results = await selfTest(node, dep, contracts, wallets, blocks, absent);
    console.log(`--- self-test: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    console.log(`self-test: ${results.passed} passed, ${results.failed} failed`);
    process.exit(results.failed ? 1 : 0);
  }

  required(args, 'api', 'key');
  const api = new Api(args.api, args.key, args.chain ?? 'eth', Number(args.limit ?? 5));
  const results = new Results();
  let head;
  try {
    head = await waitForHead(node, api, wallets[0], Number(args.wait ?? 120));
  } catch (error) {
    results.check(false, 'wait', 'w3api at the node head', 'indexed', error.message);
    console.log(`check: ${results.passed} passed, ${results.failed} failed`);
    process.exit(1);
  }
  console.log(`--- w3api is at the node's head, block ${head} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  if (args.waitOnly) {
    console.log(`check: 1 passed, 0 failed`);
    process.exit(0);
  }

  const contracts = await loadContracts(node, dep);
  const blocks = chooseBlocks(args.blocks, head, dep.firstBlock ?? 1);
  const concurrency = Number(args.concurrency ?? 6);
  console.log(`--- compare at blocks ${blocks.join(', ')}: ${wallets.length} wallets, ${contracts.tokens.length} tokens`);
  for (const block of blocks) {
    const expected = await expectedAt(node, contracts, wallets, block);
    const latest = block === head;
    const answers = await pool(wallets, concurrency, (w) => api.tokens(w, latest ? null : block));
    wallets.forEach((w, i) => compareTokens(results, contracts, expected, w, answers[i], { latest }));
    // Prices: on every pair, and on each exchange alone.
    const queries = [];
    for (const token of contracts.tokens) {
      queries.push({ token, exchange: null, expected: expected.prices.get(token.address) });
      for (const factory of contracts.factories) {
        if (contracts.firstPairOf.get(factory) > block) continue;
        queries.push({ token, exchange: factory, expected: expected.pricesOn.get(factory).get(token.address) });
      }
    }
    const priceAnswers = await pool(queries, concurrency, ({ token, exchange }) => {
      const params = { address: token.address };
      if (!latest) params.toBlock = block;
      if (exchange) params.exchange = exchange;
      return api.tokenPrice(params);
    });
    queries.forEach((q, i) => comparePrice(results, contracts, q.token, block, q.expected, priceAnswers[i], q.exchange));
    const priced = queries.map((q, i) => ({ ...q, answer: priceAnswers[i] })).filter((q) => q.exchange === null);
    await compareEveryday(results, api, node, contracts, expected, wallets, priced, { latest, tokensAnswers: answers });
  }

  const { held, owners721 } = await expectedNfts(node, dep, contracts, wallets);
  const nftAnswers = await pool(wallets, concurrency, async (w) => [await api.nfts(w), await api.collections(w)]);
  wallets.forEach((w, i) => compareNfts(results, contracts, held, w, nftAnswers[i][0], nftAnswers[i][1]));
  await compareNftListings(results, api, owners721, held, wallets, nftAnswers);
  for (const number of [...new Set([1, Math.floor(head / 2), head])]) await compareBlock(results, api, node, number);
  await compareTransfers(results, api, node, contracts, wallets, head);

  // Discarded branches: their own address shows nothing, now or at any
  // block since the branch point.
  for (const file of (args.absent ?? '').split(',').filter(Boolean)) {
    const branch = readJson(file).branches.at(-1);
    const only = branch.onlyAddress;
    const where = `absent branch=${branch.name} address=${only}`;
    const onNode = await expectedAt(node, contracts, [only], head);
    const nodeHolds = onNode.natives.get(only) > 0n || [...onNode.balances.get(only).values()].some((b) => b > 0n);
    results.check(!nodeHolds, where, 'the node', 'nothing held after the revert', 'holdings');
    for (const block of [null, ...blocks.filter((b) => b > branch.from)]) {
      const answer = await api.tokens(only, block);
      if (results.check(answer.error === null, `${where} block=${block ?? 'latest'}`, 'tokens answer', 'HTTP 200', answer.error)) {
        results.check(answer.items.length === 0, `${where} block=${block ?? 'latest'}`, 'tokens', 'none', answer.items.map((i) => `${i.token_address}=${i.balance}`));
      }
    }
    const nfts = await api.nfts(only);
    results.check(nfts.error === null && nfts.items.length === 0, where, 'nfts', 'none', nfts.error ?? nfts.items.map((i) => `${i.token_address}:${i.token_id}`));
    const collections = await api.collections(only);
    results.check(collections.error === null && collections.items.length === 0, where, 'nft collections', 'none', collections.error ?? collections.items.map((i) => i.token_address));
  }

  console.log(`--- compared in ${((Date.now() - started) / 1000).toFixed(1)} s, ${api.requests} requests to w3api`);
  console.log(`check: ${results.passed} passed, ${results.failed} failed`);
  process.exit(results.failed ? 1 : 0);
}

module.exports = { NATIVE, expectedAt, expectedNfts, loadContracts, nativeReference, priceOf };

if (require.main === module) {
  main().catch((error) => {
    if (error instanceof RpcError) console.error(`the node refused a call: ${error.message}`);
    fail(error);
  });
}
