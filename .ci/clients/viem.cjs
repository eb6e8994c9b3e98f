'use strict';
// viem against the gateway: every JSON-RPC method through viem's public
// actions (client.request where viem has no action), each decoded result
// compared field by field with the raw answer to the same call.

const {
  createPublicClient, http, parseAbiItem, numberToHex, parseEther,
} = require('viem');
const { mainnet } = require('viem/chains');
const { privateKeyToAccount } = require('viem/accounts');
const {
  RPC_URL, fixture: fx, rawResult, expectSame, runner, mustThrow, assert,
} = require('./lib.cjs');

// How viem names and shapes the execution-API objects.
const TX_TYPES = { '0x0': 'legacy', '0x1': 'eip2930', '0x2': 'eip1559', '0x3': 'eip4844', '0x4': 'eip7702' };
const TX = { enums: { type: TX_TYPES } };
const BLOCK = { nested: { transactions: TX } };
const LOG = {};
const RECEIPT = {
  enums: { type: TX_TYPES, status: { '0x1': 'success', '0x0': 'reverted' } },
  nested: { logs: LOG },
};
const FEE_HISTORY = {};

const client = createPublicClient({ chain: mainnet, transport: http(RPC_URL, { retryCount: 0, timeout: 20000 }) });
const { check, done, fatal } = runner('viem');
const hex = (n) => numberToHex(BigInt(n));
// The JSON-RPC error code a viem error carries (it wraps RpcErrors in action errors).

