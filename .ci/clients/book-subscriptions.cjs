'use strict';
// The book's WebSocket examples run as written (docs/src/subscriptions.md):
// each ```js block becomes a program of its own, its URL
// ws://127.0.0.1:8080/eth/YOUR_API_KEY pointed at the shared server, run
// while blocks are mined (an ERC20 transfer in each, for the Transfer
// example); each must print and stop by itself.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { RPC_URL, rawResult, runner, assert } = require('./lib.cjs');

const PAGE = path.join(__dirname, '..', '..', 'docs', 'src', 'subscriptions.md');
const WRITTEN = 'ws://127.0.0.1:8080/eth/YOUR_API_KEY';
const { check, done, fatal } = runner('book-subscriptions');

function examples() {
  const text = fs.readFileSync(PAGE, 'utf8');
  return [...text.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
}

/** Runs a program until it exits; its output. */
function runProgram(file, ms) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    const timer = setTimeout(() => { child.kill(); reject(new Error(`did not stop within ${ms / 1000} s: ${out}`)); }, ms);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out.trim());
      else reject(new Error(`exit ${code}: ${out}`));
    });
  });
}

/** A token transfer from dev account #7 in a block of its own, over and over, until stopped. */
function keepMining(token, from) {
  let on = true;
  const transfer = '0xa9059cbb' + '0'.repeat(60) + 'dead' + '1'.padStart(64, '0');
  (async () => {
    while (on) {
      await rawResult('eth_sendTransaction', [{ from, to: token, data: transfer }]).catch(() => {});
      await new Promise((r) => setTimeout(r, 400));
    }
  })();
  return () => { on = false; };
}

(async () => {
  const blocks = examples();
  assert(blocks.length >= 3, `${PAGE}: ${blocks.length} js examples`);
  const from = (await rawResult('eth_accounts'))[7];
  const token = await deployToken(from);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'book-ws-'));
  const stop = keepMining(token, from);
  try {
    for (const [index, code] of blocks.entries()) {
      assert(code.includes(WRITTEN), `example ${index + 1} names ${WRITTEN}`);
      const file = path.join(dir, `example-${index + 1}.cjs`);
      fs.writeFileSync(file, code.split(WRITTEN).join(RPC_URL.replace(/^http:/, 'ws:')));
      const firstLine = code.split('\n').find((line) => line.includes('require(')) || '';
      await check(`example ${index + 1} (${firstLine.trim()})`, async () => {
        const out = await runProgram(file, 30000);
        assert(out.length > 0, 'it printed nothing');
        return out.split('\n')[0];
      });
    }
  } finally {
    stop();
  }
})().catch(fatal).finally(done);

/** OpenZeppelin's ERC20, deployed and minted by `from` through the node's key. */
async function deployToken(from) {
  const OZ = path.dirname(require.resolve('@openzeppelin/contracts/package.json'));
  const ERC20 = require(path.join(OZ, 'build', 'contracts', 'ERC20PresetMinterPauser.json'));
  const { encodeDeployData, encodeFunctionData } = require('viem');
  const data = encodeDeployData({ abi: ERC20.abi, bytecode: ERC20.bytecode, args: ['Book Token', 'BOOK'] });
  const deployed = await rawResult('eth_sendTransaction', [{ from, data }]);
  const token = (await rawResult('eth_getTransactionReceipt', [deployed])).contractAddress;
  const mint = encodeFunctionData({ abi: ERC20.abi, functionName: 'mint', args: [from, 10n ** 24n] });
  await rawResult('eth_sendTransaction', [{ from, to: token, data: mint }]);
  return token;
}
