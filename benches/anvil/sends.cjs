'use strict';
// The two ways a test suite writes to a dev node, timed the same way on any
// node. Transactions are signed before the clock starts, so that only the
// node's work and the round trips are timed.
//
//   node sends.cjs serial URL TOKEN COUNT
//     COUNT ERC20 transfers from the mnemonic's first account, each sent
//     with eth_sendRawTransaction and followed by its receipt (automine);
//     prints "TX_PER_S LAST_HASH".
//   node sends.cjs burst URL COUNT
//     automine off, COUNT ether transfers from the second account sent
//     32 at a time, then evm_mine; checks the block holds all of them and
//     turns automine back on; prints "SEND_MS MINE_MS TOTAL_MS".
const { ethers } = require('ethers');

const MNEMONIC = 'test test test test test test test test test test test junk';
const account = (i) => ethers.HDNodeWallet.fromPhrase(MNEMONIC, undefined, `m/44'/60'/0'/0/${i}`);
const erc20 = new ethers.Interface(['function transfer(address to, uint256 amount) returns (bool)']);

let id = 0;
async function rpc(url, method, params) {
  const res = await fetch(url, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
  });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

// COUNT transactions of `sender`, nonces from its next, `make(i)` giving
// each one's `to`, `value` and `data`.
async function signed(url, sender, count, gasLimit, make) {
  const chainId = BigInt(await rpc(url, 'eth_chainId', []));
  const price = BigInt(await rpc(url, 'eth_gasPrice', []));
  let nonce = Number(BigInt(await rpc(url, 'eth_getTransactionCount', [sender.address, 'latest'])));
  const raws = [];
  for (let i = 0; i < count; i++) {
    raws.push(await sender.signTransaction({
      chainId, type: 2, nonce: nonce++, gasLimit, maxFeePerGas: price * 3n,
      maxPriorityFeePerGas: 1_000_000_000n, ...make(i),
    }));
  }
  return raws;
}

async function serial(url, token, count) {
  const raws = await signed(url, account(0), count, 80_000n, () => ({
    to: token, data: erc20.encodeFunctionData('transfer', [ethers.Wallet.createRandom().address, 1n]),
  }));
  let hash;
  const started = performance.now();
  for (const raw of raws) {
    hash = await rpc(url, 'eth_sendRawTransaction', [raw]);
    let receipt = await rpc(url, 'eth_getTransactionReceipt', [hash]);
    while (receipt === null) receipt = await rpc(url, 'eth_getTransactionReceipt', [hash]);
    if (receipt.status !== '0x1') throw new Error(`transfer ${hash} failed`);
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`${(count / seconds).toFixed(1)} ${hash}`);
}

async function burst(url, count) {
  const raws = await signed(url, account(1), count, 21_000n, () => ({
    to: ethers.Wallet.createRandom().address, value: 1n,
  }));
  await rpc(url, 'evm_setAutomine', [false]);
  const started = performance.now();
  let next = 0;
  const sender = async () => {
    while (next < raws.length) await rpc(url, 'eth_sendRawTransaction', [raws[next++]]);
  };
  await Promise.all(Array.from({ length: 32 }, sender));
  const sent = performance.now();
  await rpc(url, 'evm_mine', []);
  const mined = performance.now();
  await rpc(url, 'evm_setAutomine', [true]);
  const block = await rpc(url, 'eth_getBlockByNumber', ['latest', false]);
  if (block.transactions.length !== count) {
    throw new Error(`the mined block holds ${block.transactions.length} transactions, not ${count}`);
  }
  console.log(`${(sent - started).toFixed(0)} ${(mined - sent).toFixed(0)} ${(mined - started).toFixed(0)}`);
}

const [mode, url, ...rest] = process.argv.slice(2);
const run = mode === 'serial' ? serial(url, rest[0], Number(rest[1])) : burst(url, Number(rest[0]));
run.catch((e) => { console.error(e); process.exit(1); });
