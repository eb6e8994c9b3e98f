// Shared by deploy.cjs, check.cjs and bench-chain.cjs: command-line flags,
// a seeded random generator, JSON-RPC and HTTP with a timeout on every call,
// the contracts' build artifacts (from npm packages, and two small
// contracts of our own compiled with solc), and a few helpers for sending
// transactions to a Hardhat node whose accounts are unlocked.
//
// Packages resolve through NODE_PATH (.ci/node-mode.sh points it at
// target/ci/node-mode/node_modules).
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const { Interface, getAddress, AbiCoder, id: topicOf } = require('ethers');

// ---------------------------------------------------------------- flags

/// `--name value` pairs and bare `--flag`s into an object; `--a-b` becomes `aB`.
function parseArgs(argv, { flags = [] } = {}) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new Error(`unexpected argument ${arg}`);
    const name = arg.slice(2).replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    if (flags.includes(name)) {
      out[name] = true;
    } else {
      if (i + 1 >= argv.length) throw new Error(`${arg} needs a value`);
      out[name] = argv[++i];
    }
  }
  return out;
}

function required(args, ...names) {
  for (const name of names) {
    if (args[name] === undefined) throw new Error(`missing --${name.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())}`);
  }
}

// ---------------------------------------------------------------- randomness

/// xoshiro128** seeded from the SHA-256 of a text: the same seed text gives
/// the same sequence on every machine.
class Rng {
  constructor(seedText) {
    const digest = crypto.createHash('sha256').update(String(seedText)).digest();
    this.s = [0, 1, 2, 3].map((i) => digest.readUInt32LE(i * 4) >>> 0);
    if (this.s.every((w) => w === 0)) this.s[0] = 1;
  }

  /// The next 32 random bits, as an unsigned number.
  u32() {
    const s = this.s;
    const rotl = (x, k) => ((x << k) | (x >>> (32 - k))) >>> 0;
    const result = Math.imul(rotl(Math.imul(s[1], 5) >>> 0, 7), 9) >>> 0;
    const t = (s[1] << 9) >>> 0;
    s[2] = (s[2] ^ s[0]) >>> 0;
    s[3] = (s[3] ^ s[1]) >>> 0;
    s[1] = (s[1] ^ s[2]) >>> 0;
    s[0] = (s[0] ^ s[3]) >>> 0;
    s[2] = (s[2] ^ t) >>> 0;
    s[3] = rotl(s[3], 11);
    return result;
  }

  /// A float in [0, 1).
  float() {
    return (this.u32() * 2 ** 21 + (this.u32() >>> 11)) / 2 ** 53;
  }

  /// An integer in [0, n).
  int(n) {
    if (n <= 0) throw new Error('Rng.int of an empty range');
    return Math.floor(this.float() * n);
  }

  /// An integer in [lo, hi].
  between(lo, hi) {
    return lo + this.int(hi - lo + 1);
  }

  chance(p) {
    return this.float() < p;
  }

  pick(items) {
    return items[this.int(items.length)];
  }

  /// A BigInt in [lo, hi].
  bigBetween(lo, hi) {
    const span = BigInt(hi) - BigInt(lo) + 1n;
    if (span <= 0n) throw new Error('Rng.bigBetween of an empty range');
    let r = 0n;
    for (let i = 0; i < 8; i++) r = (r << 32n) | BigInt(this.u32());
    return BigInt(lo) + (r % span);
  }

  /// `amount` × a fraction drawn from [lo, hi] (in parts per million), at least 1.
  share(amount, loPpm, hiPpm) {
    const ppm = BigInt(this.between(loPpm, hiPpm));
    const part = (BigInt(amount) * ppm) / 1_000_000n;
    return part > 0n ? part : 1n;
  }

  /// A fresh address no key is known for.
  address() {
    const bytes = Buffer.alloc(20);
    for (let i = 0; i < 5; i++) bytes.writeUInt32LE(this.u32(), i * 4);
    return getAddress('0x' + bytes.toString('hex')).toLowerCase();
  }

  /// Weighted choice: `table` is [[weight, value], ...].
  weighted(table) {
    const total = table.reduce((sum, [w]) => sum + w, 0);
    let r = this.float() * total;
    for (const [w, value] of table) {
      if ((r -= w) < 0) return value;
    }
    return table[table.length - 1][1];
  }
}

// ---------------------------------------------------------------- network

// W3API_CHECK_TIMEOUT_MS: longer, for checks against a server that is slowed on purpose.
const DEFAULT_TIMEOUT_MS = Number(process.env.W3API_CHECK_TIMEOUT_MS || 30_000);

