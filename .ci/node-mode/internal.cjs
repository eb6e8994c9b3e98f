#!/usr/bin/env node
// Internal transactions and Otterscan's methods in node mode, on a node that
// traces calls (Anvil): for every transaction of the chain (or of its first
// N blocks), getTransaction with include=internal_transactions lists the
// calls the node's own callTracer shows inside it, field by field, and
// getBlock with them agrees. Where the node has
// an ots_ namespace of its own, w3api's ots_getInternalOperations,
// ots_getTransactionError, ots_getTransactionBySenderAndNonce and
// ots_getContractCreator answer as the node's do. At least one transaction
// must have made an inner call that moved ether (the chain's WETH
// withdrawals do). Then every wallet of those blocks (an account without
// code that mined none of them) has a native balance at the last block
// that adds up from its getWalletHistory alone: its genesis balance, plus
// what its native_transfers brought in, minus what they took out and the
// fees of what it sent; and the value paid inside transactions is among
// those transfers.
//
//   internal.cjs --rpc NODE_URL --api W3API_URL --key KEY [--blocks N]
'use strict';

const { Rpc, Tally, parseArgs, requestJson, required } = require('./lib.cjs');

const TIMEOUT_MS = 60_000;

async function main() {
  const args = parseArgs(process.argv.slice(2));
  required(args, 'rpc', 'api', 'key');
  const api = args.api.replace(/\/+$/, '');
  const node = new Rpc(args.rpc, { timeoutMs: TIMEOUT_MS });
  const gateway = new Rpc(`${api}/eth/${args.key}`, { timeoutMs: TIMEOUT_MS });
  const tally = new Tally();
  const rest = async (path) => {
    const { status, json, text } = await requestJson(`${api}${path}`, { headers: { 'x-api-key': args.key }, timeoutMs: TIMEOUT_MS });
    if (status !== 200) throw new Error(`GET ${path}: ${status} ${text.slice(0, 300)}`);
    return json;
  };
  const nodeHasOts = await node.call('ots_getApiLevel').then(() => true, () => false);
  const head = Number(await node.call('eth_blockNumber'));
  const last = args.blocks === undefined ? head : Math.min(head, Number(args.blocks));
  let inner = 0;
  let moved = 0;
  const parties = new Set();
  const miners = new Set();
  for (let number = 1; number <= last; number++) {
    const block = await node.call('eth_getBlockByNumber', ['0x' + number.toString(16), true]);
    const listed = await rest(`/api/v2.2/block/${number}?chain=eth&include=internal_transactions`);
    miners.add(block.miner.toLowerCase());
    for (const [index, tx] of block.transactions.entries()) {
      const where = `block ${number} tx ${tx.hash}`;
      parties.add(tx.from.toLowerCase());
      if (tx.to) parties.add(tx.to.toLowerCase());
      const tree = await node.call('debug_traceTransaction', [tx.hash, { tracer: 'callTracer' }]);
      const expected = flattened(tree);
      const answer = await rest(`/api/v2.2/transaction/${tx.hash}?chain=eth&include=internal_transactions`);
      const got = answer.internal_transactions.map((call) => fields(call));
      tally.eq(where, 'internal_transactions', JSON.stringify(expected), JSON.stringify(got));
      tally.eq(where, 'getBlock internal_transactions', JSON.stringify(answer.internal_transactions), JSON.stringify(listed.transactions[index]?.internal_transactions));
      inner += expected.length;
      moved += expected.filter((call) => call.value !== '0' && call.type === 'CALL').length;
      for (const call of expected.filter((c) => c.value !== '0')) parties.add(call.to);
      if (nodeHasOts) await compareOts(node, gateway, tally, tx, where);
    }
  }
  tally.ok(moved > 0, 'chain', 'inner calls that moved ether', 'at least one', `${moved} of ${inner} inner calls`);
  let wallets = 0;
  let paidInside = 0;
  for (const address of parties) {
    if (miners.has(address) || (await node.call('eth_getCode', [address, '0x' + last.toString(16)])) !== '0x') continue;
    const { sum, internal } = await historySum(rest, node, address, last);
    const balance = BigInt(await node.call('eth_getBalance', [address, '0x' + last.toString(16)]));
    tally.eq(`wallet ${address}`, `native balance at block ${last} from its history`, balance.toString(), sum.toString());
    wallets += 1;
    paidInside += internal;
  }
  tally.ok(paidInside > 0, 'chain', 'history native_transfers paid inside a transaction', 'at least one', `${paidInside}`);
  console.log(`internal: ${inner} inner calls in blocks 1 to ${last}${nodeHasOts ? ', ots_ compared with the node' : ''}`);
  console.log(`internal: ${wallets} wallets' balances add up from their histories (${paidInside} transfers paid inside)`);
  console.log(`internal: ${tally.passed} passed, ${tally.failed} failed`);
  process.exit(tally.failed === 0 ? 0 : 1);
}

