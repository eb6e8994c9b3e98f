'use strict';
// ethers v6 against the gateway with its default setup,
// `new JsonRpcProvider(url)` (which batches concurrent calls into JSON-RPC
// arrays): every JSON-RPC method through the provider's methods, or
// provider.send where ethers has none, each decoded result compared field by
// field with the raw answer to the same call.

const { JsonRpcProvider, Wallet, zeroPadValue, id: keccakId, toQuantity, parseEther } = require('ethers');
const {
  RPC_URL, fixture: fx, rawResult, expectSame, runner, assert,
} = require('./lib.cjs');

// How ethers names and shapes the execution-API objects.
const sig = (field) => (tx) => (tx.signature ? tx.signature[field] : undefined);
const AUTHORIZATION = { alias: { yParity: sig('yParity'), r: sig('r'), s: sig('s') } };
const TX = {
  alias: {
    gas: 'gasLimit',
    input: 'data',
    transactionIndex: 'index',
    r: sig('r'),
    s: sig('s'),
    yParity: sig('yParity'),
    // ethers keeps v normalized to 27/28 and the EIP-155 form in networkV.
    v: (tx, raw) => {
      if (!tx.signature) return undefined;
      if (tx.signature.networkV !== null) return tx.signature.networkV;
      return BigInt(raw) <= 1n ? BigInt(tx.signature.v - 27) : BigInt(tx.signature.v);
    },
  },
  nested: { authorizationList: AUTHORIZATION },
};
const BLOCK = {
  alias: {
    mixHash: 'prevRandao',
    transactions: (block, raw) =>
      raw.length && typeof raw[0] === 'object' ? block.prefetchedTransactions : block.transactions,
  },
  nested: { transactions: TX },
};
const LOG = { alias: { logIndex: 'index' } };
const RECEIPT = {
  alias: { transactionHash: 'hash', transactionIndex: 'index', effectiveGasPrice: 'gasPrice' },
  nested: { logs: LOG },
};

const provider = new JsonRpcProvider(RPC_URL);
const { check, done, fatal } = runner('ethers');

