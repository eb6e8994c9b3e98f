#!/usr/bin/env node
// The devnet traced beside Anvil: the same contracts deployed on both by
// the same fresh key (so at the same addresses), the same transactions sent
// to both, and for each transaction the traces compared.
//
//   differential.cjs --anvil ANVIL_URL --devnet GATEWAY_URL
//
// Anvil must run with --hardfork prague (the devnet's fork) and
// --steps-tracing (without it, its struct logs are empty).
//
// The transactions: WETH deployed, a deposit and a withdrawal; a splitter
// that forwards the value it is sent to two addresses; a forwarder whose
// inner call reverts while it goes on, and one whose call reverts it too; a
// CREATE2 factory making a contract with value; that contract destroying
// itself. For each, on both nodes:
//   - callTracer (with logs): equal, gas and gasUsed aside; those are held
//     to relations (a frame uses no more than it was given; the top frame's
//     gasUsed is the receipt's) and then compared too, equal below the top
//     frame (both run revm at the same fork, --hardfork prague). The top
//     frame's gas differs by design: geth's callTracer, which the devnet
//     follows, gives the transaction's gas limit, Anvil the gas left after
//     the intrinsic cost, so that one is compared by relation only;
//   - prestateTracer with diffMode: equal, without the block's miner, which
//     differs between the two (its fee income differs with it);
//   - trace_transaction: equal, without what places it in its own chain
//     (block hash and number, transaction hash and position);
//   - the struct logger: the same opcodes, in order, at the same depths and
//     program counters.
// Every transaction is legacy at one gas price, so that both charge the
// same fee and the sender's balance moves alike.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { Interface, Wallet, Transaction } = require('ethers');
const { Rpc, Tally, parseArgs, required } = require('./lib.cjs');

const TIMEOUT_MS = 60_000;
const GAS_PRICE = 10n ** 10n; // 10 gwei: above both nodes' base fee
const ETHER = 10n ** 18n;
const GAS_LIMIT = 3_000_000n;
/// A forwarder: calls the address in its call data's first 32 bytes with the
/// rest and all the value sent, and stops whether that call succeeded or not.
const FORWARDER_INIT = '0x601c600a5f39601c5ff336602011601a57602036038060205f375f5f825f345f355af1005b00';
/// The same, but reverting with the inner call's revert data when it fails.
const STRICT_FORWARDER_INIT =
  '0x6027600a5f3960275ff336602011602557602036038060205f375f5f825f345f355af16023573d5f5f3e3d5ffd5b005b00';
/// A splitter: sends half the value to the address in its call data's first
/// word and the rest to the address in its second.
const SPLITTER_INIT = '0x601e600a5f39601e5ff35f5f5f5f600234045f355af1505f5f5f5f600234043403602035' + '5af15000';
/// A factory: CREATE2 (salt 0) of its call data with the value sent; returns the address.
const FACTORY_INIT = '0x600f600a5f39600f5ff3365f5f375f365f34f55f5260205ff3';
/// Init code of a contract that, called, self-destructs to its caller.
const SELF_DESTRUCT_INIT = '0x6002600a5f3960025ff333ff';

