'use strict';
// viem's test client drives the gateway's chain-control methods as it drives
// Anvil and Hardhat (createTestClient, modes 'anvil' and 'hardhat'):
// snapshot -> setBalance -> mine -> revert, with time moved on between. At
// each step eth_getBalance (viem), wallet tokens (raw REST) and the newest
// block (viem) must agree, and revert must give back exactly the first view.
// The chain ends as it started, so the checks after this one see the same
// chain. Then the pending pool as viem's test client reads it (txpool_status,
// txpool_content, txpool_inspect) and empties it (anvil_dropTransaction,
// hardhat_dropTransaction), with automine off for a while.

const { createPublicClient, createTestClient, createWalletClient, http, parseEther } = require('viem');
const { mainnet } = require('viem/chains');
const { RPC_URL, rawGet, runner, assert, show, waitFor, sleep } = require('./lib.cjs');

const transport = () => http(RPC_URL, { retryCount: 0, timeout: 20000 });
const publicClient = createPublicClient({ chain: mainnet, transport: transport() });
const { check, done, fatal } = runner('viem-testclient');
// An address the devnet has never seen: it starts at zero.
const someone = '0x00000000000000000000000000000000000c0ffe';

/** What viem and the REST API say at the newest block; throws when they disagree. */
async function views() {
  const block = await publicClient.getBlock({ blockTag: 'latest' });
  const balance = await publicClient.getBalance({ address: someone, blockTag: 'latest' });
  const tokens = await rawGet(`/api/v2.2/wallets/${someone}/tokens`, { chain: 'eth' });
  const native = tokens.result.find((t) => t.native_token);
  const walletBalance = native ? BigInt(native.balance) : 0n;
  assert(BigInt(tokens.block_number) === block.number,
    `wallet tokens are at block ${tokens.block_number}, the newest block is ${block.number}`);
  assert(walletBalance === balance, `wallet tokens say ${walletBalance} wei, eth_getBalance ${balance}`);
  return { number: block.number, hash: block.hash, timestamp: block.timestamp, balance };
}

function same(actual, expected, what) {
  for (const key of Object.keys(expected)) {
    assert(actual[key] === expected[key], `${what}: ${key} is ${show(actual[key])}, expected ${show(expected[key])}`);
  }
  return `block ${actual.number}, ${actual.balance} wei`;
}

async function drive(mode) {
  const test = createTestClient({ mode, chain: mainnet, transport: transport() });
  const start = await views();
  let id;
  await check(`${mode}: snapshot`, async () => {
    id = await test.snapshot();
    return same(await views(), start, 'after snapshot');
  });
  const amount = parseEther(mode === 'anvil' ? '12.5' : '3');
  await check(`${mode}: setBalance writes the balance in a new block, as Anvil sets it`, async () => {
    await test.setBalance({ address: someone, value: amount });
    const now = await views();
    const block = await publicClient.getBlock({ blockNumber: now.number, includeTransactions: true });
    assert(block.transactions.length === 0, `${block.transactions.length} transactions in the new block: ${show(block.transactions)}`);
    return same(now, { number: start.number + 1n, balance: amount }, 'after setBalance');
  });
  await check(`${mode}: increaseTime then mine 3 blocks`, async () => {
    const before = await views();
    await test.increaseTime({ seconds: 3600 });
    await test.mine({ blocks: 3 });
    const now = await views();
    const first = await publicClient.getBlock({ blockNumber: before.number + 1n });
    assert(first.timestamp === before.timestamp + 12n + 3600n, `the first mined block is at ${first.timestamp}`);
    return same(now, { number: before.number + 3n, balance: amount }, 'after mine');
  });
  await check(`${mode}: revert gives back the first view`, async () => {
    await test.revert({ id });
    return same(await views(), start, 'after revert');
  });
}

/** viem's test client on the pending pool: automine off, a send and one
 * with a nonce gap, then the txpool_ views of them, and drops. */
async function pool(mode) {
  const test = createTestClient({ mode, chain: mainnet, transport: transport() });
  const [from] = await publicClient.request({ method: 'eth_accounts' });
  const wallet = createWalletClient({ account: from, chain: mainnet, transport: transport() });
  await check(`${mode}: setAutomine(false), getTxpoolStatus, getTxpoolContent, inspectTxpool, dropTransaction`, async () => {
    await test.setAutomine(false);
    try {
      const nonce = await publicClient.getTransactionCount({ address: from, blockTag: 'pending' });
      const next = await wallet.sendTransaction({ to: someone, value: 1n, nonce });
      const ahead = await wallet.sendTransaction({ to: someone, value: 2n, nonce: nonce + 2 });
      const status = await test.getTxpoolStatus();
      assert(status.pending === 1 && status.queued === 1, `status ${show(status)}`);
      const content = await test.getTxpoolContent();
      const mine = (side) => Object.entries(content[side]).find(([sender]) => sender.toLowerCase() === from.toLowerCase())?.[1] || {};
      assert(mine('pending')[`${nonce}`]?.hash === next && mine('queued')[`${nonce + 2}`]?.hash === ahead, `content ${show(content)}`);
      const inspect = await test.inspectTxpool();
      const line = Object.entries(inspect.pending).find(([sender]) => sender.toLowerCase() === from.toLowerCase())[1][`${nonce}`];
      assert(line.startsWith(`${someone}: 1 wei + `), `inspect line ${line}`);
      await test.dropTransaction({ hash: next });
      await test.dropTransaction({ hash: ahead });
      const after = await test.getTxpoolStatus();
      assert(after.pending === 0 && after.queued === 0, `after the drops ${show(after)}`);
      return `nonce ${nonce} pending, ${nonce + 2} queued, both dropped`;
    } finally {
      await test.setAutomine(true);
    }
  });
}

/** viem's test client on interval mining (anvil mode: seconds, Anvil's unit). */
async function intervals() {
  const test = createTestClient({ mode: 'anvil', chain: mainnet, transport: transport() });
  await check('anvil: setIntervalMining(1) makes a block a second, a second apart; setIntervalMining(0) stops it', async () => {
    const start = await publicClient.getBlockNumber({ cacheTime: 0 });
    await test.setIntervalMining({ interval: 1 });
    let stopped;
    try {
      await waitFor('two interval blocks', async () => (await publicClient.getBlockNumber({ cacheTime: 0 })) >= start + 2n, 20000, 100);
    } finally {
      await test.setIntervalMining({ interval: 0 });
      stopped = await publicClient.getBlockNumber({ cacheTime: 0 });
      await test.setAutomine(true);
    }
    const [a, b] = await Promise.all([stopped - 1n, stopped].map((blockNumber) => publicClient.getBlock({ blockNumber })));
    assert(b.timestamp === a.timestamp + 1n, `blocks ${a.number} and ${b.number} are ${b.timestamp - a.timestamp} s apart`);
    await sleep(2500);
    const after = await publicClient.getBlockNumber({ cacheTime: 0 });
    assert(after === stopped, `block ${after} came after interval mining stopped at ${stopped}`);
    return `blocks ${start + 1n}-${stopped}`;
  });
}

async function main() {
  await drive('anvil');
  await drive('hardhat');
  await pool('anvil');
  await pool('hardhat');
  await intervals();
}

main().catch(fatal).finally(done);
