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
// withdrawals do).
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
  for (let number = 1; number <= last; number++) {
    const block = await node.call('eth_getBlockByNumber', ['0x' + number.toString(16), true]);
    const listed = await rest(`/api/v2.2/block/${number}?chain=eth&include=internal_transactions`);
    for (const [index, tx] of block.transactions.entries()) {
      const where = `block ${number} tx ${tx.hash}`;
      const tree = await node.call('debug_traceTransaction', [tx.hash, { tracer: 'callTracer' }]);
      const expected = flattened(tree);
      const answer = await rest(`/api/v2.2/transaction/${tx.hash}?chain=eth&include=internal_transactions`);
      const got = answer.internal_transactions.map((call) => fields(call));
      tally.eq(where, 'internal_transactions', JSON.stringify(expected), JSON.stringify(got));
      tally.eq(where, 'getBlock internal_transactions', JSON.stringify(answer.internal_transactions), JSON.stringify(listed.transactions[index]?.internal_transactions));
      inner += expected.length;
      moved += expected.filter((call) => call.value !== '0' && call.type === 'CALL').length;
      if (nodeHasOts) await compareOts(node, gateway, tally, tx, where);
    }
  }
  tally.ok(moved > 0, 'chain', 'inner calls that moved ether', 'at least one', `${moved} of ${inner} inner calls`);
  console.log(`internal: ${inner} inner calls in blocks 1 to ${last}${nodeHasOts ? ', ots_ compared with the node' : ''}`);
  console.log(`internal: ${tally.passed} passed, ${tally.failed} failed`);
  process.exit(tally.failed === 0 ? 0 : 1);
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