/// The wallet's balance at block `last` as its history up to that block
/// tells it, and how many of its native transfers were paid inside.
async function historySum(rest, node, address, last) {
  let sum = BigInt(await node.call('eth_getBalance', [address, '0x0']));
  let internal = 0;
  let cursor = null;
  do {
    const page = await rest(`/api/v2.2/wallets/${address}/history?chain=eth&to_block=${last}&order=ASC&limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    for (const item of page.result) {
      for (const moved of item.native_transfers) {
        if (moved.to_address === address) sum += BigInt(moved.value);
        if (moved.from_address === address) sum -= BigInt(moved.value);
        if (moved.internal_transaction) internal += 1;
      }
      if (item.from_address === address) sum -= BigInt(item.receipt_gas_used) * BigInt(item.gas_price);
    }
    cursor = page.cursor;
  } while (cursor);
  return { sum, internal };
}

/// The node's answer and w3api's to the same ots_ calls about `tx`.
async function compareOts(node, gateway, tally, tx, where) {
  const same = async (method, params, adjust = (answer) => answer) => {
    const [expected, got] = await Promise.all([node.call(method, params), gateway.call(method, params)]);
    tally.eq(where, method, JSON.stringify(normalized(adjust(expected))), JSON.stringify(normalized(got)));
  };
  // Anvil lists the transaction's own creation, or its own call when it
  // sends ether, first; Erigon, whose method this is, lists what happened
  // inside the transaction only, and so does w3api.
  const ownFirst = tx.to === null || BigInt(tx.value) > 0n;
  await same('ots_getInternalOperations', [tx.hash], (ops) => (ownFirst ? ops.slice(1) : ops));
  await same('ots_getTransactionError', [tx.hash]);
  await same('ots_getTransactionBySenderAndNonce', [tx.from, Number(tx.nonce)]);
  if (tx.to === null) {
    const receipt = await node.call('eth_getTransactionReceipt', [tx.hash]);
    await same('ots_getContractCreator', [receipt.contractAddress]);
  }
}

/// Addresses in lower case, and quantities as numbers, however each writes them.
function normalized(value) {
  if (Array.isArray(value)) return value.map(normalized);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalized(v)]));
  if (typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value)) return value.toLowerCase();
  return value;
}

/// A callTracer tree's inner frames, depth first, as the Data API writes them.
function flattened(top) {
  const out = [];
  const walk = (frame) => {
    for (const call of frame.calls ?? []) {
      out.push({
        type: call.type,
        from: call.from.toLowerCase(),
        to: (call.to ?? '0x0000000000000000000000000000000000000000').toLowerCase(),
        value: BigInt(call.value ?? '0x0').toString(),
        gas: BigInt(call.gas).toString(),
        gas_used: BigInt(call.gasUsed).toString(),
        input: call.input,
        output: call.output ?? '0x',
        error: call.error ?? null,
      });
      walk(call);
    }
  };
  walk(top);
  return out;
}

/// The fields of one internal transaction the node's tracer also gives.
function fields(call) {
  return {
    type: call.type,
    from: call.from,
    to: call.to,
    value: call.value,
    gas: call.gas,
    gas_used: call.gas_used,
    input: call.input,
    output: call.output,
    error: call.error ?? null,
  };
}

main().catch((error) => {
  console.log(`FAIL internal: ${error.shortMessage ?? error.message}`);
  if (process.env.W3API_DEBUG) console.error(error.stack);
  console.log('internal: 0 passed, 1 failed');
  process.exit(1);
});