async function main() {
  const busy = fx.busy;

  await check('eth_chainId: getChainId', async () => {
    const id = await client.getChainId();
    assert(id === 1, `chain id ${id}, expected 1 for eth`);
    return expectSame(id, await rawResult('eth_chainId'), 'chainId');
  });
  await check('net_version: request', async () =>
    expectSame(await client.request({ method: 'net_version' }), await rawResult('net_version'), 'net_version'));
  await check('web3_clientVersion: request', async () =>
    expectSame(await client.request({ method: 'web3_clientVersion' }), await rawResult('web3_clientVersion'), 'clientVersion'));
  await check('eth_syncing: request', async () =>
    expectSame(await client.request({ method: 'eth_syncing' }), await rawResult('eth_syncing'), 'syncing'));
  await check('eth_blockNumber: getBlockNumber', async () =>
    expectSame(await client.getBlockNumber({ cacheTime: 0 }), await rawResult('eth_blockNumber'), 'blockNumber'));

  // Blocks by number and tag, hashes and full.
  const blockIds = [
    [`number ${busy.number}`, { blockNumber: BigInt(busy.number) }, hex(busy.number)],
    ...['latest', 'earliest', 'safe', 'finalized'].map((tag) => [tag, { blockTag: tag }, tag]),
  ];
  for (const [label, arg, param] of blockIds) {
    for (const full of [false, true]) {
      await check(`eth_getBlockByNumber: getBlock(${label}, ${full ? 'full' : 'hashes'})`, async () => {
        const block = await client.getBlock({ ...arg, includeTransactions: full });
        return expectSame(block, await rawResult('eth_getBlockByNumber', [param, full]), 'block', BLOCK);
      });
    }
  }
  for (const full of [false, true]) {
    await check(`eth_getBlockByHash: getBlock(hash, ${full ? 'full' : 'hashes'})`, async () => {
      const block = await client.getBlock({ blockHash: busy.hash, includeTransactions: full });
      return expectSame(block, await rawResult('eth_getBlockByHash', [busy.hash, full]), 'block', BLOCK);
    });
  }

  // Transactions: the picked ones of the busy block (one per type, first, last, a token transfer).
  for (const tx of fx.picks) {
    await check(`eth_getTransactionByHash: getTransaction(${tx.label})`, async () =>
      expectSame(await client.getTransaction({ hash: tx.hash }), await rawResult('eth_getTransactionByHash', [tx.hash]), 'tx', TX));
    await check(`eth_getTransactionByBlockHashAndIndex: getTransaction(blockHash, ${tx.index}) (${tx.label})`, async () =>
      expectSame(await client.getTransaction({ blockHash: tx.blockHash, index: tx.index }),
        await rawResult('eth_getTransactionByBlockHashAndIndex', [tx.blockHash, hex(tx.index)]), 'tx', TX));
    await check(`eth_getTransactionByBlockNumberAndIndex: getTransaction(${tx.blockNumber}, ${tx.index})`, async () =>
      expectSame(await client.getTransaction({ blockNumber: BigInt(tx.blockNumber), index: tx.index }),
        await rawResult('eth_getTransactionByBlockNumberAndIndex', [hex(tx.blockNumber), hex(tx.index)]), 'tx', TX));
    await check(`eth_getTransactionReceipt: getTransactionReceipt(${tx.label})`, async () =>
      expectSame(await client.getTransactionReceipt({ hash: tx.hash }),
        await rawResult('eth_getTransactionReceipt', [tx.hash]), 'receipt', RECEIPT));
  }
  await check('eth_getTransactionByBlockNumberAndIndex: getTransaction(latest, 0)', async () => {
    const raw = await rawResult('eth_getTransactionByBlockNumberAndIndex', ['latest', '0x0']);
    if (raw === null) {
      // The latest block is empty: null, which viem reports as not found.
      const e = await mustThrow(() => client.getTransaction({ blockTag: 'latest', index: 0 }), 'latest #0');
      assert(e.name === 'TransactionNotFoundError', `expected TransactionNotFoundError, got ${e.name}: ${e.message}`);
      return 'latest block empty: null, TransactionNotFoundError';
    }
    return expectSame(await client.getTransaction({ blockTag: 'latest', index: 0 }), raw, 'tx', TX);
  });

  await check(`eth_getBlockReceipts: getBlockReceipts(${busy.number})`, async () =>
    expectSame(await client.getBlockReceipts({ blockNumber: BigInt(busy.number) }),
      await rawResult('eth_getBlockReceipts', [hex(busy.number)]), 'receipts', RECEIPT));
  await check('eth_getBlockReceipts: getBlockReceipts(blockHash)', async () =>
    expectSame(await client.getBlockReceipts({ blockHash: busy.hash }),
      await rawResult('eth_getBlockReceipts', [busy.hash]), 'receipts', RECEIPT));
  await check(`eth_getBlockTransactionCountByNumber: getBlockTransactionCount(${busy.number})`, async () => {
    const n = await client.getBlockTransactionCount({ blockNumber: BigInt(busy.number) });
    assert(n === busy.txCount, `count ${n}, the block holds ${busy.txCount}`);
    return expectSame(n, await rawResult('eth_getBlockTransactionCountByNumber', [hex(busy.number)]), 'count');
  });
  await check('eth_getBlockTransactionCountByNumber: getBlockTransactionCount(latest)', async () =>
    expectSame(await client.getBlockTransactionCount({ blockTag: 'latest' }),
      await rawResult('eth_getBlockTransactionCountByNumber', ['latest']), 'count'));
  await check('eth_getBlockTransactionCountByHash: getBlockTransactionCount(blockHash)', async () => {
    const n = await client.getBlockTransactionCount({ blockHash: busy.hash });
    assert(n === busy.txCount, `count ${n}, the block holds ${busy.txCount}`);
    return expectSame(n, await rawResult('eth_getBlockTransactionCountByHash', [busy.hash]), 'count');
  });

  // Logs.
  const t = fx.transfer;
  const nonEmpty = (logs, what) => assert(logs.length > 0, `${what}: no logs (the devnet has a transfer there)`);
  await check('eth_getLogs: getLogs(address, block range)', async () => {
    const logs = await client.getLogs({ address: t.token, fromBlock: BigInt(t.fromBlock), toBlock: BigInt(t.toBlock) });
    nonEmpty(logs, 'address');
    return expectSame(logs, await rawResult('eth_getLogs', [{ address: t.token, fromBlock: hex(t.fromBlock), toBlock: hex(t.toBlock) }]), 'logs', LOG);
  });
  await check('eth_getLogs: getLogs(event Transfer, args.from, block range) = topics', async () => {
    const logs = await client.getLogs({
      event: parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)'),
      args: { from: t.from }, fromBlock: BigInt(t.fromBlock), toBlock: BigInt(t.toBlock),
    });
    nonEmpty(logs, 'topics');
    for (const log of logs) assert(log.args && log.args.from.toLowerCase() === t.from.toLowerCase(), `decoded from ${log.args && log.args.from}`);
    const raw = await rawResult('eth_getLogs', [{ topics: [t.topic0, t.fromTopic], fromBlock: hex(t.fromBlock), toBlock: hex(t.toBlock) }]);
    return expectSame(logs, raw, 'logs', LOG);
  });
  await check('eth_getLogs: getLogs(address, topics, blockHash)', async () => {
    const logs = await client.getLogs({
      address: t.token, event: parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)'),
      blockHash: t.blockHash,
    });
    nonEmpty(logs, 'blockHash');
    return expectSame(logs, await rawResult('eth_getLogs', [{ address: t.token, topics: [t.topic0], blockHash: t.blockHash }]), 'logs', LOG);
  });

  // Account state.
  for (const wallet of fx.wallets) {
    await check(`eth_getBalance: getBalance(${wallet.slice(0, 10)}, ${fx.stateBlock})`, async () =>
      expectSame(await client.getBalance({ address: wallet, blockNumber: BigInt(fx.stateBlock) }),
        await rawResult('eth_getBalance', [wallet, hex(fx.stateBlock)]), 'balance'));
    await check(`eth_getBalance: getBalance(${wallet.slice(0, 10)}, latest)`, async () =>
      expectSame(await client.getBalance({ address: wallet }), await rawResult('eth_getBalance', [wallet, 'latest']), 'balance'));
    await check(`eth_getTransactionCount: getTransactionCount(${wallet.slice(0, 10)}, ${fx.stateBlock})`, async () =>
      expectSame(await client.getTransactionCount({ address: wallet, blockNumber: BigInt(fx.stateBlock) }),
        await rawResult('eth_getTransactionCount', [wallet, hex(fx.stateBlock)]), 'nonce'));
    await check(`eth_getTransactionCount: getTransactionCount(${wallet.slice(0, 10)}, latest)`, async () =>
      expectSame(await client.getTransactionCount({ address: wallet }),
        await rawResult('eth_getTransactionCount', [wallet, 'latest']), 'nonce'));
  }

  // Fees.
  await check('eth_gasPrice: getGasPrice', async () =>
    expectSame(await client.getGasPrice(), await rawResult('eth_gasPrice'), 'gasPrice'));
  await check('eth_maxPriorityFeePerGas: estimateMaxPriorityFeePerGas', async () => {
    // viem falls back to gasPrice - baseFee when the method fails: the raw
    // call must succeed on its own for this to test the method.
    const raw = await rawResult('eth_maxPriorityFeePerGas');
    return expectSame(await client.estimateMaxPriorityFeePerGas(), raw, 'maxPriorityFeePerGas');
  });
  await check(`eth_feeHistory: getFeeHistory(4, ${busy.number}, [25, 75])`, async () =>
    expectSame(await client.getFeeHistory({ blockCount: 4, blockNumber: BigInt(busy.number), rewardPercentiles: [25, 75] }),
      await rawResult('eth_feeHistory', ['0x4', hex(busy.number), [25, 75]]), 'feeHistory', FEE_HISTORY));
  await check('eth_feeHistory: getFeeHistory(2, latest, [])', async () =>
    expectSame(await client.getFeeHistory({ blockCount: 2, blockTag: 'latest', rewardPercentiles: [] }),
      await rawResult('eth_feeHistory', ['0x2', 'latest', []]), 'feeHistory', FEE_HISTORY));

  // The custom method.
  await check('eth_getTokenPrice: request', async () => {
    const params = [{ address: fx.token, include: 'percent_change' }];
    const price = await client.request({ method: 'eth_getTokenPrice', params });
    return expectSame(price, await rawResult('eth_getTokenPrice', params), 'price');
  });

  // The devnet executes: a call, an estimate and a sent transaction
  // answer as a node's do. The key is Hardhat's and Anvil's account #1,
  // funded on every devnet chain.
  const account = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
  const to = fx.wallets[0];
  await check('eth_call: call', async () => {
    const { data } = await client.call({ to: fx.token, data: '0x18160ddd' });
    return expectSame(data, await rawResult('eth_call', [{ to: fx.token, data: '0x18160ddd' }, 'latest']), 'call');
  });
  await check('eth_estimateGas: estimateGas', async () => {
    const gas = await client.estimateGas({ account: account.address, to, value: 1n });
    return expectSame(gas, await rawResult('eth_estimateGas', [{ from: account.address, to, value: '0x1' }]), 'estimateGas');
  });
  await check('eth_simulateV1: simulateBlocks (a call, on top of a block)', async () => {
    const latest = await client.getBlockNumber();
    const calls = [{ to: fx.token, data: '0x18160ddd' }];
    const [block] = await client.simulateBlocks({ blockNumber: latest, blocks: [{ calls }] });
    assert(block.number === latest + 1n, `simulated block ${block.number}, latest ${latest}`);
    const [raw] = await rawResult('eth_simulateV1', [{ blockStateCalls: [{ calls }] }, hex(latest)]);
    assert(block.hash === raw.hash, `hash ${block.hash} vs ${raw.hash}`);
    assert(block.calls[0].status === 'success', `status ${block.calls[0].status}`);
    return expectSame(block.calls[0].data, raw.calls[0].returnData, 'returnData');
  });
  await check('eth_simulateV1: simulateCalls (a transfer, traceAssetChanges)', async () => {
    const { results, assetChanges } = await client.simulateCalls({
      account: account.address, calls: [{ to, value: 1234n }], traceAssetChanges: true,
    });
    assert(results[0].status === 'success', `status ${results[0].status}`);
    const eth = assetChanges.find((change) => change.token.address.toLowerCase() === '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee');
    assert(eth && eth.value.diff === -1234n, `ETH change ${eth && eth.value.diff}`);
    return `ETH ${eth.value.pre} -> ${eth.value.post}`;
  });
  await check('eth_simulateV1: a revert comes back as the call\'s error, with its data', async () => {
    const [block] = await client.simulateBlocks({
      blocks: [{ calls: [{ to: fx.token, data: '0xdeadbeef' }] }],
    });
    assert(block.calls[0].status === 'failure', `status ${block.calls[0].status}`);
    return block.calls[0].error.shortMessage || block.calls[0].error.message;
  });
  await check('eth_sendRawTransaction: sendRawTransaction, then its receipt', async () => {
    const nonce = await client.getTransactionCount({ address: account.address });
    const serializedTransaction = await account.signTransaction({
      chainId: 1, type: 'eip1559', nonce, to, value: parseEther('0.001'), gas: 21000n,
      maxFeePerGas: 30_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n,
    });
    const hash = await client.sendRawTransaction({ serializedTransaction });
    const receipt = await client.getTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`receipt status ${receipt.status}`);
    return `${hash} mined in block ${receipt.blockNumber}`;
  });
}

main().catch(fatal).finally(done);
