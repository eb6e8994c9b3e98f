#!/usr/bin/env node
// Stream deliveries (webhooks) for the blocks of an upstream node: w3api
// serve --upstream, started with --webhook-host 127.0.0.1 --confirmations 2,
// delivers ERC20 transfers mined on the Hardhat node to a receiver here.
//
//   streams.cjs --rpc NODE_URL --api W3API_URL --key KEY --deployment FILE
//               [--dump FILE]
//
// 1. Starts a webhook receiver on 127.0.0.1 (a port the system picks) that
//    keeps every POST's exact body and x-signature, and answers 200.
// 2. Reads the project's webhook secret (GET /settings, secretKey); sets one
//    (POST /settings) when there is none.
// 3. Creates a stream (PUT /streams/evm): chain 0x1 (the upstream eth
//    chain), topic0 Transfer(address,address,uint256), every address,
//    contract logs, the ERC20 Transfer ABI. The server posts the test
//    webhook to the receiver before it answers: it must have arrived.
// 4. Sends ERC20 transfers of the deployment's tokens between its funded
//    accounts (wallets of the Hardhat test mnemonic, signed with ethers),
//    one per block under automine, then mines a few empty blocks
//    (hardhat_mine, or evm_mine on Ganache), enough for each transfer's
//    block to be confirmed.
// 5. Waits (60 s at most) until each transfer's block was delivered both
//    unconfirmed and confirmed, then compares every such delivery with the
//    node: block number, hash and time; the transfer in erc20Transfers
//    (transactionHash, logIndex, contract, from, to, value, token metadata)
//    and in logs, against the node's receipt log; and x-signature, which is
//    keccak256 of the body's bytes followed by the secret's (as
//    crates/w3api-streams/src/sign.rs signs). Deliveries of other blocks
//    are failures too (the chain moves only by this script meanwhile).
// 6. Deletes the stream and stops the receiver; --dump writes every POST
//    received (body as text, x-signature, content-type) to FILE as JSON.
// One FAIL line per failed comparison, then `streams: N passed, M failed`;
// exits 1 on any failure.
'use strict';

const http = require('node:http');
const {
  Contract,
  FetchRequest,
  HDNodeWallet,
  Interface,
  JsonRpcProvider,
  concat,
  formatUnits,
  keccak256,
  parseUnits,
  toUtf8Bytes,
} = require('ethers');
const { Node, Rpc, TOPICS, Tally, hex, parseArgs, readJson, requestJson, required, sleep, writeJson } = require('./lib.cjs');

const TIMEOUT_MS = 30_000;
const WAIT_MS = 60_000;
/// The whole script, however it goes: a stuck step still ends it.
const WATCHDOG_MS = 300_000;
const TRANSFERS = 4;
/// Mined at once (hardhat_mine): enough to confirm the last transfer's
/// block (--confirmations 2). Keep it small: Hardhat 2.29 answers a batch of
/// 8 or more with parentHash 0x00… for the blocks inside it, and the
/// indexer, seeing a fork it cannot resolve, stops advancing.
const EMPTY_BLOCKS = 3;
const CHAIN_ID = '0x1';
const TAG = 'node-mode-streams';
/// Set when the project has no secret yet.
const OUR_SECRET = 'node-mode-streams-secret';
/// Hardhat's default accounts: this mnemonic's first 20 keys.
const MNEMONIC = 'test test test test test test test test test test test junk';
const HARDHAT_ACCOUNTS = 20;

const TRANSFER_ABI = [
  {
    anonymous: false,
    inputs: [
      { indexed: true, name: 'from', type: 'address' },
      { indexed: true, name: 'to', type: 'address' },
      { indexed: false, name: 'value', type: 'uint256' },
    ],
    name: 'Transfer',
    type: 'event',
  },
];
const ERC20 = new Interface([
  'function transfer(address,uint256) returns (bool)',
  'function balanceOf(address) view returns (uint256)',
]);

// ---------------------------------------------------------------- receiver

