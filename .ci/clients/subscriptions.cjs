'use strict';
// The gateway over a WebSocket, as a dApp's front end uses it: viem's
// webSocket transport (watchBlocks, watchBlockNumber, watchContractEvent,
// watchPendingTransactions, each through eth_subscribe) and ethers'
// WebSocketProvider (on('block'), contract.on('Transfer')), at
// ws://HOST/eth/KEY, the HTTP gateway's own path. What each notification
// carries is compared with the raw HTTP answer for the same block, event
// or transaction. A user's own OpenZeppelin ERC20 (npm build artifact),
// deployed here from dev account #6, makes the events; blocks come from
// evm_mine, and pending transactions from sends with automine off (put
// back on at the end).

const path = require('node:path');
const viem = require('viem');
const { mainnet } = require('viem/chains');
const ethers = require('ethers');
const { RPC_URL, rawResult, runner, assert } = require('./lib.cjs');

const WS_URL = RPC_URL.replace(/^http:/, 'ws:');
const OZ = path.dirname(require.resolve('@openzeppelin/contracts/package.json'));
const ERC20 = require(path.join(OZ, 'build', 'contracts', 'ERC20PresetMinterPauser.json'));
const WHOLE = 10n ** 18n;
const { check, done, fatal } = runner('subscriptions');