class RpcError extends Error {
  constructor(method, error) {
    super(`${method}: ${error.message ?? JSON.stringify(error)} (code ${error.code})`);
    this.code = error.code;
    this.data = error.data;
    this.rpcMessage = error.message;
  }
}

async function postJson(url, body, timeoutMs = DEFAULT_TIMEOUT_MS) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`POST ${url}: HTTP ${response.status}, not JSON: ${text.slice(0, 200)}`);
  }
  return { status: response.status, json };
}

/// GET with headers; answers `{status, json, text}` (json null when the body is not JSON).
async function getJson(url, headers = {}, timeoutMs = DEFAULT_TIMEOUT_MS) {
  return requestJson(url, { headers, timeoutMs });
}

/// Any method, with a JSON body when `body` is given; answers `{status, json, text}`.
async function requestJson(url, { method = 'GET', headers = {}, body, timeoutMs = DEFAULT_TIMEOUT_MS } = {}) {
  const sent = body === undefined ? headers : { ...headers, 'content-type': 'application/json' };
  const response = await fetch(url, {
    method,
    headers: sent,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: response.status, json, text };
}

/// JSON-RPC 2.0 over HTTP, one call or a batch, each request under a timeout.
class Rpc {
  constructor(url, { timeoutMs = DEFAULT_TIMEOUT_MS, batchSize = 200 } = {}) {
    this.url = url;
    this.timeoutMs = timeoutMs;
    this.batchSize = batchSize;
    this.nextId = 1;
  }

  async call(method, params = []) {
    const { json } = await postJson(this.url, { jsonrpc: '2.0', id: this.nextId++, method, params }, this.timeoutMs);
    if (json.error) throw new RpcError(method, json.error);
    return json.result;
  }

  /// Many calls: `[[method, params], ...]` → `[{result} | {error}, ...]` in
  /// the same order, sent in batches of `batchSize`.
  async batch(calls) {
    const out = new Array(calls.length);
    for (let start = 0; start < calls.length; start += this.batchSize) {
      const chunk = calls.slice(start, start + this.batchSize);
      const firstId = this.nextId;
      this.nextId += chunk.length;
      const body = chunk.map(([method, params], i) => ({ jsonrpc: '2.0', id: firstId + i, method, params }));
      const { json } = await postJson(this.url, body, this.timeoutMs);
      if (!Array.isArray(json)) throw new Error(`batch of ${chunk.length}: not an array: ${JSON.stringify(json).slice(0, 200)}`);
      for (const answer of json) {
        const index = answer.id - firstId;
        if (index < 0 || index >= chunk.length) throw new Error(`batch: unexpected id ${answer.id}`);
        out[start + index] = answer.error ? { error: answer.error } : { result: answer.result };
      }
      for (let i = 0; i < chunk.length; i++) {
        if (!out[start + i]) throw new Error(`batch: no answer to ${chunk[i][0]}`);
      }
    }
    return out;
  }
}

/// Runs `fn` over `items`, at most `limit` at a time, keeping the order.
async function pool(items, limit, fn) {
  const out = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  });
  await Promise.all(workers);
  return out;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const hex = (n) => '0x' + BigInt(n).toString(16);
/// The gas every transaction Node.send sends has, unless it names its own.
const SEND_GAS = 5_000_000n;

// ---------------------------------------------------------------- contracts

/// Our own contracts, written for these checks: an ERC20 with 6 decimals
/// (the presets all have 18), and a helper that moves one token from its
/// caller to many recipients in one transaction (the benchmark chain).
const OWN_SOURCE = `// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.26;

/// ERC20 with 6 decimals: the deployer mints, any holder burns its own.
contract SixDecimals {
    string public constant name = "Six Decimals";
    string public constant symbol = "SIX";
    uint8 public constant decimals = 6;
    uint256 public totalSupply;
    address public immutable minter;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor() {
        minter = msg.sender;
    }

    function mint(address to, uint256 value) external {
        require(msg.sender == minter, "only the minter mints");
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function burn(uint256 value) external {
        balanceOf[msg.sender] -= value;
        totalSupply -= value;
        emit Transfer(msg.sender, address(0), value);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        move(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            allowance[from][msg.sender] = allowed - value;
        }
        move(from, to, value);
        return true;
    }

    function move(address from, address to, uint256 value) private {
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}

interface TransferFrom {
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

/// Moves \`token\` from the caller (who approved this contract) to each
/// recipient: one Transfer event per recipient, all in one transaction.
contract Fanout {
    function send(address token, address[] calldata to, uint256[] calldata amounts) external {
        require(to.length == amounts.length, "lengths differ");
        for (uint256 i = 0; i < to.length; i++) {
            require(TransferFrom(token).transferFrom(msg.sender, to[i], amounts[i]), "transfer failed");
        }
    }
}
`;