async function main() {
  const args = parseArgs(process.argv.slice(2));
  required(args, 'anvil', 'devnet');
  const nodes = { anvil: new Rpc(args.anvil, { timeoutMs: TIMEOUT_MS }), devnet: new Rpc(args.devnet, { timeoutMs: TIMEOUT_MS }) };
  const tally = new Tally();
  const key = Wallet.createRandom();
  const chains = {};
  for (const [name, rpc] of Object.entries(nodes)) {
    chains[name] = { rpc, chainId: BigInt(await rpc.call('eth_chainId')), nonce: 0 };
    const [dev] = await rpc.call('eth_accounts');
    await mined(rpc, await rpc.call('eth_sendTransaction', [{ from: dev, to: key.address, value: hex(100n * ETHER) }]));
  }
  const weth = artifact('WrappedNative');
  const wethIface = new Interface(weth.abi);
  const pad = (address) => address.slice(2).toLowerCase().padStart(64, '0');
  const [a, b] = [Wallet.createRandom().address, Wallet.createRandom().address];

  // Deployments first: the same key and nonces give the same addresses on both.
  const deployments = {
    weth: weth.bytecode + wethIface.encodeDeploy(['Wrapped Ether', 'WETH']).slice(2),
    forwarder: FORWARDER_INIT,
    strict: STRICT_FORWARDER_INIT,
    splitter: SPLITTER_INIT,
    factory: FACTORY_INIT,
  };
  const at = {};
  const cases = [];
  for (const [role, data] of Object.entries(deployments)) {
    const sent = await sendBoth(chains, key, { data });
    tally.eq(role, 'the same address on both', sent.anvil.receipt.contractAddress, sent.devnet.receipt.contractAddress);
    at[role] = sent.devnet.receipt.contractAddress;
    cases.push([`deploy ${role}`, sent]);
  }
  const withdrawTooMuch = wethIface.encodeFunctionData('withdraw', [1000n * ETHER]).slice(2);
  const steps = [
    ['WETH deposit', { to: at.weth, value: ETHER, data: wethIface.encodeFunctionData('deposit', []) }],
    ['WETH withdraw', { to: at.weth, data: wethIface.encodeFunctionData('withdraw', [ETHER / 4n]) }],
    ['value split between two addresses', { to: at.splitter, value: 1001n, data: '0x' + pad(a) + pad(b) }],
    ['an inner revert the caller survives', { to: at.forwarder, data: '0x' + pad(at.weth) + withdrawTooMuch }],
    ['an inner revert that reverts the caller', { to: at.strict, data: '0x' + pad(at.weth) + withdrawTooMuch }],
    ['a CREATE2 with value', { to: at.factory, value: 7n, data: SELF_DESTRUCT_INIT }],
  ];
  for (const [name, tx] of steps) cases.push([name, await sendBoth(chains, key, tx)]);
  // The child's address, from what the factory returned (the same on both:
  // CREATE2 of the same code by the same factory).
  const created = await nodes.devnet.call('debug_traceTransaction', [cases.at(-1)[1].devnet.hash, { tracer: 'callTracer' }]);
  const child = '0x' + created.output.slice(-40);
  tally.ok(/^0x[0-9a-f]{40}$/.test(child) && !/^0x0{40}$/.test(child), 'CREATE2', 'the child', 'an address', child);
  cases.push(['a self-destruct', await sendBoth(chains, key, { to: child })]);

  for (const [name, sent] of cases) await compare(tally, name, nodes, sent);
  console.log(`differential: ${cases.length} transactions traced on Anvil and on the devnet`);
  console.log(`differential: ${tally.passed} passed, ${tally.failed} failed`);
  process.exit(tally.failed === 0 ? 0 : 1);
}

/// Signs `tx` for each chain at the key's next nonce, sends it, and answers
/// each chain's hash and receipt.
async function sendBoth(chains, key, tx) {
  const out = {};
  for (const [name, chain] of Object.entries(chains)) {
    const signed = await key.signTransaction(
      Transaction.from({
        type: 0,
        chainId: chain.chainId,
        nonce: chain.nonce++,
        gasPrice: GAS_PRICE,
        gasLimit: GAS_LIMIT,
        to: tx.to ?? null,
        value: tx.value ?? 0n,
        data: tx.data ?? '0x',
      }),
    );
    const hash = await chain.rpc.call('eth_sendRawTransaction', [signed]);
    out[name] = { hash, limit: GAS_LIMIT, receipt: await mined(chain.rpc, hash) };
  }
  return out;
}

