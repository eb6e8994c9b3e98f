'use strict';
// Read your writes: a token transfer, signed here and sent with
// eth_sendRawTransaction, then the recipient's wallet tokens asked for
// until they show it; the time from sending to that answer, for COUNT
// transfers one after another (each to a new recipient). The baseline is
// the same two round trips to the same server asking what needs no work
// (eth_chainId, then the wallet tokens of a wallet with nothing), measured
// in the same run. Prints "p50 p99 max baseline_p50 baseline_p99" in ms.
// With READ_URL, the wallet tokens (and the baseline) are asked of that
// server instead: a replica other than the one written to.
//   node read-your-writes.cjs URL KEY TOKEN COUNT [READ_URL]
const { ethers } = require('ethers');

const [url, key, token, countText, readUrlArg] = process.argv.slice(2);
const readUrl = readUrlArg || url;
const count = Number(countText);
const rpcUrl = `${url}/eth/${key}`;
const MNEMONIC = 'test test test test test test test test test test test junk';
const sender = ethers.HDNodeWallet.fromPhrase(MNEMONIC, undefined, "m/44'/60'/0'/0/0");
const erc20 = new ethers.Interface(['function transfer(address to, uint256 amount) returns (bool)']);

let id = 0;
async function rpc(method, params, at = rpcUrl) {
  const res = await fetch(at, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
  });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

async function held(wallet) {
  const res = await fetch(`${readUrl}/api/v2.2/wallets/${wallet}/tokens?chain=eth`, { headers: { 'X-API-Key': key } });
  if (res.status !== 200) throw new Error(`wallet tokens: HTTP ${res.status}`);
  const row = (await res.json()).result.find((t) => t.token_address === token.toLowerCase());
  return row ? BigInt(row.balance) : 0n;
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

async function main() {
  let nonce = Number(BigInt(await rpc('eth_getTransactionCount', [sender.address, 'latest'])));
  const base = BigInt(await rpc('eth_gasPrice', []));
  const times = [];
  const baseline = [];
  for (let i = 0; i < count; i++) {
    const to = ethers.Wallet.createRandom().address;
    const raw = await sender.signTransaction({
      chainId: 1, type: 2, nonce: nonce++, to: token, gasLimit: 80000n,
      maxFeePerGas: base * 3n, maxPriorityFeePerGas: 1_000_000_000n,
      data: erc20.encodeFunctionData('transfer', [to, 1n + BigInt(i)]),
    });
    const started = performance.now();
    await rpc('eth_sendRawTransaction', [raw]);
    while ((await held(to)) !== 1n + BigInt(i)) { /* asked again until it shows */ }
    times.push(performance.now() - started);
    const idle = ethers.Wallet.createRandom().address;
    const baseStarted = performance.now();
    await rpc('eth_chainId', [], `${readUrl}/eth/${key}`);
    await held(idle);
    baseline.push(performance.now() - baseStarted);
  }
  times.sort((a, b) => a - b);
  baseline.sort((a, b) => a - b);
  const f = (v) => v.toFixed(2);
  console.log([percentile(times, 0.5), percentile(times, 0.99), times[times.length - 1],
    percentile(baseline, 0.5), percentile(baseline, 0.99)].map(f).join(' '));
}

main().catch((e) => { console.error(e); process.exit(1); });