let ownCompiled = null;

/// Compiles OWN_SOURCE once per process with solc-js (npm `solc`).
function compileOwn() {
  if (ownCompiled) return ownCompiled;
  const solc = require('solc');
  const input = {
    language: 'Solidity',
    sources: { 'Own.sol': { content: OWN_SOURCE } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'paris',
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (output.errors || []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error('solc: ' + errors.map((e) => e.formattedMessage).join('\n'));
  ownCompiled = {};
  for (const [name, contract] of Object.entries(output.contracts['Own.sol'])) {
    ownCompiled[name] = { abi: contract.abi, bytecode: '0x' + contract.evm.bytecode.object };
  }
  return ownCompiled;
}

const ARTIFACT_PATHS = {
  WETH9: '@uniswap/v2-periphery/build/WETH9.json',
  UniswapV2Factory: '@uniswap/v2-core/build/UniswapV2Factory.json',
  UniswapV2Pair: '@uniswap/v2-core/build/UniswapV2Pair.json',
  ERC20PresetMinterPauser: '@openzeppelin/contracts/build/contracts/ERC20PresetMinterPauser.json',
  ERC721PresetMinterPauserAutoId: '@openzeppelin/contracts/build/contracts/ERC721PresetMinterPauserAutoId.json',
  ERC1155PresetMinterPauser: '@openzeppelin/contracts/build/contracts/ERC1155PresetMinterPauser.json',
};

const artifactCache = new Map();

/// `{abi, bytecode, iface}` of a contract by name.
function artifact(name) {
  if (artifactCache.has(name)) return artifactCache.get(name);
  let abi;
  let bytecode;
  if (ARTIFACT_PATHS[name]) {
    const json = JSON.parse(fs.readFileSync(require.resolve(ARTIFACT_PATHS[name]), 'utf8'));
    abi = json.abi;
    bytecode = json.bytecode ?? json.evm?.bytecode?.object;
    if (typeof bytecode === 'object') bytecode = bytecode.object;
  } else {
    ({ abi, bytecode } = compileOwn()[name] ?? {});
  }
  if (!abi || !bytecode) throw new Error(`no artifact for ${name}`);
  if (!bytecode.startsWith('0x')) bytecode = '0x' + bytecode;
  const entry = { abi, bytecode, iface: new Interface(abi) };
  artifactCache.set(name, entry);
  return entry;
}

/// The ABI fragments the checks read through, whatever the contract.
const READ = new Interface([
  'function balanceOf(address) view returns (uint256)',
  'function totalSupply() view returns (uint256)',
  'function decimals() view returns (uint8)',
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function ownerOf(uint256) view returns (address)',
  'function tokenURI(uint256) view returns (string)',
  'function uri(uint256) view returns (string)',
  'function balanceOfBatch(address[], uint256[]) view returns (uint256[])',
  'function getReserves() view returns (uint112, uint112, uint32)',
  'function token0() view returns (address)',
  'function token1() view returns (address)',
]);

const TOPICS = {
  transfer: topicOf('Transfer(address,address,uint256)'),
  pairCreated: topicOf('PairCreated(address,address,address,uint256)'),
};

const ZERO = '0x0000000000000000000000000000000000000000';

/// A Hardhat node driven through unlocked (or impersonated) accounts: each
/// eth_sendTransaction under automine comes back once its block is mined.
class Node {
  constructor(url, options) {
    this.rpc = new Rpc(url, options);
  }

  async head() {
    return Number(await this.rpc.call('eth_blockNumber'));
  }

  async accounts() {
    return (await this.rpc.call('eth_accounts')).map((a) => a.toLowerCase());
  }

  /// Lets eth_sendTransaction send from `address` without its key:
  /// hardhat_impersonateAccount on Hardhat, and on Ganache (which has no
  /// such method) an account added without a key and unlocked.
  async impersonate(address) {
    try {
      await this.rpc.call('hardhat_impersonateAccount', [address]);
    } catch (error) {
      if (!isMissingMethod(error)) throw error;
      try {
        await this.rpc.call('evm_addAccount', [address, '']);
      } catch (added) {
        // Added before (a branch reloads the same fresh addresses).
        if (!/already/i.test(added.message)) throw added;
      }
      await this.rpc.call('personal_unlockAccount', [address, '', 0]);
    }
  }

  /// Mines `count` empty blocks at once: hardhat_mine, or Ganache's
  /// evm_mine with a block count.
  async mine(count) {
    try {
      await this.rpc.call('hardhat_mine', [hex(count)]);
    } catch (error) {
      if (!isMissingMethod(error)) throw error;
      await this.rpc.call('evm_mine', [{ blocks: count }]);
    }
  }

  /// Sends a transaction and answers its receipt; a revert is an error.
  async send({ from, to, data = '0x', value = 0n, gas }) {
    const tx = { from, data };
    if (to) tx.to = to;
    if (value) tx.value = hex(value);
    // Gas named rather than left to the node: Anvil's estimate of a Uniswap
    // pair's burn leaves it short of the 2,300 gas an SSTORE must have left,
    // and Ganache's of other calls is short too. Below Ganache's block gas
    // limit (6,721,975), far above what any call here uses.
    tx.gas = hex(gas ?? SEND_GAS);
    const hash = await this.rpc.call('eth_sendTransaction', [tx]);
    const receipt = await this.receipt(hash);
    if (!receipt) throw new Error(`no receipt for ${hash} within 10 s (is automine off?)`);
    if (receipt.status !== '0x1') throw new Error(`transaction ${hash} failed`);
    return receipt;
  }

  /// The receipt of `hash`, waited for: Hardhat and Ganache mine before
  /// eth_sendTransaction answers, Anvil may answer just before its block.
  async receipt(hash) {
    for (let tries = 0; tries < 200; tries++) {
      const receipt = await this.rpc.call('eth_getTransactionReceipt', [hash]);
      if (receipt) return receipt;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return null;
  }

  async deploy(from, name, args = []) {
    const { iface, bytecode } = artifact(name);
    const data = bytecode + iface.encodeDeploy(args).slice(2);
    const receipt = await this.send({ from, data });
    return receipt.contractAddress.toLowerCase();
  }

  /// Calls `fn` of the contract at `to` (ABI `iface`) as `from`; answers the receipt.
  async tx(from, to, iface, fn, args = [], value = 0n) {
    return this.send({ from, to, data: iface.encodeFunctionData(fn, args), value });
  }

  /// eth_call of a view, decoded; `block` a number or a tag.
  async view(to, fn, args = [], block = 'latest', iface = READ) {
    const tag = typeof block === 'number' ? hex(block) : block;
    const raw = await this.rpc.call('eth_call', [{ to, data: iface.encodeFunctionData(fn, args) }, tag]);
    return iface.decodeFunctionResult(fn, raw);
  }

  /// Many views at once: `[[to, fn, args, block], ...]` → decoded results,
  /// or `null` where the call reverted or the contract answered nothing.
  async views(calls, iface = READ) {
    const answers = await this.rpc.batch(
      calls.map(([to, fn, args, block]) => [
        'eth_call',
        [{ to, data: iface.encodeFunctionData(fn, args) }, typeof block === 'number' ? hex(block) : block],
      ]),
    );
    return answers.map((answer, i) => {
      if (answer.error || !answer.result || answer.result === '0x') return null;
      try {
        return iface.decodeFunctionResult(calls[i][1], answer.result);
      } catch {
        return null;
      }
    });
  }
}

/// Whether a node refused a call for not having the method (each node
/// words it its own way).
function isMissingMethod(error) {
  return /not found|does not exist|not available|not supported|unsupported/i.test(error.message);
}

/// Counts checks; prints each failure with what was expected and what came.
class Tally {
  constructor() {
    this.passed = 0;
    this.failed = 0;
  }

  ok(condition, where, field, expected, got) {
    if (condition) {
      this.passed++;
      return true;
    }
    this.failed++;
    console.log(`FAIL ${where}: ${field}: expected ${render(expected)}, got ${render(got)}`);
    return false;
  }

  eq(where, field, expected, got) {
    return this.ok(expected === got, where, field, expected, got);
  }

  /// Both strings, equal ignoring case (addresses as sent and as the node has them).
  same(where, field, expected, got) {
    const ok = typeof expected === 'string' && typeof got === 'string' && expected.toLowerCase() === got.toLowerCase();
    return this.ok(ok, where, field, expected, got);
  }
}

function render(value) {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return value;
  return JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? v.toString() : v));
}

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

function writeJson(file, value) {
  fs.writeFileSync(file, JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? v.toString() : v), 2) + '\n');
}

/// Exits with the message of an error, its stack when W3API_DEBUG is set.
function fail(error) {
  console.error(process.env.W3API_DEBUG ? error.stack || String(error) : `error: ${error.message || error}`);
  process.exit(2);
}

module.exports = {
  AbiCoder,
  Node,
  READ,
  Rng,
  Rpc,
  RpcError,
  TOPICS,
  Tally,
  ZERO,
  artifact,
  fail,
  getJson,
  requestJson,
  hex,
  parseArgs,
  pool,
  postJson,
  readJson,
  required,
  sleep,
  writeJson,
};