async function mined(rpc, hash) {
  for (let tries = 0; tries < 200; tries++) {
    const receipt = await rpc.call('eth_getTransactionReceipt', [hash]);
    if (receipt) return receipt;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no receipt for ${hash}`);
}

async function compare(tally, name, nodes, sent) {
  const traced = async (method, params) => ({
    anvil: await nodes.anvil.call(method, [sent.anvil.hash, ...params]),
    devnet: await nodes.devnet.call(method, [sent.devnet.hash, ...params]),
  });
  tally.eq(name, 'receipt status', sent.anvil.receipt.status, sent.devnet.receipt.status);
  tally.eq(name, 'receipt gasUsed', BigInt(sent.anvil.receipt.gasUsed), BigInt(sent.devnet.receipt.gasUsed));

  const calls = await traced('debug_traceTransaction', [{ tracer: 'callTracer', tracerConfig: { withLog: true } }]);
  for (const side of ['anvil', 'devnet']) {
    tally.eq(name, `${side}: callTracer gasUsed is the receipt's`, BigInt(sent[side].receipt.gasUsed), BigInt(calls[side].gasUsed));
    tally.ok(withinGas(calls[side]), name, `${side}: every frame uses no more gas than it was given`, 'true', 'false');
  }
  tally.eq(name, 'callTracer without gas', json(withoutGas(calls.anvil)), json(withoutGas(calls.devnet)));
  // The top frame's gas: geth's callTracer (and the devnet) gives the
  // transaction's gas limit, Anvil what is left of it after the intrinsic
  // cost. Below it, both give what each call was given.
  const limit = BigInt(sent.devnet.limit);
  tally.eq(name, 'callTracer top gas is the gas limit', limit, BigInt(calls.devnet.gas));
  tally.ok(BigInt(calls.anvil.gas) < limit, name, "Anvil's top gas, less the intrinsic cost", `below ${limit}`, calls.anvil.gas);
  const inner = (frame) => (frame.calls ?? []).map(gasOf);
  tally.eq(name, 'callTracer gas below the top', json(inner(calls.anvil)), json(inner(calls.devnet)));
  tally.eq(name, 'callTracer top gasUsed', BigInt(calls.anvil.gasUsed), BigInt(calls.devnet.gasUsed));

  const diffs = await traced('debug_traceTransaction', [{ tracer: 'prestateTracer', tracerConfig: { diffMode: true } }]);
  const miners = {};
  for (const side of ['anvil', 'devnet']) {
    miners[side] = (await nodes[side].call('eth_getBlockByHash', [sent[side].receipt.blockHash, false])).miner.toLowerCase();
  }
  tally.eq(name, 'prestateTracer diffMode', json(withoutAccount(diffs.anvil, miners.anvil)), json(withoutAccount(diffs.devnet, miners.devnet)));

  const parity = await traced('trace_transaction', []);
  tally.eq(name, 'trace_transaction', json(parity.anvil.map(unplaced)), json(parity.devnet.map(unplaced)));

  const steps = await traced('debug_traceTransaction', [{ disableStack: true, disableStorage: true }]);
  const opcodes = (trace) => trace.structLogs.map((log) => `${log.depth}:${log.pc}:${log.op}`);
  const [ours, theirs] = [opcodes(steps.devnet), opcodes(steps.anvil)];
  tally.ok(ours.length > 0, name, 'struct log steps', 'some', ours.length);
  tally.eq(name, `struct logger opcodes (${ours.length} steps)`, theirs.join(' '), ours.join(' '));
}

/// Each frame's gasUsed is at most its gas.
function withinGas(frame) {
  return BigInt(frame.gasUsed) <= BigInt(frame.gas) && (frame.calls ?? []).every(withinGas);
}

function withoutGas(frame) {
  const { gas, gasUsed, calls, ...rest } = frame;
  void gas;
  void gasUsed;
  return { ...rest, calls: (calls ?? []).map(withoutGas) };
}

function gasOf(frame) {
  return { gas: BigInt(frame.gas), gasUsed: BigInt(frame.gasUsed), calls: (frame.calls ?? []).map(gasOf) };
}

function withoutAccount(diff, account) {
  const drop = (side) => Object.fromEntries(Object.entries(side ?? {}).filter(([address]) => address.toLowerCase() !== account));
  return { pre: drop(diff.pre), post: drop(diff.post) };
}

function unplaced(trace) {
  const { blockHash, blockNumber, transactionHash, transactionPosition, ...rest } = trace;
  void blockHash;
  void blockNumber;
  void transactionHash;
  void transactionPosition;
  return rest;
}

/// JSON with object keys sorted and addresses in lower case, so that two
/// nodes' spellings of the same answer compare equal.
function json(value) {
  const canonical = (v) => {
    if (typeof v === 'bigint') return v.toString();
    if (Array.isArray(v)) return v.map(canonical);
    if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k.toLowerCase(), canonical(v[k])]));
    if (typeof v === 'string' && /^0x[0-9a-fA-F]*$/.test(v)) return v.toLowerCase();
    return v;
  };
  return JSON.stringify(canonical(value));
}

/// A contract artifact of w3api-contracts (compiled by `cargo xtask contracts`).
function artifact(name) {
  const file = path.join(__dirname, '..', '..', 'crates', 'w3api-contracts', 'artifacts', `${name}.json`);
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

function hex(n) {
  return '0x' + BigInt(n).toString(16);
}

main().catch((error) => {
  console.log(`FAIL differential: ${error.shortMessage ?? error.message}`);
  if (process.env.W3API_DEBUG) console.error(error.stack);
  console.log('differential: 0 passed, 1 failed');
  process.exit(1);
});
