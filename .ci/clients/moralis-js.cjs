'use strict';
// The official Moralis JS SDK (npm `moralis`) against `w3api serve`: wallet
// tokens, wallet NFTs and NFT collections (every page through the SDK's
// hasNext()/next()), the everyday operations (native balances, ERC20
// balances, prices, metadata, date to block, net worth) and the Solana
// sign-in (requestMessage + verify), on the devnet (.ci/clients.sh) and in
// node mode against Hardhat (.ci/node-mode.sh), where the fixture serves
// only eth: a case on another chain then runs on eth with its options. Each
// SDK result is compared with the raw REST answer (plain GET with X-API-Key,
// cursors followed independently). The streams module runs in
// moralis-streams.cjs, against a server of its own that makes blocks.
//
// Redirecting the SDK to a local server:
// - the data API has a config key: Moralis.start({ evmApiBaseUrl: `${URL}/api/v2.2` });
// - the Auth and Streams modules have none (their base URLs are constants,
//   https://authapi.moralis.io and https://api.moralis-streams.com): the SDK
//   sends every request through the default axios instance, so one axios
//   request interceptor rewrites those two origins to the local server.

const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const { execFileSync } = require('node:child_process');
const Moralis = require('moralis').default;
// The axios instance the SDK core sends its requests with.
const axios = require(require.resolve('axios', { paths: [path.dirname(require.resolve('@moralisweb3/common-core'))] }));
const {
  URL: BASE, KEY, fixture: fx, rawGet, rawPost, expectSame, runner, assert, show,
} = require('./lib.cjs');

const PRODUCTION = {
  'https://authapi.moralis.io': BASE,
  'https://api.moralis-streams.com': BASE,
};
const sent = [];
axios.interceptors.request.use((config) => {
  for (const [production, local] of Object.entries(PRODUCTION)) {
    for (const key of ['baseURL', 'url']) {
      const value = config[key];
      if (typeof value === 'string' && value.startsWith(production)) config[key] = local + value.slice(production.length);
    }
  }
  // Nothing leaves loopback.
  const target = axios.getUri(config);
  const host = new URL(target).hostname;
  if (host !== '127.0.0.1' && host !== 'localhost') throw new Error(`refusing a request to ${target}`);
  sent.push(`${(config.method || 'get').toUpperCase()} ${target}`);
  return config;
});

const { check, done, fatal } = runner('moralis-js');
const MAX_PAGES = 200;

// How the SDK's typed objects name the raw fields: camelCase; typed values
// (EvmAddress, EvmNative, BigNumber, SolAddress, ...) compared through their
// JSON form, dates by instant.
function sdkView(value) {
  if (value === null || value === undefined) return value;
  if (value instanceof Date) return value;
  if (Array.isArray(value)) return value.map(sdkView);
  if (typeof value === 'object') {
    if (value.constructor && value.constructor.name === 'BigNumber') return value.toBigInt();
    if (typeof value.toJSON === 'function' && value.constructor !== Object) return sdkView(value.toJSON());
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = sdkView(v);
    return out;
  }
  return value;
}
const camel = (s) => s.replace(/[-_]([a-z0-9])/gi, (_, c) => c.toUpperCase());

/** Compares an SDK object (camelCase, typed) with a raw snake_case JSON object. */
function compareSdk(sdkObject, raw, what, rawTransforms = {}) {
  const adjusted = {};
  for (const [k, v] of Object.entries(raw)) adjusted[k] = rawTransforms[k] && v != null ? rawTransforms[k](v) : v;
  return expectSame(sdkView(sdkObject), adjusted, what, { keyMap: camel });
}

/** Every raw page of a wallet endpoint, following cursors with plain GETs. */
async function rawPages(pathname, query) {
  const pages = [];
  let cursor;
  do {
    const page = await rawGet(pathname, { ...query, cursor });
    pages.push(page);
    cursor = page.cursor;
    assert(pages.length <= MAX_PAGES, `raw ${pathname}: more than ${MAX_PAGES} pages`);
  } while (cursor);
  return pages;
}

/** Every SDK page, through hasNext()/next(). */
async function sdkPages(first) {
  const pages = [first];
  let page = first;
  while (page.hasNext()) {
    page = await page.next();
    pages.push(page);
    assert(pages.length <= MAX_PAGES, `the SDK is still paging after ${MAX_PAGES} pages (no end reached)`);
  }
  return pages;
}

