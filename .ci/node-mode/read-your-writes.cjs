#!/usr/bin/env node
// Read your writes through node mode: a transaction's receipt, once the
// gateway shows it, comes with its effects in the very next wallet answer.
//
//   read-your-writes.cjs --rpc NODE_URL --api W3API_URL --key KEY --deployment FILE [--rounds N]
//
// The server under test polls the node rarely (the runner starts it with a
// long --poll-interval), so that only the gateway's catching up on demand
// can make this pass. Each round sends an ERC20 transfer of the deployment's
// stablecoin to an address nothing else touches, straight to the node, then
// at once, with no pause: eth_getTransactionReceipt through the gateway
// (answered, with the node's block hash), then the recipient's wallet
// tokens (the transfer's amount, at the receipt's block or later).
'use strict';

const { Interface, Wallet } = require('ethers');
const { Node, Rpc, Tally, parseArgs, readJson, requestJson, required, sleep } = require('./lib.cjs');

const ERC20 = new Interface([
  'function transfer(address,uint256) returns (bool)',
  'function balanceOf(address) view returns (uint256)',
]);
const TIMEOUT_MS = 30_000;

async function main() {
  const args = parseArgs(process.argv.slice(2));
  required(args, 'rpc', 'api', 'key', 'deployment');
  const dep = readJson(args.deployment);
  const node = new Node(args.rpc, { timeoutMs: TIMEOUT_MS });
  const gateway = new Rpc(`${args.api.replace(/\/+$/, '')}/eth/${args.key}`, { timeoutMs: TIMEOUT_MS });
  const tally = new Tally();
  const usd = dep.contracts.find((c) => c.role === 'stable');

  await atHead(node, gateway);
  const holders = dep.wallets.filter((w) => w.kind === 'account').map((w) => w.address);
  const balances = await node.views(holders.map((h) => [usd.address, 'balanceOf', [h], 'latest']), ERC20);
  const sender = holders.find((_, i) => balances[i] && balances[i][0] > 0n);
  if (!sender) throw new Error('no account of the deployment holds the stablecoin');

  const rounds = Number(args.rounds ?? 3);
  for (let round = 1; round <= rounds; round++) {
    const recipient = Wallet.createRandom().address.toLowerCase();
    const amount = 10n ** BigInt(usd.decimals) * BigInt(round);
    const sent = await node.tx(sender, usd.address, ERC20, 'transfer', [recipient, amount]);
    const where = `round ${round} (block ${Number(sent.blockNumber)})`;
    const started = Date.now();
    const receipt = await gateway.call('eth_getTransactionReceipt', [sent.transactionHash]);
    const waited = Date.now() - started;
    if (!tally.ok(receipt !== null, where, 'receipt through the gateway', 'the receipt', 'null')) continue;
    tally.eq(where, 'receipt blockHash', sent.blockHash, receipt.blockHash);
    tally.eq(where, 'receipt status', '0x1', receipt.status);
    const answer = await requestJson(
      `${args.api.replace(/\/+$/, '')}/api/v2.2/wallets/${recipient}/tokens?chain=eth`,
      { headers: { 'x-api-key': args.key }, timeoutMs: TIMEOUT_MS },
    );
    tally.eq(where, 'wallet tokens HTTP status', 200, answer.status);
    const held = (answer.json?.result ?? []).find((t) => t.token_address?.toLowerCase() === usd.address.toLowerCase());
    tally.eq(where, 'stablecoin balance in the next wallet answer', amount.toString(), held?.balance);
    tally.ok(BigInt(answer.json?.block_number ?? 0) >= BigInt(sent.blockNumber), where, 'answer block', `>= ${Number(sent.blockNumber)}`, answer.json?.block_number);
    console.log(`${where}: receipt through the gateway in ${waited} ms, then the wallet answer`);
  }
  console.log(`read-your-writes: ${tally.passed} passed, ${tally.failed} failed`);
  process.exit(tally.failed ? 1 : 0);
}

/// Waits (60 s at most) until the gateway's head is the node's.
async function atHead(node, gateway) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const [ours, theirs] = await Promise.all([gateway.call('eth_blockNumber').catch(() => null), node.head()]);
    if (ours !== null && Number(ours) === theirs) return;
    if (Date.now() > deadline) throw new Error(`the gateway did not reach the node's head ${theirs}: ${ours}`);
    await sleep(250);
  }
}

main().catch((error) => {
  console.log(`FAIL read-your-writes: ${error.message}`);
  console.log('read-your-writes: 0 passed, 1 failed');
  process.exit(1);
});