/** Resolves with the first value `start(resolve)` hands over; rejects after ms. */
function firstOf(what, start, ms = 20000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms / 1000} s`)), ms);
    start((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}

async function deployToken(account) {
  const transport = viem.http(RPC_URL, { retryCount: 0, timeout: 20000 });
  const client = viem.createPublicClient({ chain: mainnet, transport });
  const wallet = viem.createWalletClient({ account, chain: mainnet, transport });
  const mined = async (hash) => client.waitForTransactionReceipt({ hash, pollingInterval: 100, timeout: 20000 });
  const deployment = await wallet.deployContract({ abi: ERC20.abi, bytecode: ERC20.bytecode, args: ['Socket Token', 'SOCK'] });
  const token = (await mined(deployment)).contractAddress;
  await mined(await wallet.writeContract({ address: token, abi: ERC20.abi, functionName: 'mint', args: [account, 1000n * WHOLE] }));
  return token;
}

async function withViem(account, token) {
  const transport = viem.webSocket(WS_URL, { retryCount: 0, timeout: 20000 });
  const client = viem.createPublicClient({ chain: mainnet, transport });
  const wallet = viem.createWalletClient({ account, chain: mainnet, transport });
  const other = '0x000000000000000000000000000000000000dEaD';

  await check('viem webSocket: watchBlocks fires for evm_mine with the mined block', async () => {
    let unwatch;
    const block = await firstOf('watchBlocks', (found) => {
      unwatch = client.watchBlocks({ onBlock: found, onError: (e) => found(e) });
      // The subscription is made before the block it is to hear of.
      setTimeout(() => rawResult('evm_mine').catch(() => {}), 300);
    });
    unwatch();
    assert(!(block instanceof Error), `watchBlocks failed: ${block && block.message}`);
    const raw = await rawResult('eth_getBlockByNumber', [viem.toHex(block.number), false]);
    assert(raw.hash === block.hash && raw.parentHash === block.parentHash, `${block.hash} is not ${raw.hash}`);
    return `block ${block.number}`;
  });
  await check('viem webSocket: watchBlockNumber counts each block once, in order', async () => {
    const seen = [];
    let unwatch;
    await firstOf('watchBlockNumber', (found) => {
      unwatch = client.watchBlockNumber({ onBlockNumber: (n) => { seen.push(n); if (seen.length === 3) found(); } });
      setTimeout(() => rawResult('anvil_mine', ['0x3']).catch(() => {}), 300);
    });
    unwatch();
    assert(seen[1] === seen[0] + 1n && seen[2] === seen[1] + 1n, `numbers ${seen.join(', ')}`);
    return seen.join(', ');
  });
  await check('viem webSocket: watchContractEvent fires for a Transfer of the user\'s ERC20, args decoded', async () => {
    let unwatch;
    const logs = await firstOf('watchContractEvent', (found) => {
      unwatch = client.watchContractEvent({ address: token, abi: ERC20.abi, eventName: 'Transfer', onLogs: found });
      setTimeout(() => {
        wallet.writeContract({ address: token, abi: ERC20.abi, functionName: 'transfer', args: [other, 5n * WHOLE] }).catch(() => {});
      }, 300);
    });
    unwatch();
    const [log] = logs;
    assert(log.args.from === account && log.args.to === other && log.args.value === 5n * WHOLE, `args ${JSON.stringify(log.args, (_, v) => (typeof v === 'bigint' ? `${v}` : v))}`);
    const receipt = await rawResult('eth_getTransactionReceipt', [log.transactionHash]);
    assert(receipt.logs.some((raw) => raw.logIndex === viem.toHex(log.logIndex) && raw.data === log.data), 'the log is in its receipt');
    return `${log.args.value} to ${log.args.to}`;
  });
  await check('viem webSocket: watchPendingTransactions fires for a send with automine off', async () => {
    await rawResult('evm_setAutomine', [false]);
    try {
      let unwatch;
      let sent;
      const hashes = await firstOf('watchPendingTransactions', (found) => {
        unwatch = client.watchPendingTransactions({ onTransactions: found });
        setTimeout(() => {
          wallet.sendTransaction({ to: other, value: 1n }).then((hash) => { sent = hash; }).catch(() => {});
        }, 300);
      });
      unwatch();
      await rawResult('evm_mine');
      const receipt = await rawResult('eth_getTransactionReceipt', [hashes[0]]);
      assert(receipt && receipt.status === '0x1', `${hashes[0]} was mined once the block came`);
      assert(!sent || sent === hashes[0], `${hashes[0]} is not the hash sent, ${sent}`);
      return hashes[0];
    } finally {
      await rawResult('evm_setAutomine', [true]);
    }
  });
}

async function withEthers(account, token) {
  const provider = new ethers.WebSocketProvider(WS_URL, 1, { staticNetwork: true });
  try {
    await check('ethers WebSocketProvider: on(\'block\') fires for evm_mine', async () => {
      const number = await firstOf('on(block)', (found) => {
        provider.once('block', found);
        setTimeout(() => rawResult('evm_mine').catch(() => {}), 300);
      });
      const raw = await rawResult('eth_blockNumber');
      assert(BigInt(number) <= BigInt(raw), `block ${number} after the head ${raw}`);
      return `block ${number}`;
    });
    await check('ethers WebSocketProvider: contract.on(\'Transfer\') fires with from, to and value', async () => {
      const signer = await provider.getSigner(account);
      const contract = new ethers.Contract(token, ERC20.abi, signer);
      const to = ethers.Wallet.createRandom().address;
      const [from, got, value] = await firstOf('contract.on(Transfer)', (found) => {
        contract.on('Transfer', (...args) => found(args));
        setTimeout(() => { contract.transfer(to, 7n * WHOLE).catch(() => {}); }, 300);
      });
      await contract.removeAllListeners('Transfer');
      assert(from === account && got === to && value === 7n * WHOLE, `${from} -> ${got}: ${value}`);
      return `${value} to ${got}`;
    });
  } finally {
    await provider.destroy();
  }
}

(async () => {
  const account = (await rawResult('eth_accounts'))[6];
  const checksummed = viem.getAddress(account);
  const token = await deployToken(checksummed);
  await withViem(checksummed, token);
  await withEthers(checksummed, token);
})().catch(fatal).finally(() => {
  done();
  // viem keeps its socket open for the next caller; the checks are over.
  process.exit(process.exitCode);
});