function comparePages(sdk, raw, what, itemOf, rawTransforms, nonEmpty) {
  assert(sdk.length === raw.length, `${what}: ${sdk.length} SDK pages, ${raw.length} raw pages`);
  let compared = 0;
  const hidden = new Set();
  sdk.forEach((page, p) => {
    const items = page.result;
    const rawItems = raw[p].result;
    assert(items.length === rawItems.length, `${what} page ${p}: ${items.length} SDK items, ${rawItems.length} raw`);
    items.forEach((item, i) => {
      const cmp = compareSdk(itemOf(item), rawItems[i], `${what}[page ${p}][${i}]`, rawTransforms);
      compared += cmp.compared;
      cmp.hidden.forEach((h) => hidden.add(h));
    });
    const pagination = page.pagination;
    assert(Boolean(pagination.cursor) === Boolean(raw[p].cursor),
      `${what} page ${p}: SDK cursor ${show(pagination.cursor)}, raw cursor ${show(raw[p].cursor)}`);
    if (raw[p].page !== undefined) assert(pagination.page === raw[p].page, `${what} page ${p}: SDK page ${pagination.page}, raw ${raw[p].page}`);
    compared += 1;
  });
  const items = raw.reduce((n, page) => n + page.result.length, 0);
  if (nonEmpty) assert(items > 0, `${what}: no items at all (the wallet holds some)`);
  else assert(items === 0, `${what}: ${items} items where the wallet holds none`);
  return { compared, hidden, note: `${raw.length} pages, ${items} items` };
}

const summary = (r) => ({ compared: r.compared, hidden: r.hidden, note: r.note });

function solanaSign(challenge) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'w3api-moralis-js-'));
  const file = path.join(dir, 'challenge.json');
  fs.writeFileSync(file, JSON.stringify(challenge));
  const out = execFileSync(process.env.W3API_BIN, ['devnet', 'solana-sign', '--challenge', file], { encoding: 'utf8', timeout: 20000 });
  fs.rmSync(dir, { recursive: true, force: true });
  return JSON.parse(out);
}

