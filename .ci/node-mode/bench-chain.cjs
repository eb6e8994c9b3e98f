#!/usr/bin/env node
// Builds, on a fresh Hardhat node, a chain for indexing benchmarks: at
// least --blocks blocks (2,000 by default) holding at least --transfers
// ERC20 Transfer events (100,000 by default), many in each block.
//
//   bench-chain.cjs --rpc URL --out FILE [--blocks N] [--transfers N] [--seed TEXT]
//
// Setup (automine): WETH9, a USD stablecoin and three more ERC20 presets, a
// Uniswap v2 factory with WETH/USD and TOKEN/WETH pairs (so that the chain
// has prices), and Fanout, a contract of our own (lib.cjs) that moves one
// token from its caller to many recipients in one transaction. Ten funded
// accounts get every token and approve Fanout once.
//
// Then automine goes off, and each block is mined by evm_mine, 12 seconds
// after the one before, holding 1 to 3 Fanout transactions from different
// senders, 10 to 42 transfers each, to recipients drawn from a pool of
// addresses that grows as the chain does; every 20th block also a swap.
// Automine is back on at the end. The Transfer events are counted with
// eth_getLogs, and must be as many as were sent.
//
// FILE (JSON) has the deployment file's shape (contracts, a sample of
// wallets: the senders and some recipients), so that check.cjs can compare
// w3api with the node on it, plus `blocks`, `transfers` and `seconds`.
'use strict';

const { Interface } = require('ethers');
const { Node, Rng, TOPICS, artifact, fail, hex, parseArgs, required, writeJson } = require('./lib.cjs');

const ERC20 = new Interface([
  'function transfer(address,uint256) returns (bool)',
  'function approve(address,uint256) returns (bool)',
  'function mint(address,uint256)',
  'function deposit() payable',
]);
const PAIR = new Interface([
  'function mint(address) returns (uint256)',
  'function swap(uint256,uint256,address,bytes)',
  'function getReserves() view returns (uint112, uint112, uint32)',
]);
const MAX = (1n << 256n) - 1n;
const E18 = 10n ** 18n;
const BLOCK_SECONDS = 12;