/// A webhook receiver on loopback: every POST kept as `{body (Buffer),
/// signature, path, json}`, answered 200.
function startReceiver() {
  const received = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'POST') {
        const body = Buffer.concat(chunks);
        let json = null;
        try {
          json = JSON.parse(body.toString('utf8'));
        } catch {
          json = null;
        }
        received.push({
          body,
          signature: req.headers['x-signature'],
          contentType: req.headers['content-type'],
          path: req.url,
          json,
          at: Date.now(),
        });
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
    req.on('error', () => res.destroy());
  });
  server.requestTimeout = TIMEOUT_MS;
  server.headersTimeout = TIMEOUT_MS;
  server.keepAliveTimeout = 1_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { address, port } = server.address();
      resolve({
        server,
        received,
        url: `http://${address}:${port}/webhook`,
        stop: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

// ---------------------------------------------------------------- the API

/// One call to w3api with the API key: `{status, json, text}`.
async function api(base, key, method, path, body) {
  return requestJson(base + path, { method, headers: { 'x-api-key': key }, body, timeoutMs: TIMEOUT_MS });
}

function expectOk(answer, what) {
  if (answer.status !== 200 || !answer.json) {
    throw new Error(`${what}: HTTP ${answer.status}: ${answer.text.slice(0, 300)}`);
  }
  return answer.json;
}

// ---------------------------------------------------------------- helpers

/// keccak256(body ‖ secret), `0x` and lowercase hex.
function signatureOf(body, secret) {
  return keccak256(concat([new Uint8Array(body), toUtf8Bytes(secret)]));
}

const topicAddress = (topic) => '0x' + topic.slice(-40).toLowerCase();

/// The funded accounts of the deployment that the test mnemonic signs for.
function mnemonicWallets(dep) {
  const byAddress = new Map();
  for (let i = 0; i < HARDHAT_ACCOUNTS; i++) {
    const wallet = HDNodeWallet.fromPhrase(MNEMONIC, undefined, `m/44'/60'/0'/0/${i}`);
    byAddress.set(wallet.address.toLowerCase(), wallet);
  }
  return dep.wallets
    .filter((w) => w.kind === 'account' && byAddress.has(w.address.toLowerCase()))
    .map((w) => byAddress.get(w.address.toLowerCase()));
}

/// Plans TRANSFERS transfers: each of a token (ERC20s of the deployment, in
/// turn) from the account holding the most of it to another account.
async function planTransfers(rpc, dep, wallets) {
  const tokens = dep.contracts.filter((c) => c.role === 'token' || c.role === 'stable');
  if (!tokens.length) throw new Error('the deployment has no ERC20 token');
  const held = [];
  for (const token of tokens) {
    let best = null;
    for (const wallet of wallets) {
      const raw = await rpc.call('eth_call', [
        { to: token.address, data: ERC20.encodeFunctionData('balanceOf', [wallet.address]) },
        'latest',
      ]);
      const balance = ERC20.decodeFunctionResult('balanceOf', raw)[0];
      if (balance > 0n && (!best || balance > best.balance)) best = { wallet, balance };
    }
    if (best) held.push({ token, ...best });
  }
  if (!held.length) throw new Error('no funded account holds any of the deployment tokens');
  // The 6-decimal token first when one is held: its valueWithDecimals differs most.
  held.sort((a, b) => a.token.decimals - b.token.decimals);
  const plans = [];
  for (let i = 0; i < TRANSFERS; i++) {
    const { token, wallet, balance } = held[i % held.length];
    const others = wallets.filter((w) => w.address !== wallet.address);
    const to = others[i % others.length];
    // A small share of the balance, different each time, never zero.
    const value = balance / BigInt(1000 + i * 7) + BigInt(i + 1);
    plans.push({ token, from: wallet, to: to.address.toLowerCase(), value });
  }
  return plans;
}

// ---------------------------------------------------------------- main

async function main() {
  const args = parseArgs(process.argv.slice(2));
  required(args, 'rpc', 'api', 'key', 'deployment');
  for (const url of [args.rpc, args.api]) {
    const host = new URL(url).hostname;
    if (host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]') {
      throw new Error(`${url} is not on loopback`);
    }
  }
  const base = args.api.replace(/\/+$/, '');
  const dep = readJson(args.deployment);
  const rpc = new Rpc(args.rpc, { timeoutMs: TIMEOUT_MS });
  const tally = new Tally();
  const watchdog = setTimeout(() => {
    console.log(`FAIL streams: the script: expected to end within ${WATCHDOG_MS / 1000} s, got still running`);
    console.log(`streams: ${tally.passed} passed, ${tally.failed + 1} failed`);
    process.exit(1);
  }, WATCHDOG_MS);
  watchdog.unref();

  const receiver = await startReceiver();
  console.log(`receiver at ${receiver.url}`);
  const request = new FetchRequest(args.rpc);
  request.timeout = TIMEOUT_MS;
  const provider = new JsonRpcProvider(request, Number(dep.chainId ?? (await rpc.call('eth_chainId'))), {
    staticNetwork: true,
    batchMaxCount: 1,
    // No cached answers: each transfer reads its sender's nonce afresh.
    cacheTimeout: -1,
  });
  let streamId = null;
  try {
    await run({ args, base, dep, rpc, provider, receiver, tally, setStream: (id) => (streamId = id) });
  } catch (error) {
    tally.ok(false, 'streams', 'the run', 'no error', error.message || String(error));
    if (process.env.W3API_DEBUG) console.error(error.stack);
  } finally {
    if (streamId) {
      try {
        const deleted = await api(base, args.key, 'DELETE', `/streams/evm/${streamId}`);
        tally.eq('delete', 'HTTP status of DELETE /streams/evm/{id}', 200, deleted.status);
        tally.eq('delete', 'id of the deleted stream', streamId, deleted.json?.id);
      } catch (error) {
        tally.ok(false, 'delete', 'DELETE /streams/evm/{id}', 'an answer', error.message);
      }
    }
    provider.destroy();
    await receiver.stop();
    if (args.dump) {
      writeJson(
        args.dump,
        receiver.received.map((r) => ({
          at: new Date(r.at).toISOString(),
          path: r.path,
          contentType: r.contentType,
          signature: r.signature,
          body: r.body.toString('utf8'),
        })),
      );
    }
  }
  console.log(`streams: ${tally.passed} passed, ${tally.failed} failed`);
  process.exit(tally.failed ? 1 : 0);
}

async function run({ args, base, dep, rpc, provider, receiver, tally, setStream }) {
  // 2. The secret.
  let settings = expectOk(await api(base, args.key, 'GET', '/settings'), 'GET /settings');
  if (typeof settings.secretKey !== 'string' || settings.secretKey === '') {
    console.log('the project has no secret: setting one');
    settings = expectOk(await api(base, args.key, 'POST', '/settings', { secretKey: OUR_SECRET }), 'POST /settings');
    tally.eq('settings', 'secretKey after POST /settings', OUR_SECRET, settings.secretKey);
  }
  const secret = settings.secretKey;
  console.log(`secret: ${secret.length} characters (region ${settings.region ?? 'none'})`);

  // 3. The stream; its test webhook arrives before the answer.
  const before = receiver.received.length;
  const created = await api(base, args.key, 'PUT', '/streams/evm', {
    webhookUrl: receiver.url,
    description: 'node-mode check: ERC20 transfers of the upstream chain',
    tag: TAG,
    chainIds: [CHAIN_ID],
    topic0: ['Transfer(address,address,uint256)'],
    allAddresses: true,
    includeContractLogs: true,
    abi: TRANSFER_ABI,
  });
  const stream = expectOk(created, 'PUT /streams/evm');
  if (typeof stream.id !== 'string') throw new Error(`PUT /streams/evm answered no id: ${created.text.slice(0, 300)}`);
  setStream(stream.id);
  console.log(`stream ${stream.id} (${stream.status})`);
  tally.eq('stream', 'status', 'active', stream.status);
  const tests = receiver.received.slice(before);
  tally.eq('test webhook', 'deliveries before PUT /streams/evm answered', 1, tests.length);
  for (const test of tests) {
    tally.eq('test webhook', 'block.hash', '', test.json?.block?.hash);
    tally.eq('test webhook', 'block.number', '', test.json?.block?.number);
    tally.eq('test webhook', 'erc20Transfers', 0, test.json?.erc20Transfers?.length);
    tally.eq('test webhook', 'x-signature', signatureOf(test.body, secret), test.signature);
  }
  const tested = receiver.received.length;

  // 4. The transfers, one block each, then empty blocks.
  const wallets = mnemonicWallets(dep);
  if (wallets.length < 2) throw new Error('the deployment has fewer than 2 accounts of the test mnemonic');
  const plans = await planTransfers(rpc, dep, wallets);
  const headBefore = Number(await rpc.call('eth_blockNumber'));
  const sent = [];
  for (const plan of plans) {
    const token = new Contract(plan.token.address, ERC20, plan.from.connect(provider));
    const nonce = Number(await rpc.call('eth_getTransactionCount', [plan.from.address, 'latest']));
    const tx = await token.transfer(plan.to, plan.value, { nonce });
    const mined = await tx.wait(1, TIMEOUT_MS);
    if (!mined || mined.status !== 1) throw new Error(`transfer ${tx.hash} failed`);
    // The node's own receipt, as JSON-RPC has it.
    const receipt = await rpc.call('eth_getTransactionReceipt', [tx.hash]);
    const number = Number(receipt.blockNumber);
    sent.push({ ...plan, hash: tx.hash.toLowerCase(), number, receipt });
    console.log(
      `sent ${formatUnits(plan.value, plan.token.decimals)} ${plan.token.symbol} ` +
        `${plan.from.address.toLowerCase()} → ${plan.to} in block ${number} (${tx.hash})`,
    );
  }
  const numbers = sent.map((s) => s.number);
  tally.eq('transfers', 'distinct blocks', sent.length, new Set(numbers).size);
  tally.eq('transfers', 'first block', headBefore + 1, numbers[0]);
  await new Node(args.rpc).mine(EMPTY_BLOCKS);
  const head = Number(await rpc.call('eth_blockNumber'));
  tally.eq('transfers', 'head after mining empty blocks', numbers[numbers.length - 1] + EMPTY_BLOCKS, head);
  console.log(`mined ${EMPTY_BLOCKS} empty blocks: head ${head}`);

  // 5. Wait for both deliveries of every transfer block.
  const deliveries = () => receiver.received.slice(tested);
  const has = (number, confirmed) =>
    deliveries().some((d) => d.json?.block?.number === String(number) && d.json?.confirmed === confirmed);
  const waitStart = Date.now();
  while (!numbers.every((n) => has(n, false) && has(n, true))) {
    if (Date.now() - waitStart > WAIT_MS) break;
    await sleep(200);
  }
  // A moment more, for any duplicate or stray delivery to show.
  await sleep(1_000);
  const waited = ((Date.now() - waitStart) / 1000).toFixed(1);
  const got = deliveries();
  console.log(`${got.length} deliveries in ${waited} s after the last block`);

  const ours = new Set(numbers.map(String));
  for (const d of got) {
    const number = d.json?.block?.number;
    if (!ours.has(number)) {
      tally.ok(false, `block ${number}`, 'a delivery', 'none (no transfer of ours)', `confirmed ${d.json?.confirmed}`);
    }
  }

  for (const transfer of sent) {
    const { number } = transfer;
    const block = await rpc.call('eth_getBlockByNumber', [hex(number), false]);
    const receipts = (await rpc.batch(block.transactions.map((h) => ['eth_getTransactionReceipt', [h]]))).map((a) => {
      if (a.error || !a.result) throw new Error(`block ${number}: no receipt on the node: ${JSON.stringify(a.error)}`);
      return a.result;
    });
    // Every ERC20 Transfer of the block (3 topics; ERC721's has 4).
    const erc20Logs = receipts
      .flatMap((r) => r.logs)
      .filter((log) => log.topics.length === 3 && log.topics[0] === TOPICS.transfer);
    const ourLogs = transfer.receipt.logs.filter((log) => log.topics[0] === TOPICS.transfer);
    tally.eq(`block ${number}`, 'Transfer logs of our transaction on the node', 1, ourLogs.length);
    const log = ourLogs[0];
    if (log) {
      // The node's log is what we sent.
      tally.same(`block ${number}`, 'node log address', transfer.token.address, log.address);
      tally.same(`block ${number}`, 'node log from', transfer.from.address, topicAddress(log.topics[1]));
      tally.same(`block ${number}`, 'node log to', transfer.to, topicAddress(log.topics[2]));
      tally.eq(`block ${number}`, 'node log value', transfer.value, BigInt(log.data));
    }
    for (const confirmed of [false, true]) {
      const where = `block ${number} (${confirmed ? 'confirmed' : 'unconfirmed'})`;
      const matching = got.filter((d) => d.json?.block?.number === String(number) && d.json?.confirmed === confirmed);
      tally.eq(where, 'deliveries', 1, matching.length);
      for (const d of matching) {
        checkDelivery(tally, where, d, { secret, streamId: stream.id, block, erc20Logs, transfer, log });
      }
    }
  }
}

/// Compares one delivery with the node's block and our transfer's log.
function checkDelivery(tally, where, delivery, { secret, streamId, block, erc20Logs, transfer, log }) {
  const w = delivery.json;
  tally.eq(where, 'x-signature', signatureOf(delivery.body, secret), delivery.signature);
  tally.eq(where, 'streamId', streamId, w.streamId);
  tally.eq(where, 'tag', TAG, w.tag);
  tally.eq(where, 'chainId', CHAIN_ID, w.chainId);
  tally.eq(where, 'retries', 0, w.retries);
  tally.eq(where, 'block.number', String(Number(block.number)), w.block?.number);
  tally.eq(where, 'block.hash', block.hash.toLowerCase(), w.block?.hash);
  tally.eq(where, 'block.timestamp', String(Number(block.timestamp)), w.block?.timestamp);
  const transfers = Array.isArray(w.erc20Transfers) ? w.erc20Transfers : [];
  tally.eq(where, 'erc20Transfers: how many (ERC20 Transfer logs of the block)', erc20Logs.length, transfers.length);
  if (!log) return;
  const logIndex = String(Number(log.logIndex));
  const entry = transfers.find(
    (t) => t.transactionHash?.toLowerCase() === transfer.hash && t.logIndex === logIndex,
  );
  if (!tally.ok(entry, where, `erc20Transfers[${transfer.hash} #${logIndex}]`, 'present', 'missing')) return;
  const field = (name) => `erc20Transfers[${transfer.hash}].${name}`;
  tally.eq(where, field('transactionHash'), log.transactionHash.toLowerCase(), entry.transactionHash);
  tally.eq(where, field('contract'), log.address.toLowerCase(), entry.contract);
  tally.eq(where, field('from'), topicAddress(log.topics[1]), entry.from);
  tally.eq(where, field('to'), topicAddress(log.topics[2]), entry.to);
  tally.eq(where, field('value'), BigInt(log.data).toString(), entry.value);
  tally.eq(where, field('tokenName'), transfer.token.name, entry.tokenName);
  tally.eq(where, field('tokenSymbol'), transfer.token.symbol, entry.tokenSymbol);
  tally.eq(where, field('tokenDecimals'), String(transfer.token.decimals), entry.tokenDecimals);
  let scaled;
  try {
    scaled = parseUnits(String(entry.valueWithDecimals), transfer.token.decimals);
  } catch {
    scaled = undefined;
  }
  tally.ok(
    scaled === BigInt(log.data),
    where,
    field('valueWithDecimals'),
    formatUnits(BigInt(log.data), transfer.token.decimals),
    entry.valueWithDecimals,
  );
  // The raw log too.
  const logs = Array.isArray(w.logs) ? w.logs : [];
  const raw = logs.find((l) => l.transactionHash?.toLowerCase() === transfer.hash && l.logIndex === logIndex);
  if (!tally.ok(raw, where, `logs[${transfer.hash} #${logIndex}]`, 'present', 'missing')) return;
  tally.eq(where, `logs[${transfer.hash}].address`, log.address.toLowerCase(), raw.address);
  tally.eq(where, `logs[${transfer.hash}].topic0`, log.topics[0].toLowerCase(), raw.topic0);
  tally.eq(where, `logs[${transfer.hash}].topic1`, log.topics[1].toLowerCase(), raw.topic1);
  tally.eq(where, `logs[${transfer.hash}].topic2`, log.topics[2].toLowerCase(), raw.topic2);
  tally.eq(where, `logs[${transfer.hash}].topic3`, null, raw.topic3);
  tally.eq(where, `logs[${transfer.hash}].data`, log.data.toLowerCase(), raw.data);
}

main().catch((error) => {
  console.error(`error: ${error.message || error}`);
  process.exit(2);
});