async function main() {
  await Moralis.start({ apiKey: KEY, evmApiBaseUrl: `${BASE}/api/v2.2` });
  // The SDK takes chains as hex ids (or EvmChain), not names; the raw calls use names.
  const CHAINS = { eth: '0x1', polygon: '0x89', base: '0x2105' };
  const served = fx.chains;
  const on = (chain) => (served.includes(chain) ? chain : served[0]);
  const [w0] = fx.wallets;
  // A wallet besides the showcase holding NFTs on eth and base (discover.py).
  const holder = fx.nftWallet;
  const short = (w) => w.slice(0, 8);

  for (const [wallet, chain, limit] of [[w0, 'eth', 5], [w0, on('polygon'), 7]]) {
    await check(`getWalletTokenBalancesPrice (${short(wallet)}, ${chain}, limit ${limit}): every page`, async () => {
      const sdk = await sdkPages(await Moralis.EvmApi.wallets.getWalletTokenBalancesPrice({ address: wallet, chain: CHAINS[chain], limit }));
      const raw = await rawPages(`/api/v2.2/wallets/${wallet}/tokens`, { chain, limit });
      const r = comparePages(sdk, raw, 'tokens', (x) => x, {}, true);
      // The rest of each page as the SDK decodes it (page, page_size, ...).
      sdk.forEach((page, p) => {
        const { result: _r, cursor: _c, ...rest } = raw[p];
        const { result: _sr, cursor: _sc, ...sdkRest } = page.response;
        r.compared += compareSdk(sdkRest, rest, `tokens page ${p}`).compared;
      });
      return summary(r);
    });
  }

  await check(`getWalletTokenBalancesPrice (${short(w0)}, eth, tokenAddresses [2]): axios array form`, async () => {
    const tokenAddresses = fx.tokens.slice(0, 2);
    const sdk = await sdkPages(await Moralis.EvmApi.wallets.getWalletTokenBalancesPrice({ address: w0, chain: '0x1', tokenAddresses }));
    const raw = await rawPages(`/api/v2.2/wallets/${w0}/tokens`, { chain: 'eth', token_addresses: tokenAddresses });
    assert(raw[0].result.length === 2, `raw: ${raw[0].result.length} tokens for 2 token_addresses`);
    return summary(comparePages(sdk, raw, 'tokens', (x) => x, {}, true));
  });

  await check(`getWalletNFTs (${short(holder)}, eth, tokenAddresses [1]): axios array form`, async () => {
    const all = await rawGet(`/api/v2.2/${holder}/nft`, { chain: 'eth' });
    const tokenAddresses = [all.result[0].token_address];
    // A collection first named in token_addresses reports SYNCING for the
    // server's index delay: wait (raw) until it is SYNCED, then compare.
    const deadline = Date.now() + 15000;
    while ((await rawGet(`/api/v2.2/${holder}/nft`, { chain: 'eth', token_addresses: tokenAddresses })).status !== 'SYNCED') {
      assert(Date.now() < deadline, 'the collection is still SYNCING after 15 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    const sdk = await sdkPages(await Moralis.EvmApi.nft.getWalletNFTs({ address: holder, chain: '0x1', tokenAddresses }));
    const raw = await rawPages(`/api/v2.2/${holder}/nft`, { chain: 'eth', token_addresses: tokenAddresses });
    assert(raw[0].result.length < all.result.length || new Set(all.result.map((n) => n.token_address)).size === 1,
      'the token_addresses filter selects nothing less than every NFT');
    return summary(comparePages(sdk, raw, 'nfts', (x) => x.toJSON(), { metadata: (m) => JSON.parse(m), amount: (a) => Number(a) }, true));
  });

  const NOBODY = '0x0000000000000000000000000000000000000001';
  const nftCases = [
    [holder, 'eth', 2, { format: 'decimal' }, true],
    [w0, on('polygon'), 3, { normalizeMetadata: true, mediaItems: true }, true],
    [holder, on('base'), 2, { format: 'hex' }, true],
    // The showcase wallet collects NFTs on every chain; an address nobody
    // sends to holds none.
    [w0, 'eth', 2, {}, true],
    [NOBODY, 'eth', 2, {}, false],
  ];
  for (const [wallet, chain, limit, extra, nonEmpty] of nftCases) {
    await check(`getWalletNFTs (${short(wallet)}, ${chain}, limit ${limit}${Object.keys(extra).map((k) => `, ${k} ${extra[k]}`).join('')}): every page`, async () => {
      const sdk = await sdkPages(await Moralis.EvmApi.nft.getWalletNFTs({ address: wallet, chain: CHAINS[chain], limit, ...extra }));
      const query = { chain, limit, format: extra.format, normalizeMetadata: extra.normalizeMetadata, media_items: extra.mediaItems };
      const raw = await rawPages(`/api/v2.2/${wallet}/nft`, query);
      return summary(comparePages(sdk, raw, 'nfts', (x) => x.toJSON(), {
        metadata: (m) => JSON.parse(m),
        amount: (a) => Number(a),
      }, nonEmpty));
    });
  }

  const collectionCases = [
    [holder, 'eth', 1, false, true], [w0, on('polygon'), 2, true, true], [w0, 'eth', 2, false, true], [NOBODY, 'eth', 2, false, false],
  ];
  for (const [wallet, chain, limit, tokenCounts, nonEmpty] of collectionCases) {
    await check(`getWalletNFTCollections (${short(wallet)}, ${chain}, limit ${limit}${tokenCounts ? ', tokenCounts' : ''}): every page`, async () => {
      const sdk = await sdkPages(await Moralis.EvmApi.nft.getWalletNFTCollections({ address: wallet, chain: CHAINS[chain], limit, tokenCounts }));
      const raw = await rawPages(`/api/v2.2/${wallet}/nft/collections`, { chain, limit, token_counts: tokenCounts });
      return summary(comparePages(sdk, raw, 'collections', (x) => x.toJSON(), {}, nonEmpty));
    });
  }

  // The everyday operations: the SDK's raw answer is the plain GET's (or
  // POST's), and its typed result decodes it.
  const priced = fx.tokens.slice(0, 3);
  await check(`getNativeBalance (${short(w0)}, eth)`, async () => {
    const sdk = await Moralis.EvmApi.balance.getNativeBalance({ address: w0, chain: '0x1' });
    const raw = await rawGet(`/api/v2.2/${w0}/balance`, { chain: 'eth' });
    assert(sdk.result.balance.wei === raw.balance, `typed balance ${sdk.result.balance.wei}, raw ${raw.balance}`);
    return expectSame(sdk.raw, raw, 'native balance');
  });
  await check(`getNativeBalancesForAddresses (${fx.wallets.length} wallets, eth): axios array form`, async () => {
    const sdk = await Moralis.EvmApi.balance.getNativeBalancesForAddresses({ walletAddresses: fx.wallets, chain: '0x1' });
    const raw = await rawGet('/api/v2.2/wallets/balances', { chain: 'eth', wallet_addresses: fx.wallets });
    const typed = sdk.result[0].walletBalances.map((w) => w.balance.wei);
    assert(show(typed) === show(raw[0].wallet_balances.map((w) => w.balance)), `typed ${show(typed)}`);
    return expectSame(sdk.raw, raw, 'native balances');
  });
  await check(`getWalletTokenBalances (${short(w0)}, eth, tokenAddresses [2])`, async () => {
    const sdk = await Moralis.EvmApi.token.getWalletTokenBalances({ address: w0, chain: '0x1', tokenAddresses: priced.slice(0, 2) });
    const raw = await rawGet(`/api/v2.2/${w0}/erc20`, { chain: 'eth', token_addresses: priced.slice(0, 2) });
    assert(raw.length === 2, `raw: ${raw.length} tokens for 2 token_addresses`);
    const typed = sdk.result.map((t) => t.amount.toString());
    assert(show(typed) === show(raw.map((t) => t.balance)), `typed amounts ${show(typed)}`);
    return expectSame(sdk.raw, raw, 'erc20 balances');
  });
  await check(`getTokenPrice (${short(fx.token)}, eth, include percent_change)`, async () => {
    const sdk = await Moralis.EvmApi.token.getTokenPrice({ address: fx.token, chain: '0x1', include: 'percent_change' });
    const raw = await rawGet(`/api/v2.2/erc20/${fx.token}/price`, { chain: 'eth', include: 'percent_change' });
    assert(sdk.result.usdPrice === raw.usdPrice, `typed usdPrice ${sdk.result.usdPrice}, raw ${raw.usdPrice}`);
    return expectSame(sdk.raw, raw, 'token price');
  });
  await check(`getMultipleTokenPrices (${priced.length} tokens, eth)`, async () => {
    const tokens = priced.map((tokenAddress) => ({ tokenAddress }));
    const sdk = await Moralis.EvmApi.token.getMultipleTokenPrices({ chain: '0x1' }, { tokens });
    const raw = await rawPost('/api/v2.2/erc20/prices?chain=eth', { tokens: priced.map((token_address) => ({ token_address })) });
    assert(raw.status === 200 && raw.body.length === priced.length, `raw: HTTP ${raw.status} ${show(raw.body).slice(0, 200)}`);
    const typed = sdk.result.map((p) => p.usdPrice);
    assert(show(typed) === show(raw.body.map((p) => p.usdPrice)), `typed prices ${show(typed)}`);
    return expectSame(sdk.raw, raw.body, 'multiple prices');
  });
  await check(`getTokenMetadata (${priced.length} tokens, eth): axios array form`, async () => {
    const sdk = await Moralis.EvmApi.token.getTokenMetadata({ addresses: priced, chain: '0x1' });
    const raw = await rawGet('/api/v2.2/erc20/metadata', { chain: 'eth', addresses: priced });
    const typed = sdk.result.map((m) => `${m.token.symbol}/${m.token.decimals}`);
    assert(show(typed) === show(raw.map((m) => `${m.symbol}/${m.decimals}`)), `typed ${show(typed)}`);
    return expectSame(sdk.raw, raw, 'token metadata');
  });
  await check('getDateToBlock (eth, a Date)', async () => {
    const date = new Date(Date.UTC(2030, 0, 1));
    const sdk = await Moralis.EvmApi.block.getDateToBlock({ date, chain: '0x1' });
    const raw = await rawGet('/api/v2.2/dateToBlock', { chain: 'eth', date: date.toISOString() });
    assert(sdk.result.block === raw.block, `typed block ${sdk.result.block}, raw ${raw.block}`);
    return expectSame(sdk.raw, raw, 'date to block');
  });
  const twoChains = served.slice(0, 2);
  await check(`getWalletNetWorth (${short(w0)}, chains ${twoChains.join(' and ')}): axios array form`, async () => {
    const chains = twoChains.map((c) => CHAINS[c]);
    const sdk = await Moralis.EvmApi.wallets.getWalletNetWorth({ address: w0, chains, excludeSpam: true });
    const raw = await rawGet(`/api/v2.2/wallets/${w0}/net-worth`, { chains: twoChains, exclude_spam: true });
    assert(raw.chains.length === chains.length, `raw: ${raw.chains.length} chains for ${chains.length} asked`);
    assert(sdk.result.totalNetworthUsd === raw.total_networth_usd, `typed total ${sdk.result.totalNetworthUsd}`);
    return expectSame(sdk.raw, raw, 'net worth');
  });

  // NFTs by collection: the SDK's raw answers are the plain requests'.
  const [someNft] = (await rawGet(`/api/v2.2/${holder}/nft`, { chain: 'eth', limit: 1 })).result;
  const collection = someNft.token_address;
  const tokenId = someNft.token_id;
  const rawItems = async (pathname, query) => (await rawPages(pathname, query)).flatMap((p) => p.result);
  const sdkItems = async (first) => (await sdkPages(first)).flatMap((p) => p.raw.result);
  await check(`getNFTMetadata (${short(collection)} #${tokenId}, eth)`, async () => {
    const sdk = await Moralis.EvmApi.nft.getNFTMetadata({ address: collection, tokenId, chain: '0x1' });
    const raw = await rawGet(`/api/v2.2/nft/${collection}/${tokenId}`, { chain: 'eth' });
    assert(sdk.result.tokenId.toString() === raw.token_id, `typed token id ${sdk.result.tokenId}`);
    const missing = await Moralis.EvmApi.nft.getNFTMetadata({ address: collection, tokenId: '999999999', chain: '0x1' });
    assert(missing === null, 'a token that does not exist reads as null (a 404)');
    return expectSame(sdk.raw, raw, 'nft metadata');
  });
  await check(`getMultipleNFTs (${short(collection)} #${tokenId} and one that does not exist, eth)`, async () => {
    const tokens = [{ tokenAddress: collection, tokenId }, { tokenAddress: collection, tokenId: '999999999' }];
    const sdk = await Moralis.EvmApi.nft.getMultipleNFTs({ chain: '0x1', tokens });
    const body = { tokens: tokens.map((t) => ({ token_address: t.tokenAddress, token_id: t.tokenId })) };
    const raw = await rawPost('/api/v2.2/nft/getMultipleNFTs?chain=eth', body);
    assert(raw.status === 200 && raw.body.length === 2 && raw.body[1] === null, `raw: HTTP ${raw.status} ${show(raw.body).slice(0, 200)}`);
    assert(sdk.result[1] === null && sdk.result[0].tokenId.toString() === tokenId, 'typed: the token, then null');
    return expectSame(sdk.raw, raw.body, 'multiple nfts');
  });
  // At most 7 a page, and at least two pages.
  const minted = (await rawGet(`/api/v2.2/nft/${collection}`, { chain: 'eth', limit: 100 })).result.length;
  const contractLimit = Math.max(1, Math.min(7, Math.floor(minted / 2)));
  await check(`getContractNFTs (${short(collection)}, eth, limit ${contractLimit}): every page`, async () => {
    const sdk = await sdkItems(await Moralis.EvmApi.nft.getContractNFTs({ address: collection, chain: '0x1', limit: contractLimit }));
    const raw = await rawItems(`/api/v2.2/nft/${collection}`, { chain: 'eth', limit: contractLimit });
    assert(raw.length > contractLimit, `raw: ${raw.length} tokens, one page`);
    return expectSame(sdk, raw, 'contract nfts');
  });
  await check(`getNFTOwners (${short(collection)}, eth, limit 9): every page`, async () => {
    const sdk = await sdkItems(await Moralis.EvmApi.nft.getNFTOwners({ address: collection, chain: '0x1', limit: 9 }));
    const raw = await rawItems(`/api/v2.2/nft/${collection}/owners`, { chain: 'eth', limit: 9 });
    assert(raw.some((o) => o.owner_of === holder.toLowerCase()), 'the holder is among the owners');
    return expectSame(sdk, raw, 'nft owners');
  });
  await check(`getNFTTokenIdOwners (${short(collection)} #${tokenId}, eth)`, async () => {
    const sdk = await sdkItems(await Moralis.EvmApi.nft.getNFTTokenIdOwners({ address: collection, tokenId, chain: '0x1' }));
    const raw = await rawItems(`/api/v2.2/nft/${collection}/${tokenId}/owners`, { chain: 'eth' });
    assert(raw.length >= 1 && raw[0].token_id === tokenId, `raw: ${show(raw).slice(0, 200)}`);
    return expectSame(sdk, raw, 'token id owners');
  });

  // Blocks and transactions: the block of an ERC20 transfer (discover.py).
  const { blockNumber: transferBlock, txHash: blockTx } = fx.transfer;
  await check(`getBlock (${transferBlock}, eth) and by its hash`, async () => {
    const sdk = await Moralis.EvmApi.block.getBlock({ blockNumberOrHash: String(transferBlock), chain: '0x1' });
    const raw = await rawGet(`/api/v2.2/block/${transferBlock}`, { chain: 'eth' });
    assert(sdk.result.hash === raw.hash && sdk.result.transactions.length === raw.transactions.length, `typed hash ${sdk.result.hash}`);
    const byHash = await Moralis.EvmApi.block.getBlock({ blockNumberOrHash: raw.hash, chain: '0x1' });
    expectSame(byHash.raw, raw, 'block by hash');
    const missing = await Moralis.EvmApi.block.getBlock({ blockNumberOrHash: '99999999', chain: '0x1' });
    assert(missing === null, 'a block the chain does not have reads as null (a 404)');
    return expectSame(sdk.raw, raw, 'block');
  });
  await check(`getTransaction (${short(blockTx)}, eth)`, async () => {
    const sdk = await Moralis.EvmApi.transaction.getTransaction({ transactionHash: blockTx, chain: '0x1' });
    const raw = await rawGet(`/api/v2.2/transaction/${blockTx}`, { chain: 'eth' });
    assert(sdk.result.hash === raw.hash && sdk.result.logs.length === raw.logs.length, `typed ${sdk.result.hash}`);
    return expectSame(sdk.raw, raw, 'transaction');
  });
  await check(`getTransactionVerbose (${short(blockTx)}, eth)`, async () => {
    const sdk = await Moralis.EvmApi.transaction.getTransactionVerbose({ transactionHash: blockTx, chain: '0x1' });
    const raw = await rawGet(`/api/v2.2/transaction/${blockTx}/verbose`, { chain: 'eth' });
    assert(raw.decoded_call && raw.decoded_call.label === 'transfer', `raw decoded call ${show(raw.decoded_call)}`);
    return expectSame(sdk.raw, raw, 'verbose transaction');
  });

  // Internal transactions (discover.py: the first transaction that made an inner call).
  if (!fx.internal) {
    console.log('skip getTransaction with internal_transactions: the server cannot trace this chain (see discover)');
  } else {
    const { txHash: innerTx, count: innerCount } = fx.internal;
    await check(`getTransaction with internal_transactions (${short(innerTx)}, eth)`, async () => {
      const include = 'internal_transactions';
      const sdk = await Moralis.EvmApi.transaction.getTransaction({ transactionHash: innerTx, chain: '0x1', include });
      const raw = await rawGet(`/api/v2.2/transaction/${innerTx}`, { chain: 'eth', include });
      const typed = sdk.result.internalTransactions || [];
      assert(typed.length === innerCount && raw.internal_transactions.length === innerCount, `typed ${typed.length}, raw ${raw.internal_transactions.length}, want ${innerCount}`);
      typed.forEach((call, i) => {
        const listed = raw.internal_transactions[i];
        assert(call.to.lowercase === listed.to && call.from.lowercase === listed.from, `call ${i}: ${show(call.toJSON())}`);
        assert(call.value.toString() === listed.value && call.gasUsed.toString() === listed.gas_used, `call ${i} amounts: ${show(call.toJSON())}`);
        assert(call.transactionHash === innerTx && call.blockNumber.toString() === listed.block_number, `call ${i} place: ${show(call.toJSON())}`);
      });
      return expectSame(sdk.raw, raw, 'transaction with internal transactions');
    });
  }

  // Transfers: every page through the SDK is every raw page.
  await check(`getWalletTokenTransfers (${short(w0)}, eth, limit 20): every page, and oldest first`, async () => {
    const sdk = await sdkItems(await Moralis.EvmApi.token.getWalletTokenTransfers({ address: w0, chain: '0x1', limit: 20 }));
    const raw = await rawItems(`/api/v2.2/${w0}/erc20/transfers`, { chain: 'eth', limit: 20 });
    assert(raw.length > 20, `raw: ${raw.length} transfers, one page`);
    const ascending = await Moralis.EvmApi.token.getWalletTokenTransfers({ address: w0, chain: '0x1', order: 'ASC', limit: 1 });
    assert(ascending.result[0].transactionHash === raw.at(-1).transaction_hash, `typed oldest ${ascending.result[0].transactionHash}`);
    return expectSame(sdk, raw, 'wallet token transfers');
  });
  const transferred = (await rawGet(`/api/v2.2/${w0}/erc20/transfers`, { chain: 'eth', limit: 1 })).result[0].address;
  await check(`getTokenTransfers (${short(transferred)}, eth, from block 1 to 4000, limit 50): every page`, async () => {
    const query = { fromBlock: 1, toBlock: 4000, limit: 50 };
    const sdk = await sdkItems(await Moralis.EvmApi.token.getTokenTransfers({ address: transferred, chain: '0x1', ...query }));
    const raw = await rawItems(`/api/v2.2/erc20/${transferred}/transfers`, { chain: 'eth', from_block: 1, to_block: 4000, limit: 50 });
    assert(raw.length > 0 && raw.every((t) => t.address === transferred && Number(t.block_number) <= 4000), 'the token, within the blocks');
    return expectSame(sdk, raw, 'token transfers');
  });
  await check(`getWalletTransactions (${short(w0)}, eth, limit 10): every page`, async () => {
    const sdk = await sdkItems(await Moralis.EvmApi.transaction.getWalletTransactions({ address: w0, chain: '0x1', limit: 10 }));
    const raw = await rawItems(`/api/v2.2/${w0}`, { chain: 'eth', limit: 10 });
    assert(raw.length > 10, `raw: ${raw.length} transactions, one page`);
    return expectSame(sdk, raw, 'wallet transactions');
  });
  await check(`getWalletHistory (${short(w0)}, eth, limit 10, ASC): every page`, async () => {
    const sdk = await sdkPages(await Moralis.EvmApi.wallets.getWalletHistory({ address: w0, chain: '0x1', limit: 10, order: 'ASC' }));
    const raw = await rawPages(`/api/v2.2/wallets/${w0}/history`, { chain: 'eth', limit: 10, order: 'ASC' });
    assert(raw.length > 1, `raw: ${raw.length} history pages`);
    // A history item's JSON form writes its BigNumber block numbers (its
    // own and its logs') in hex: they are compared as numbers.
    const decimalBlocks = (v) => {
      if (Array.isArray(v)) return v.map(decimalBlocks);
      if (v === null || typeof v !== 'object') return v;
      const number = (k, x) => k === 'block_number' && typeof x === 'string' && x.startsWith('0x');
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, number(k, x) ? BigInt(x).toString() : decimalBlocks(x)]));
    };
    return summary(comparePages(sdk, raw, 'wallet history', (x) => decimalBlocks(x.toJSON()), {}, true));
  });
  await check(`getWalletStats (${short(w0)}, eth)`, async () => {
    const sdk = await Moralis.EvmApi.wallets.getWalletStats({ address: w0, chain: '0x1' });
    const raw = await rawGet(`/api/v2.2/wallets/${w0}/stats`, { chain: 'eth' });
    assert(Number(raw.transactions.total) > 0, `raw: ${show(raw)}`);
    return expectSame(sdk.raw, raw, 'wallet stats');
  });
  await check(`getWalletActiveChains (${short(w0)}, ${twoChains.join(' and ')})`, async () => {
    const sdk = await Moralis.EvmApi.wallets.getWalletActiveChains({ address: w0, chains: twoChains.map((c) => CHAINS[c]) });
    const raw = await rawGet(`/api/v2.2/wallets/${w0}/chains`, { chains: twoChains });
    assert(raw.active_chains.length === twoChains.length && raw.active_chains[0].first_transaction, `raw: ${show(raw).slice(0, 200)}`);
    return expectSame(sdk.raw, raw, 'active chains');
  });
  await check(`getWalletNFTTransfers (${short(holder)}, eth, limit 5): every page`, async () => {
    const sdk = await sdkItems(await Moralis.EvmApi.nft.getWalletNFTTransfers({ address: holder, chain: '0x1', limit: 5 }));
    const raw = await rawItems(`/api/v2.2/${holder}/nft/transfers`, { chain: 'eth', limit: 5 });
    assert(raw.length > 5, `raw: ${raw.length} transfers, one page`);
    return expectSame(sdk, raw, 'wallet nft transfers');
  });
  await check(`getNFTContractTransfers (${short(collection)}, eth, limit 25): every page`, async () => {
    const sdk = await sdkItems(await Moralis.EvmApi.nft.getNFTContractTransfers({ address: collection, chain: '0x1', limit: 25 }));
    const raw = await rawItems(`/api/v2.2/nft/${collection}/transfers`, { chain: 'eth', limit: 25 });
    assert(raw.length > 0 && raw.every((t) => t.token_address === collection.toLowerCase()), 'the collection\'s');
    return expectSame(sdk, raw, 'contract nft transfers');
  });

  await check('Auth.requestMessage + verify (solana)', async () => {
    const request = {
      domain: 'example.com', uri: 'https://example.com/login', timeout: 60, statement: 'Sign in to Example',
    };
    const challenge = await Moralis.Auth.requestMessage({
      networkType: 'solana', address: fx.solana.address, solNetwork: 'mainnet', ...request,
    });
    const issued = challenge.raw;
    assert(/^[a-zA-Z0-9]{8,64}$/.test(issued.id), `challenge id ${issued.id}`);
    // The same request, raw: the same fields, profile and message apart from nonce and times.
    const raw = await rawPost('/challenge/request/solana', { ...request, address: fx.solana.address, network: 'mainnet' });
    assert(raw.status === 201, `raw challenge request: HTTP ${raw.status} ${show(raw.body)}`);
    let compared = expectSame(challenge.result, { ...raw.body, id: issued.id, message: issued.message }, 'challenge').compared;
    assert(issued.profileId === raw.body.profileId, `profileId ${issued.profileId} != raw ${raw.body.profileId}`);
    const stable = (m) => m.split('\n').filter((l) => !/^(Nonce|Issued At|Expiration Time|Not Before):/.test(l)).join('\n');
    assert(stable(issued.message) === stable(raw.body.message), `messages differ:\n${issued.message}\n---\n${raw.body.message}`);

    // Verify the SDK's challenge through the SDK, the raw one raw; both answers must agree.
    const signedSdk = solanaSign(issued);
    const verified = await Moralis.Auth.verify({ networkType: 'solana', message: signedSdk.message, signature: signedSdk.signature });
    const signedRaw = solanaSign(raw.body);
    const rawVerified = await rawPost('/challenge/verify/solana', signedRaw);
    assert(rawVerified.status === 201, `raw verify: HTTP ${rawVerified.status} ${show(rawVerified.body)}`);
    const nonce = (m) => (m.match(/^Nonce: (.*)$/m) || [])[1];
    const expected = { ...rawVerified.body };
    for (const k of ['id', 'nonce', 'expirationTime', 'notBefore', 'issuedAt']) delete expected[k];
    const sdk = verified.result;
    assert(sdk.id === issued.id, `verified id ${sdk.id}, challenge ${issued.id}`);
    assert(sdk.nonce === nonce(issued.message), `verified nonce ${sdk.nonce}, message nonce ${nonce(issued.message)}`);
    compared += compareSdk(
      { ...sdk, network: sdk.solNetwork },
      expected, 'verify',
    ).compared;
    return { compared, hidden: new Set() };
  });
}

main().catch(fatal).finally(() => {
  done();
  if (process.env.W3API_CLIENTS_TRACE) console.log(sent.join('\n'));
});
