#!/usr/bin/env node
// A dApp with the gateway as its only RPC URL: ethers 6 deploys an
// OpenZeppelin ERC20 through it, reads it with eth_call, estimates and sends
// a transfer, reads the receipt and its event, and finds the transfer in the
// next wallet answer at once. Then what the gateway passes on is compared
// with the node's own answers: a reverting eth_call's error (code, message,
// revert data), code and storage at a block, filters, and what the node's
// own accounts sign (eth_accounts, eth_sign, personal_sign,
// eth_signTypedData_v4, eth_sendTransaction).
//
//   dapp.cjs --rpc NODE_URL --api W3API_URL --key KEY
//
// The wallet is a fresh key, funded from the node's last unlocked account,
// so that nothing the dApp does touches the wallets the other checks compare.
'use strict';

const { ContractFactory, JsonRpcProvider, Wallet, parseUnits } = require('ethers');
const { Node, Rpc, Tally, artifact, parseArgs, requestJson, required } = require('./lib.cjs');

const TIMEOUT_MS = 30_000;

async function main() {
  const args = parseArgs(process.argv.slice(2));
  required(args, 'rpc', 'api', 'key');
  const api = args.api.replace(/\/+$/, '');
  const gatewayUrl = `${api}/eth/${args.key}`;
  const node = new Rpc(args.rpc, { timeoutMs: TIMEOUT_MS });
  const gateway = new Rpc(gatewayUrl, { timeoutMs: TIMEOUT_MS });
  const tally = new Tally();

  const chainId = Number(await gateway.call('eth_chainId'));
  tally.eq('chain', 'eth_chainId through the gateway', Number(await node.call('eth_chainId')), chainId);
  // ethers polls for receipts (a short interval keeps the run quick), and
  // keeps no cached answers, so that each transaction reads its nonce afresh.
  const provider = new JsonRpcProvider(gatewayUrl, chainId, {
    staticNetwork: true,
    pollingInterval: 100,
    batchMaxCount: 1,
    cacheTimeout: -1,
  });
  const wallet = Wallet.createRandom().connect(provider);
  const funder = new Node(args.rpc, { timeoutMs: TIMEOUT_MS });
  const accounts = await funder.accounts();
  await funder.send({ from: accounts[accounts.length - 1], to: wallet.address, value: 10n ** 18n });
  const recipient = Wallet.createRandom().address.toLowerCase();

  // Deploy and mint, all through the gateway.
  const { abi, bytecode } = artifact('ERC20PresetMinterPauser');
  const token = await new ContractFactory(abi, bytecode, wallet).deploy('Gateway Token', 'GWT');
  await token.waitForDeployment();
  const address = (await token.getAddress()).toLowerCase();
  tally.ok(/^0x[0-9a-f]{40}$/.test(address), 'deploy', 'contract address', 'an address', address);
  await (await token.mint(wallet.address, parseUnits('1000', 18))).wait();

  // Read it with eth_call.
  tally.eq('eth_call', 'name()', 'Gateway Token', await token.name());
  tally.eq('eth_call', 'balanceOf(wallet)', parseUnits('1000', 18).toString(), (await token.balanceOf(wallet.address)).toString());

  // Estimate, send, and read the receipt and its event.
  const amount = parseUnits('250', 18);
  const gas = await token.transfer.estimateGas(recipient, amount);
  tally.ok(gas > 21000n && gas < 200000n, 'transfer', 'estimated gas', 'between 21,000 and 200,000', gas.toString());
  const receipt = await (await token.transfer(recipient, amount)).wait();
  tally.eq('transfer', 'receipt status', 1, receipt.status);
  const event = receipt.logs.map((log) => token.interface.parseLog(log)).find((parsed) => parsed?.name === 'Transfer');
  tally.same('transfer', 'event from', wallet.address, event?.args[0]);
  tally.same('transfer', 'event to', recipient, event?.args[1]);
  tally.eq('transfer', 'event value', amount.toString(), event?.args[2]?.toString());

  // A trace is the node's, passed on as the node gave it.
  const traced = [receipt.hash, {}];
  const [tracedVia, tracedDirect] = await Promise.all([
    raw(gatewayUrl, 'debug_traceTransaction', traced),
    raw(args.rpc, 'debug_traceTransaction', traced),
  ]);
  tally.ok(Array.isArray(tracedDirect.result?.structLogs), 'trace', 'debug_traceTransaction on the node', 'a struct log', JSON.stringify(tracedDirect.error));
  tally.eq('trace', 'debug_traceTransaction through the gateway', canonical(tracedDirect.result ?? tracedDirect.error),
    canonical(tracedVia.result ?? tracedVia.error));

  // At once, with no pause: the next wallet answer shows the transfer.
  for (const [who, expected] of [
    [recipient, amount],
    [wallet.address.toLowerCase(), parseUnits('750', 18)],
  ]) {
    const answer = await requestJson(`${api}/api/v2.2/wallets/${who}/tokens?chain=eth`, {
      headers: { 'x-api-key': args.key },
      timeoutMs: TIMEOUT_MS,
    });
    const held = (answer.json?.result ?? []).find((t) => t.token_address?.toLowerCase() === address);
    tally.eq('wallet tokens', `GWT balance of ${who}`, expected.toString(), held?.balance);
    tally.eq('wallet tokens', `GWT name for ${who}`, 'Gateway Token', held?.name);
  }

  // A reverting call: the node's error reaches the client unchanged.
  const data = token.interface.encodeFunctionData('transfer', [recipient, parseUnits('1000000', 18)]);
  const call = [{ from: wallet.address, to: address, data }, 'latest'];
  const [viaGateway, direct] = await Promise.all([raw(gatewayUrl, 'eth_call', call), raw(args.rpc, 'eth_call', call)]);
  tally.ok(viaGateway.error !== undefined, 'revert', 'eth_call through the gateway', 'an error', viaGateway.result);
  tally.eq('revert', 'error code', direct.error?.code, viaGateway.error?.code);
  tally.eq('revert', 'error message', direct.error?.message, viaGateway.error?.message);
  tally.eq('revert', 'error data', JSON.stringify(direct.error?.data), JSON.stringify(viaGateway.error?.data));
  tally.ok(JSON.stringify(viaGateway.error?.data ?? '').includes('08c379a0'), 'revert', 'error data', 'the revert reason (Error(string))', viaGateway.error?.data);
  try {
    await token.transfer.staticCall(recipient, parseUnits('1000000', 18));
    tally.ok(false, 'revert', 'ethers staticCall', 'a revert', 'no error');
  } catch (error) {
    tally.ok(/exceeds balance/.test(error.reason ?? error.shortMessage ?? error.message), 'revert', 'ethers revert reason', 'ERC20: transfer amount exceeds balance', error.reason ?? error.shortMessage);
  }

  // State at a block: the gateway's answer is the node's.
  const block = Number(receipt.blockNumber);
  const at = '0x' + block.toString(16);
  tally.eq('state', 'eth_getCode', await node.call('eth_getCode', [address, at]), await gateway.call('eth_getCode', [address, at]));
  // Compared as numbers: Ganache gives the word without its leading zeros
  // (`0x` for zero), the gateway as 32 bytes.
  const word = async (rpc) => {
    const text = await rpc.call('eth_getStorageAt', [address, '0x2', at]);
    return BigInt(text === '0x' ? 0 : text).toString();
  };
  tally.eq('state', 'eth_getStorageAt slot 2', await word(node), await word(gateway));
  tally.eq('state', 'eth_getStorageAt is a 32-byte word', 66, (await gateway.call('eth_getStorageAt', [address, '0x2', at])).length);
  // Blocks simulated on the node: its own answer through the gateway (Anvil's), or
  // MethodNotSupported from a node without eth_simulateV1 (Hardhat, Ganache).
  const sorted = (value) => JSON.stringify(value, (_, v) => (v && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v));
  const calls = [{ from: wallet.address, to: address, data: token.interface.encodeFunctionData('name') }];
  const simulation = [{ blockStateCalls: [{ calls }], traceTransfers: true }, at];
  const [simulatedViaGateway, simulatedByNode] =
    await Promise.all([raw(gatewayUrl, 'eth_simulateV1', simulation), raw(args.rpc, 'eth_simulateV1', simulation)]);
  if (simulatedByNode.error) {
    tally.eq('simulate', 'eth_simulateV1 of a node without it: MethodNotSupported', -32004, simulatedViaGateway.error?.code);
  } else {
    tally.eq('simulate', 'eth_simulateV1 through the gateway = the node\'s', sorted(simulatedByNode.result),
      sorted(simulatedViaGateway.result));
  }
  const ahead = '0x' + (Number(await node.call('eth_blockNumber')) + 1000).toString(16);
  const beyond = await raw(gatewayUrl, 'eth_getCode', [address, ahead]);
  tally.eq('state', 'eth_getCode past the head: error code', -32602, beyond.error?.code);

  // Filters: kept on the node, polled through the gateway.
  // From the next block on: nodes differ on whether a filter from `latest`
  // includes the block that is latest when it is made.
  const next = '0x' + (Number(await gateway.call('eth_blockNumber')) + 1).toString(16);
  const logFilter = await gateway.call('eth_newFilter', [{ address, fromBlock: next }]).catch(async (error) => {
    // Anvil refuses a filter from a block it has not mined yet: from an
    // empty block mined for it, once the gateway has it, instead.
    if (error.code !== -32602) throw error;
    await node.call('evm_mine', []);
    const empty = Number(await node.call('eth_blockNumber'));
    while (Number(await gateway.call('eth_blockNumber')) < empty) await new Promise((r) => setTimeout(r, 50));
    return gateway.call('eth_newFilter', [{ address, fromBlock: '0x' + empty.toString(16) }]);
  });
  const blockFilter = await gateway.call('eth_newBlockFilter', []);
  const second = await (await token.transfer(recipient, 1n)).wait();
  const logs = await gateway.call('eth_getFilterChanges', [logFilter]);
  tally.eq('filters', 'logs since the filter', 1, logs.length);
  tally.eq('filters', 'the log is the transfer', second.hash, logs[0]?.transactionHash);
  const blocks = await gateway.call('eth_getFilterChanges', [blockFilter]);
  tally.ok(blocks.includes(second.blockHash), 'filters', 'new block hashes', `to include ${second.blockHash}`, blocks);
  // The filter lives on the node: asked directly, it answers the same
  // (nodes differ on when a filter's `latest` is read, so no count is fixed).
  tally.eq(
    'filters',
    'eth_getFilterLogs',
    canonical(await node.call('eth_getFilterLogs', [logFilter])),
    canonical(await gateway.call('eth_getFilterLogs', [logFilter])),
  );
  tally.eq('filters', 'eth_uninstallFilter', true, await gateway.call('eth_uninstallFilter', [logFilter]));
  tally.eq('filters', 'eth_uninstallFilter again', false, await gateway.call('eth_uninstallFilter', [logFilter]));
  await gateway.call('eth_uninstallFilter', [blockFilter]);

  // The node's own accounts sign, through the gateway: the same accounts,
  // and signatures equal to the node's own.
  const signers = await gateway.call('eth_accounts', []);
  tally.eq('accounts', 'eth_accounts', canonical(accounts), canonical(signers.map((a) => a.toLowerCase())));
  const message = '0x68656c6c6f';
  // personal_sign is eth_sign's signature with the parameters swapped (the
  // gateway passes it on as eth_sign, which every node has; Ganache has no personal_sign).
  tally.eq('accounts', 'personal_sign', await node.call('eth_sign', [signers[0], message]),
    await gateway.call('personal_sign', [message, signers[0]]));
  tally.eq('accounts', 'eth_sign', await node.call('eth_sign', [signers[0], message]),
    await gateway.call('eth_sign', [signers[0], message]));
  const typed = {
    types: {
      EIP712Domain: [{ name: 'name', type: 'string' }, { name: 'chainId', type: 'uint256' }],
      Mail: [{ name: 'contents', type: 'string' }],
    },
    primaryType: 'Mail',
    domain: { name: 'w3api', chainId },
    message: { contents: 'hello' },
  };
  tally.eq('accounts', 'eth_signTypedData_v4', await node.call('eth_signTypedData_v4', [signers[0], typed]),
    await gateway.call('eth_signTypedData_v4', [signers[0], typed]));
  const sent = await gateway.call('eth_sendTransaction', [{ from: signers[0], to: recipient, value: '0x1' }]);
  let mined = null;
  for (let tries = 0; tries < 100 && !mined; tries++) {
    mined = await gateway.call('eth_getTransactionReceipt', [sent]);
    if (!mined) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  tally.eq('accounts', 'eth_sendTransaction mined', '0x1', mined?.status);

  provider.destroy();
  console.log(`dapp: ${tally.passed} passed, ${tally.failed} failed`);
  process.exit(tally.failed ? 1 : 0);
}

/// JSON with every object's keys in order, to compare answers whose
/// fields come in another order.
function canonical(value) {
  return JSON.stringify(value, (_, v) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );
}

/// One call; answers the whole JSON-RPC response, error included.
async function raw(url, method, params) {
  const { json } = await requestJson(url, { method: 'POST', body: { jsonrpc: '2.0', id: 1, method, params }, timeoutMs: TIMEOUT_MS });
  return json;
}

main().catch((error) => {
  console.log(`FAIL dapp: ${error.shortMessage ?? error.message}`);
  if (process.env.W3API_DEBUG) console.error(error.stack);
  console.log('dapp: 0 passed, 1 failed');
  process.exit(1);
});