async function main() {
  const args = parseArgs(process.argv.slice(2));
  required(args, 'rpc', 'out');
  const targetBlocks = Number(args.blocks ?? 2000);
  const targetTransfers = Number(args.transfers ?? 100_000);
  const rng = new Rng(args.seed ?? 'w3api-bench-chain');
  const node = new Node(args.rpc, { timeoutMs: 120_000 });
  const started = Date.now();
  const first = (await node.head()) + 1;
  if (first !== 1) throw new Error(`the node is not fresh: it has ${first - 1} blocks`);

  // ------------------------------------------------------------ setup
  const accounts = await node.accounts();
  const admin = accounts[0];
  const senders = accounts.slice(1, 11);
  const contracts = [];
  let setupTransfers = 0;
  const deploy = async (name, args, entry) => {
    const address = await node.deploy(admin, name, args);
    contracts.push({ ...entry, address, block: await node.head() });
    return address;
  };
  const weth = await deploy('WETH9', [], { role: 'wrapped', name: 'Wrapped Ether', symbol: 'WETH', decimals: 18 });
  const presets = [];
  for (const [role, name, symbol] of [
    ['stable', 'USD Stable', 'USD'],
    ['token', 'Bench One', 'BON'],
    ['token', 'Bench Two', 'BTW'],
    ['token', 'Bench Three', 'BTH'],
  ]) {
    presets.push(await deploy('ERC20PresetMinterPauser', [name, symbol], { role, name, symbol, decimals: 18 }));
  }
  const [usd, ...others] = presets;
  const factory = await deploy('UniswapV2Factory', [admin], { role: 'factory' });
  const fanout = await node.deploy(admin, 'Fanout', []);
  const factoryIface = artifact('UniswapV2Factory').iface;
  const pairs = [];
  for (const [a, b, label] of [[weth, usd, 'WETH/USD'], ...others.map((t, i) => [t, weth, `T${i + 1}/WETH`])]) {
    const receipt = await node.tx(admin, factory, factoryIface, 'createPair', [a, b]);
    const log = receipt.logs.map((l) => factoryIface.parseLog(l)).find((l) => l && l.name === 'PairCreated');
    const pair = { address: log.args.pair.toLowerCase(), token0: log.args.token0.toLowerCase(), token1: log.args.token1.toLowerCase() };
    pairs.push(pair);
    contracts.push({ role: 'pair', ...pair, factory, name: label, block: Number(receipt.blockNumber) });
  }
  // Liquidity: ETH at 2,500 USD, the tokens at 1, 0.25 and 40 USD.
  await node.tx(admin, weth, ERC20, 'deposit', [], 2_000n * E18);
  for (const token of presets) {
    await node.tx(admin, token, ERC20, 'mint', [admin, 100_000_000n * E18]);
    setupTransfers++;
  }
  const seed = async (pair, a, amountA, b, amountB) => {
    await node.tx(admin, a, ERC20, 'transfer', [pair.address, amountA]);
    await node.tx(admin, b, ERC20, 'transfer', [pair.address, amountB]);
    await node.tx(admin, pair.address, PAIR, 'mint', [admin]);
    setupTransfers += 4; // both sides in, the locked minimum and the LP out
  };
  await seed(pairs[0], weth, 400n * E18, usd, 1_000_000n * E18);
  await seed(pairs[1], others[0], 250_000n * E18, weth, 100n * E18);
  await seed(pairs[2], others[1], 1_000_000n * E18, weth, 100n * E18);
  await seed(pairs[3], others[2], 6_250n * E18, weth, 100n * E18);
  // Every sender gets every token (and WETH) and lets Fanout move them.
  const tokens = [weth, ...presets];
  for (const sender of senders) {
    await node.tx(sender, weth, ERC20, 'deposit', [], 2_000n * E18);
    for (const token of presets) {
      await node.tx(admin, token, ERC20, 'transfer', [sender, 1_000_000n * E18]);
      setupTransfers++;
    }
    for (const token of tokens) await node.tx(sender, token, ERC20, 'approve', [fanout, MAX]);
  }
  const setupBlocks = await node.head();
  console.log(`--- bench-chain: setup in ${setupBlocks} blocks, ${((Date.now() - started) / 1000).toFixed(1)} s`);

  // ------------------------------------------------------------ the blocks
  const fanoutIface = artifact('Fanout').iface;
  const recipients = [];
  const newRecipient = () => {
    const address = rng.address();
    recipients.push(address);
    return address;
  };
  for (let i = 0; i < 2_000; i++) newRecipient();
  const nonces = new Map();
  for (const sender of [admin, ...senders]) nonces.set(sender, Number(await node.rpc.call('eth_getTransactionCount', [sender, 'latest'])));
  let timestamp = Number((await node.rpc.call('eth_getBlockByNumber', ['latest', false])).timestamp);
  const reserves = new Map();
  for (const pair of pairs) {
    const [r0, r1] = await node.view(pair.address, 'getReserves', [], 'latest', PAIR);
    reserves.set(pair.address, [r0, r1]);
  }

  await node.rpc.call('evm_setAutomine', [false]);
  let transfers = 0;
  let swaps = 0;
  let head = setupBlocks;
  const sendTx = (from, to, data, gas) => {
    const nonce = nonces.get(from);
    nonces.set(from, nonce + 1);
    return ['eth_sendTransaction', [{ from, to, data, gas: hex(gas), nonce: hex(nonce) }]];
  };
  try {
    while (head < targetBlocks || transfers + setupTransfers < targetTransfers) {
      const batch = [];
      const chosen = [...senders].sort(() => rng.float() - 0.5).slice(0, rng.between(1, 3));
      for (const sender of chosen) {
        const token = rng.pick(tokens);
        const count = rng.between(10, 42);
        const to = [];
        const amounts = [];
        for (let i = 0; i < count; i++) {
          to.push(rng.chance(0.3) ? newRecipient() : rng.pick(recipients));
          amounts.push(rng.bigBetween(10n ** 12n, 10n ** 18n));
        }
        batch.push(sendTx(sender, fanout, fanoutIface.encodeFunctionData('send', [token, to, amounts]), 80_000 + 40_000 * count));
        transfers += count;
      }
      if ((head + 1) % 20 === 0) {
        // A swap: the input to the pair, then swap, in this block, priced
        // from the reserves at the end of the block before.
        const pair = rng.pick(pairs);
        const [r0, r1] = reserves.get(pair.address);
        const zeroForOne = rng.chance(0.5);
        const [tokenIn, reserveIn, reserveOut] = zeroForOne ? [pair.token0, r0, r1] : [pair.token1, r1, r0];
        const amountIn = rng.share(reserveIn, 100, 5_000);
        const out = (amountIn * 997n * reserveOut) / (reserveIn * 1000n + amountIn * 997n);
        batch.push(sendTx(admin, tokenIn, ERC20.encodeFunctionData('transfer', [pair.address, amountIn]), 100_000));
        const swapArgs = zeroForOne ? [0n, out, admin, '0x'] : [out, 0n, admin, '0x'];
        batch.push(sendTx(admin, pair.address, PAIR.encodeFunctionData('swap', swapArgs), 200_000));
        reserves.set(pair.address, zeroForOne ? [r0 + amountIn, r1 - out] : [r0 - out, r1 + amountIn]);
        transfers += 2;
        swaps++;
      }
      const answers = await node.rpc.batch(batch);
      const refused = answers.find((a) => a.error);
      if (refused) throw new Error(`block ${head + 1}: the node refused a transaction: ${refused.error.message}`);
      timestamp += BLOCK_SECONDS;
      await node.rpc.call('evm_mine', [timestamp]);
      head++;
      if (head % 500 === 0) {
        console.log(`block ${head}: ${transfers + setupTransfers} transfers, ${((Date.now() - started) / 1000).toFixed(1)} s`);
      }
    }
  } finally {
    await node.rpc.call('evm_setAutomine', [true]);
  }
  head = await node.head();

  // ------------------------------------------------------------ count
  let counted = 0;
  let failedTxs = 0;
  for (let from = 1; from <= head; from += 250) {
    const to = Math.min(head, from + 249);
    const logs = await node.rpc.call('eth_getLogs', [{ fromBlock: hex(from), toBlock: hex(to), topics: [TOPICS.transfer] }]);
    counted += logs.filter((l) => l.topics.length === 3).length;
  }
  // The transactions of a sample of blocks all succeeded (the count above
  // already says that none moved less than it was sent to).
  const sampled = [];
  for (let block = setupBlocks + 1; block <= head; block += 23) sampled.push(['eth_getBlockByNumber', [hex(block), false]]);
  const hashes = (await node.rpc.batch(sampled)).flatMap((answer) => {
    if (answer.error) throw new Error(`eth_getBlockByNumber: ${answer.error.message}`);
    return answer.result.transactions;
  });
  for (const answer of await node.rpc.batch(hashes.map((h) => ['eth_getTransactionReceipt', [h]]))) {
    if (answer.error || !answer.result) throw new Error(`eth_getTransactionReceipt: ${answer.error ? answer.error.message : 'none'}`);
    if (answer.result.status !== '0x1') failedTxs++;
  }
  const expected = transfers + setupTransfers;
  if (counted !== expected || failedTxs) {
    throw new Error(`the chain holds ${counted} ERC20 transfers, ${expected} were sent; ${failedTxs} sampled transactions failed`);
  }
  const seconds = (Date.now() - started) / 1000;
  const sample = [...new Set(recipients.filter(() => rng.chance(0.002)))].slice(0, 20);
  writeJson(args.out, {
    chainId: Number(await node.rpc.call('eth_chainId')),
    seed: args.seed ?? 'w3api-bench-chain',
    contracts,
    wallets: [
      ...[admin, ...senders].map((address) => ({ address, kind: 'account' })),
      ...sample.map((address) => ({ address, kind: 'fresh' })),
      ...pairs.map((p) => ({ address: p.address, kind: 'pair' })),
    ],
    nfts: [],
    branches: [],
    firstBlock: 1,
    lastBlock: head,
    blocks: head,
    transfers: counted,
    swaps,
    recipients: recipients.length,
    seconds: Number(seconds.toFixed(1)),
  });
  console.log(
    `--- bench-chain: ${head} blocks, ${counted} ERC20 transfers (${swaps} swaps), ` +
      `${recipients.length} recipient addresses, ${seconds.toFixed(1)} s; wrote ${args.out}`,
  );
}

main().catch(fail);