async function main() {
  const busy = fx.busy;

  await check('eth_chainId: getNetwork', async () => {
    const network = await provider.getNetwork();
    assert(network.chainId === 1n, `chain id ${network.chainId}, expected 1 for eth`);
    assert(network.name === 'mainnet', `network name ${network.name}`);
    return expectSame(network.chainId, await rawResult('eth_chainId'), 'chainId');
  });
  await check('net_version: send', async () =>
    expectSame(await provider.send('net_version', []), await rawResult('net_version'), 'net_version'));
  await check('web3_clientVersion: send', async () =>
    expectSame(await provider.send('web3_clientVersion', []), await rawResult('web3_clientVersion'), 'clientVersion'));
  await check('eth_syncing: send', async () =>
    expectSame(await provider.send('eth_syncing', []), await rawResult('eth_syncing'), 'syncing'));
  await check('eth_blockNumber: getBlockNumber', async () =>
    expectSame(await provider.getBlockNumber(), await rawResult('eth_blockNumber'), 'blockNumber'));

  const blockIds = [[`number ${busy.number}`, busy.number, toQuantity(busy.number)],
    ...['latest', 'earliest', 'safe', 'finalized'].map((tag) => [tag, tag, tag])];
  for (const [label, arg, param] of blockIds) {
    for (const full of [false, true]) {
      await check(`eth_getBlockByNumber: getBlock(${label}, ${full ? 'prefetch' : 'hashes'})`, async () => {
        const block = await provider.getBlock(arg, full);
        assert(block, 'getBlock gave null');
        return expectSame(block, await rawResult('eth_getBlockByNumber', [param, full]), 'block', BLOCK);
      });
    }
  }
  for (const full of [false, true]) {
    await check(`eth_getBlockByHash: getBlock(hash, ${full ? 'prefetch' : 'hashes'})`, async () => {
      const block = await provider.getBlock(busy.hash, full);
      assert(block, 'getBlock gave null');
      return expectSame(block, await rawResult('eth_getBlockByHash', [busy.hash, full]), 'block', BLOCK);
    });
  }

  for (const tx of fx.picks) {
    await check(`eth_getTransactionByHash: getTransaction(${tx.label})`, async () => {
      const got = await provider.getTransaction(tx.hash);
      assert(got, 'getTransaction gave null');
      return expectSame(got, await rawResult('eth_getTransactionByHash', [tx.hash]), 'tx', TX);
    });
    await check(`eth_getTransactionByBlockHashAndIndex: send(blockHash, ${tx.index}) (${tx.label})`, async () => {
      const params = [tx.blockHash, toQuantity(tx.index)];
      return expectSame(await provider.send('eth_getTransactionByBlockHashAndIndex', params),
        await rawResult('eth_getTransactionByBlockHashAndIndex', params), 'tx');
    });
    await check(`eth_getTransactionByBlockNumberAndIndex: send(${tx.blockNumber}, ${tx.index})`, async () => {
      const params = [toQuantity(tx.blockNumber), toQuantity(tx.index)];
      return expectSame(await provider.send('eth_getTransactionByBlockNumberAndIndex', params),
        await rawResult('eth_getTransactionByBlockNumberAndIndex', params), 'tx');
    });
    await check(`eth_getTransactionReceipt: getTransactionReceipt(${tx.label})`, async () => {
      const receipt = await provider.getTransactionReceipt(tx.hash);
      assert(receipt, 'getTransactionReceipt gave null');
      return expectSame(receipt, await rawResult('eth_getTransactionReceipt', [tx.hash]), 'receipt', RECEIPT);
    });
  }
  await check(`eth_getBlockReceipts: send(${busy.number})`, async () =>
    expectSame(await provider.send('eth_getBlockReceipts', [toQuantity(busy.number)]),
      await rawResult('eth_getBlockReceipts', [toQuantity(busy.number)]), 'receipts'));
  await check('eth_getBlockReceipts: send(blockHash)', async () =>
    expectSame(await provider.send('eth_getBlockReceipts', [busy.hash]),
      await rawResult('eth_getBlockReceipts', [busy.hash]), 'receipts'));
  await check(`eth_getBlockTransactionCountByNumber: send(${busy.number})`, async () => {
    const n = await provider.send('eth_getBlockTransactionCountByNumber', [toQuantity(busy.number)]);
    assert(Number(n) === busy.txCount, `count ${n}, the block holds ${busy.txCount}`);
    return expectSame(n, await rawResult('eth_getBlockTransactionCountByNumber', [toQuantity(busy.number)]), 'count');
  });
  await check('eth_getBlockTransactionCountByHash: send(blockHash)', async () => {
    const n = await provider.send('eth_getBlockTransactionCountByHash', [busy.hash]);
    assert(Number(n) === busy.txCount, `count ${n}, the block holds ${busy.txCount}`);
    return expectSame(n, await rawResult('eth_getBlockTransactionCountByHash', [busy.hash]), 'count');
  });

  const t = fx.transfer;
  const nonEmpty = (logs, what) => assert(logs.length > 0, `${what}: no logs (the devnet has a transfer there)`);
  await check('eth_getLogs: getLogs(address, block range)', async () => {
    const logs = await provider.getLogs({ address: t.token, fromBlock: t.fromBlock, toBlock: t.toBlock });
    nonEmpty(logs, 'address');
    return expectSame(logs, await rawResult('eth_getLogs', [{ address: t.token, fromBlock: toQuantity(t.fromBlock), toBlock: toQuantity(t.toBlock) }]), 'logs', LOG);
  });
  await check('eth_getLogs: getLogs(topics [Transfer, from], block range)', async () => {
    const topic0 = keccakId('Transfer(address,address,uint256)');
    assert(topic0 === t.topic0, `Transfer topic ${topic0} != ${t.topic0}`);
    const logs = await provider.getLogs({ topics: [topic0, zeroPadValue(t.from, 32)], fromBlock: t.fromBlock, toBlock: t.toBlock });
    nonEmpty(logs, 'topics');
    return expectSame(logs, await rawResult('eth_getLogs', [{ topics: [t.topic0, t.fromTopic], fromBlock: toQuantity(t.fromBlock), toBlock: toQuantity(t.toBlock) }]), 'logs', LOG);
  });
  await check('eth_getLogs: getLogs(address, topics, blockHash)', async () => {
    const logs = await provider.getLogs({ address: t.token, topics: [t.topic0], blockHash: t.blockHash });
    nonEmpty(logs, 'blockHash');
    return expectSame(logs, await rawResult('eth_getLogs', [{ address: t.token, topics: [t.topic0], blockHash: t.blockHash }]), 'logs', LOG);
  });

  for (const wallet of fx.wallets) {
    const w = wallet.slice(0, 10);
    await check(`eth_getBalance: getBalance(${w}, ${fx.stateBlock})`, async () =>
      expectSame(await provider.getBalance(wallet, fx.stateBlock), await rawResult('eth_getBalance', [wallet, toQuantity(fx.stateBlock)]), 'balance'));
    await check(`eth_getBalance: getBalance(${w}, latest)`, async () =>
      expectSame(await provider.getBalance(wallet), await rawResult('eth_getBalance', [wallet, 'latest']), 'balance'));
    await check(`eth_getTransactionCount: getTransactionCount(${w}, ${fx.stateBlock})`, async () =>
      expectSame(await provider.getTransactionCount(wallet, fx.stateBlock), await rawResult('eth_getTransactionCount', [wallet, toQuantity(fx.stateBlock)]), 'nonce'));
    await check(`eth_getTransactionCount: getTransactionCount(${w}, latest)`, async () =>
      expectSame(await provider.getTransactionCount(wallet), await rawResult('eth_getTransactionCount', [wallet, 'latest']), 'nonce'));
  }

  // getFeeData swallows a failing eth_gasPrice / eth_maxPriorityFeePerGas and
  // substitutes defaults: the raw calls must succeed for this to test them.
  let feeData;
  await check('eth_gasPrice: getFeeData().gasPrice', async () => {
    const raw = await rawResult('eth_gasPrice');
    feeData = await provider.getFeeData();
    return expectSame(feeData.gasPrice, raw, 'gasPrice');
  });
  await check('eth_maxPriorityFeePerGas: getFeeData().maxPriorityFeePerGas', async () => {
    const raw = await rawResult('eth_maxPriorityFeePerGas');
    feeData = feeData || await provider.getFeeData();
    return expectSame(feeData.maxPriorityFeePerGas, raw, 'maxPriorityFeePerGas');
  });
  await check(`eth_feeHistory: send(4, ${busy.number}, [25, 75])`, async () => {
    const params = ['0x4', toQuantity(busy.number), [25, 75]];
    return expectSame(await provider.send('eth_feeHistory', params), await rawResult('eth_feeHistory', params), 'feeHistory');
  });

  await check('eth_getTokenPrice: send', async () => {
    const params = [{ address: fx.token, include: 'percent_change' }];
    return expectSame(await provider.send('eth_getTokenPrice', params), await rawResult('eth_getTokenPrice', params), 'price');
  });

  // The devnet executes: a call, an estimate and a sent transaction
  // answer as a node's do. The key is Hardhat's and Anvil's account #2,
  // funded on every devnet chain.
  const wallet = new Wallet('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a', provider);
  const to = fx.wallets[0];
  await check('eth_call: call', async () =>
    expectSame(await provider.call({ to: fx.token, data: '0x18160ddd' }),
      await rawResult('eth_call', [{ to: fx.token, data: '0x18160ddd' }, 'latest']), 'call'));
  await check('eth_estimateGas: estimateGas', async () =>
    expectSame(await provider.estimateGas({ from: wallet.address, to, value: 1n }),
      await rawResult('eth_estimateGas', [{ from: wallet.address, to, value: '0x1' }]), 'estimateGas'));
  await check('eth_sendRawTransaction: broadcastTransaction, then its receipt', async () => {
    const nonce = await provider.getTransactionCount(wallet.address);
    const signed = await wallet.signTransaction({
      type: 2, chainId: 1, nonce, to, value: parseEther('0.001'), gasLimit: 21000n,
      maxFeePerGas: 30_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n,
    });
    const sent = await provider.broadcastTransaction(signed);
    const receipt = await provider.getTransactionReceipt(sent.hash);
    if (!receipt || receipt.status !== 1) throw new Error(`receipt ${receipt && receipt.status}`);
    return `${sent.hash} mined in block ${receipt.blockNumber}`;
  });
}

main().catch(fatal).finally(() => {
  provider.destroy();
  done();
});
