#!/usr/bin/env node
// Deploys the contracts of the node-mode check to a node (Hardhat or
// Ganache) and drives
// token activity among its funded accounts and some fresh addresses, all
// from a seeded random generator (the same seed, the same transactions).
//
//   deploy.cjs --rpc URL --out FILE [--seed TEXT] [--steps N]
//       Deploys: WETH9 (the wrapped native token), a USD stablecoin and
//       other ERC20s (OpenZeppelin presets, and one 6-decimal token of our
//       own), two Uniswap v2 factories and their pairs, two ERC721 presets
//       and an ERC1155 preset; then N random actions (ERC20 transfers,
//       approvals, mints and burns, WETH deposits and withdrawals, native
//       transfers, NFT mints, transfers and burns, single and batch, liquidity
//       adds and removals, swaps). Writes the deployment file (below).
//
//   deploy.cjs --rpc URL --deployment FILE --branch NAME --blocks N --out FILE2
//       Drives exactly N more blocks on top of the chain FILE describes (for
//       the reorganisation test: the runner snapshots, drives a branch,
//       reverts and drives another). Each branch starts with its own marks: an
//       ERC20 transfer, a native transfer, an ERC721 and an ERC1155 mint to a
//       fresh address that only this branch touches, and a large swap. FILE2
//       is FILE with the branch's address and NFTs added.
//
// The deployment file (JSON): `contracts` (address, role: wrapped, stable,
// token, factory, pair, erc721 or erc1155, and what the role needs: a
// token's name, symbol and decimals, a pair's token0/token1/factory, the
// block it was created in), `wallets` (address and kind: account, fresh,
// idle, pair, contract or branch-only), `nfts` (every collection and token
// id ever minted, with its standard and mint block), `firstBlock`,
// `lastBlock`, and `branches`.
'use strict';

const { Interface } = require('ethers');
const { Node, Rng, artifact, fail, parseArgs, readJson, required, writeJson } = require('./lib.cjs');

const ERC20 = new Interface([
  'function transfer(address,uint256) returns (bool)',
  'function approve(address,uint256) returns (bool)',
  'function transferFrom(address,address,uint256) returns (bool)',
  'function mint(address,uint256)',
  'function burn(uint256)',
  'function deposit() payable',
  'function withdraw(uint256)',
  'function balanceOf(address) view returns (uint256)',
]);
const PAIR = new Interface([
  'function mint(address) returns (uint256)',
  'function burn(address) returns (uint256, uint256)',
  'function swap(uint256,uint256,address,bytes)',
  'function sync()',
  'function skim(address)',
  'function getReserves() view returns (uint112, uint112, uint32)',
  'function token0() view returns (address)',
  'function token1() view returns (address)',
]);
const FACTORY = artifact('UniswapV2Factory').iface;
const E721 = artifact('ERC721PresetMinterPauserAutoId').iface;
const E1155 = artifact('ERC1155PresetMinterPauser').iface;

const E18 = 10n ** 18n;
const NFT_BASE = 'https://nft.w3api.invalid';

/// The chain as the driver knows it: contracts, actors, and the NFTs' owners.
class World {
  constructor(node, rng, dep) {
    this.node = node;
    this.rng = rng;
    this.dep = dep;
    this.admin = null;
    this.users = [];
    this.fresh = [];
    this.tokens = []; // {address, kind: weth|preset|six|lp, symbol, decimals}
    this.pairs = []; // {address, token0, token1, factory}
    this.erc721 = []; // addresses
    this.erc1155 = null;
    this.owners721 = new Map(); // `${collection}:${id}` → owner
    this.balances1155 = new Map(); // `${id}:${owner}` → amount
    this.ids1155 = new Set();
    this.txs = 0;
  }

  get actors() {
    return [this.admin, ...this.users, ...this.fresh];
  }

  byRole(role) {
    return this.dep.contracts.filter((c) => c.role === role);
  }

  token(address) {
    return this.tokens.find((t) => t.address === address);
  }

  /// Sends a call of `fn` on `to`; counts the transaction.
  async tx(from, to, iface, fn, args = [], value = 0n) {
    this.txs++;
    return this.node.tx(from, to, iface, fn, args, value);
  }

  async deploy(name, args, extra) {
    this.txs++;
    const address = await this.node.deploy(this.admin, name, args);
    const block = await this.node.head();
    const entry = { ...extra, address, block };
    this.dep.contracts.push(entry);
    return entry;
  }

  async balance(token, who) {
    return (await this.node.view(token, 'balanceOf', [who]))[0];
  }

  /// The candidates holding `token`, with their balances.
  async holders(token, candidates = this.actors) {
    const answers = await this.node.views(candidates.map((who) => [token, 'balanceOf', [who], 'latest']));
    return candidates.map((who, i) => ({ who, balance: answers[i] ? answers[i][0] : 0n })).filter((h) => h.balance > 0n);
  }

  async reserves(pair) {
    const [r0, r1] = await this.node.view(pair.address, 'getReserves');
    return [r0, r1];
  }

  other(than, pool = this.actors) {
    const choices = pool.filter((a) => a !== than);
    return this.rng.pick(choices);
  }

  /// Notes a minted NFT; `block` is the block of its first mint.
  recordNft(collection, tokenId, standard, receipt) {
    const key = `${collection}:${tokenId}`;
    if (!this.dep.nfts.some((n) => `${n.collection}:${n.tokenId}` === key)) {
      this.dep.nfts.push({ collection, tokenId: tokenId.toString(), standard, block: Number(receipt.blockNumber) });
    }
  }

  /// Reads the driver's models from the contracts and the node (branch mode).
  async load() {
    const accounts = await this.node.accounts();
    this.admin = accounts[0];
    this.users = this.dep.wallets.filter((w) => w.kind === 'account').map((w) => w.address).filter((a) => a !== this.admin);
    this.fresh = this.dep.wallets.filter((w) => w.kind === 'fresh').map((w) => w.address);
    for (const address of this.fresh) await this.node.impersonate(address);
    for (const c of this.dep.contracts) {
      if (['wrapped', 'stable', 'token'].includes(c.role)) {
        this.tokens.push({ address: c.address, kind: c.kind, symbol: c.symbol, decimals: c.decimals });
      }
    }
    for (const c of this.byRole('pair')) {
      this.pairs.push({ address: c.address, token0: c.token0, token1: c.token1, factory: c.factory });
      this.tokens.push({ address: c.address, kind: 'lp', symbol: 'UNI-V2', decimals: 18 });
    }
    this.erc721 = this.byRole('erc721').map((c) => c.address);
    this.erc1155 = this.byRole('erc1155')[0].address;
    const nfts721 = this.dep.nfts.filter((n) => n.standard === 'ERC721');
    const owners = await this.node.views(nfts721.map((n) => [n.collection, 'ownerOf', [BigInt(n.tokenId)], 'latest']));
    nfts721.forEach((n, i) => {
      if (owners[i]) this.owners721.set(`${n.collection}:${n.tokenId}`, owners[i][0].toLowerCase());
    });
    const ids = this.dep.nfts.filter((n) => n.standard === 'ERC1155').map((n) => BigInt(n.tokenId));
    for (const id of ids) this.ids1155.add(id);
    const pairs = [];
    for (const id of ids) for (const who of this.actors) pairs.push([id, who]);
    const answers = await this.node.views(pairs.map(([id, who]) => [this.erc1155, 'balanceOf', [who, id], 'latest']), E1155);
    pairs.forEach(([id, who], i) => {
      if (answers[i] && answers[i][0] > 0n) this.balances1155.set(`${id}:${who}`, answers[i][0]);
    });
  }

  // ------------------------------------------------------------ actions
  // Each answers whether it did something; the driver tries another when not.

  pickErc20(kinds) {
    return this.rng.pick(this.tokens.filter((t) => kinds.includes(t.kind)));
  }

  async erc20Transfer() {
    const token = this.pickErc20(['weth', 'preset', 'six', 'lp', 'lp', 'preset']);
    const holders = await this.holders(token.address);
    if (!holders.length) return false;
    const { who, balance } = this.rng.pick(holders);
    // Now and then the whole balance, so that holdings also drop to zero.
    const amount = this.rng.chance(0.12) ? balance : this.rng.share(balance, 1_000, 500_000);
    let to = this.other(who);
    // Rarely a donation to a pair, which its next mint, swap or sync absorbs.
    if (token.kind !== 'lp' && this.rng.chance(0.03)) to = this.rng.pick(this.pairs).address;
    await this.tx(who, token.address, ERC20, 'transfer', [to, amount]);
    return true;
  }

  async erc20ApproveAndTransferFrom() {
    const token = this.pickErc20(['weth', 'preset', 'six']);
    const holders = await this.holders(token.address);
    if (!holders.length) return false;
    const { who, balance } = this.rng.pick(holders);
    const spender = this.other(who, [this.admin, ...this.users]);
    const allowance = this.rng.share(balance, 10_000, 1_000_000);
    await this.tx(who, token.address, ERC20, 'approve', [spender, allowance]);
    const to = this.other(who);
    await this.tx(spender, token.address, ERC20, 'transferFrom', [who, to, this.rng.share(allowance, 100_000, 1_000_000)]);
    return true;
  }

  async erc20Mint() {
    const token = this.pickErc20(['preset', 'six']);
    const whole = 10n ** BigInt(token.decimals);
    const amount = BigInt(this.rng.between(1, 20_000)) * whole + this.rng.bigBetween(0n, whole - 1n);
    await this.tx(this.admin, token.address, ERC20, 'mint', [this.rng.pick(this.actors), amount]);
    return true;
  }

  async erc20Burn() {
    const token = this.pickErc20(['preset', 'six']);
    const holders = await this.holders(token.address);
    if (!holders.length) return false;
    const { who, balance } = this.rng.pick(holders);
    const amount = this.rng.chance(0.1) ? balance : this.rng.share(balance, 1_000, 300_000);
    await this.tx(who, token.address, ERC20, 'burn', [amount]);
    return true;
  }

  weth() {
    return this.tokens.find((t) => t.kind === 'weth').address;
  }

  async wethDeposit() {
    const who = this.rng.pick(this.actors);
    const balance = BigInt(await this.node.rpc.call('eth_getBalance', [who, 'latest']));
    // At most a twentieth of what the account has, so that gas stays paid.
    const amount = this.rng.share(balance / 20n, 10_000, 1_000_000);
    await this.tx(who, this.weth(), ERC20, 'deposit', [], amount);
    return true;
  }

  async wethWithdraw() {
    const holders = await this.holders(this.weth());
    if (!holders.length) return false;
    const { who, balance } = this.rng.pick(holders);
    const amount = this.rng.chance(0.1) ? balance : this.rng.share(balance, 1_000, 400_000);
    await this.tx(who, this.weth(), ERC20, 'withdraw', [amount]);
    return true;
  }

  async nativeTransfer(from = this.rng.pick(this.actors), to = this.other(from)) {
    const balance = BigInt(await this.node.rpc.call('eth_getBalance', [from, 'latest']));
    const value = this.rng.share(balance / 50n, 1_000, 1_000_000);
    this.txs++;
    await this.node.send({ from, to, value });
    return true;
  }

  async nft721Mint(to = this.rng.pick(this.actors), collection = this.rng.pick(this.erc721)) {
    const receipt = await this.tx(this.admin, collection, E721, 'mint', [to]);
    const log = receipt.logs.find((l) => l.address.toLowerCase() === collection && l.topics.length === 4);
    const id = BigInt(log.topics[3]);
    this.owners721.set(`${collection}:${id}`, to);
    this.recordNft(collection, id, 'ERC721', receipt);
    return true;
  }

  /// ERC721 tokens whose owner can sign (an actor).
  owned721() {
    const actors = this.actors;
    return [...this.owners721.entries()]
      .map(([key, owner]) => {
        const [collection, id] = key.split(':');
        return { collection, id: BigInt(id), owner };
      })
      .filter((t) => actors.includes(t.owner));
  }

  async nft721Transfer() {
    const owned = this.owned721();
    if (!owned.length) return false;
    const { collection, id, owner } = this.rng.pick(owned);
    const to = this.other(owner);
    if (this.rng.chance(0.25) && owner !== this.admin) {
      // Through an operator: the owner approves every token, the operator moves one.
      const operator = this.other(owner, [this.admin, ...this.users]);
      await this.tx(owner, collection, E721, 'setApprovalForAll', [operator, true]);
      await this.tx(operator, collection, E721, 'transferFrom', [owner, to, id]);
    } else if (this.rng.chance(0.5)) {
      await this.tx(owner, collection, E721, 'safeTransferFrom(address,address,uint256)', [owner, to, id]);
    } else {
      await this.tx(owner, collection, E721, 'transferFrom', [owner, to, id]);
    }
    this.owners721.set(`${collection}:${id}`, to);
    return true;
  }

  async nft721Burn() {
    const owned = this.owned721();
    if (!owned.length) return false;
    const { collection, id, owner } = this.rng.pick(owned);
    await this.tx(owner, collection, E721, 'burn', [id]);
    this.owners721.delete(`${collection}:${id}`);
    return true;
  }

  /// Token ids of the ERC1155 collection: a few that recur, and new ones.
  pick1155Id() {
    return this.rng.chance(0.8) ? BigInt(this.rng.between(1, 8)) : BigInt(this.rng.between(9, 60));
  }

  add1155(id, who, amount) {
    const key = `${id}:${who}`;
    const now = (this.balances1155.get(key) ?? 0n) + amount;
    if (now > 0n) this.balances1155.set(key, now);
    else this.balances1155.delete(key);
  }

  async nft1155Mint(to = this.rng.pick(this.actors), id = this.pick1155Id()) {
    const amount = BigInt(this.rng.between(1, 50));
    const receipt = await this.tx(this.admin, this.erc1155, E1155, 'mint', [to, id, amount, '0x']);
    this.add1155(id, to, amount);
    this.ids1155.add(id);
    this.recordNft(this.erc1155, id, 'ERC1155', receipt);
    return true;
  }

  async nft1155MintBatch() {
    const to = this.rng.pick(this.actors);
    const ids = [...new Set(Array.from({ length: this.rng.between(2, 4) }, () => this.pick1155Id()))];
    const amounts = ids.map(() => BigInt(this.rng.between(1, 30)));
    const receipt = await this.tx(this.admin, this.erc1155, E1155, 'mintBatch', [to, ids, amounts, '0x']);
    ids.forEach((id, i) => {
      this.add1155(id, to, amounts[i]);
      this.ids1155.add(id);
      this.recordNft(this.erc1155, id, 'ERC1155', receipt);
    });
    return true;
  }

  /// Holdings of the ERC1155 collection, by owner: owner → [[id, amount]].
  held1155() {
    const byOwner = new Map();
    for (const [key, amount] of this.balances1155) {
      const [id, who] = key.split(':');
      if (!byOwner.has(who)) byOwner.set(who, []);
      byOwner.get(who).push([BigInt(id), amount]);
    }
    // Only actors can sign (pairs are never sent ERC1155 tokens).
    return [...byOwner.entries()].filter(([who]) => this.actors.includes(who));
  }

  async nft1155Transfer() {
    const held = this.held1155();
    if (!held.length) return false;
    const [from, items] = this.rng.pick(held);
    const to = this.other(from);
    const [id, have] = this.rng.pick(items);
    const amount = this.rng.chance(0.2) ? have : BigInt(this.rng.between(1, Number(have)));
    await this.tx(from, this.erc1155, E1155, 'safeTransferFrom', [from, to, id, amount, '0x']);
    this.add1155(id, from, -amount);
    this.add1155(id, to, amount);
    return true;
  }

  async nft1155TransferBatch() {
    const held = this.held1155().filter(([, items]) => items.length >= 2);
    if (!held.length) return false;
    const [from, items] = this.rng.pick(held);
    const to = this.other(from);
    const chosen = items.filter(() => this.rng.chance(0.6)).slice(0, 4);
    if (chosen.length < 2) chosen.splice(0, chosen.length, items[0], items[1]);
    const ids = chosen.map(([id]) => id);
    const amounts = chosen.map(([, have]) => (this.rng.chance(0.3) ? have : BigInt(this.rng.between(1, Number(have)))));
    await this.tx(from, this.erc1155, E1155, 'safeBatchTransferFrom', [from, to, ids, amounts, '0x']);
    ids.forEach((id, i) => {
      this.add1155(id, from, -amounts[i]);
      this.add1155(id, to, amounts[i]);
    });
    return true;
  }

  async nft1155Burn() {
    const held = this.held1155();
    if (!held.length) return false;
    const [from, items] = this.rng.pick(held);
    if (items.length >= 2 && this.rng.chance(0.35)) {
      const chosen = items.slice(0, 2);
      const amounts = chosen.map(([, have]) => (this.rng.chance(0.5) ? have : 1n));
      await this.tx(from, this.erc1155, E1155, 'burnBatch', [from, chosen.map(([id]) => id), amounts]);
      chosen.forEach(([id], i) => this.add1155(id, from, -amounts[i]));
    } else {
      const [id, have] = this.rng.pick(items);
      const amount = this.rng.chance(0.4) ? have : BigInt(this.rng.between(1, Number(have)));
      await this.tx(from, this.erc1155, E1155, 'burn', [from, id, amount]);
      this.add1155(id, from, -amount);
    }
    return true;
  }

  async fundedPairs() {
    const out = [];
    for (const pair of this.pairs) {
      const [r0, r1] = await this.reserves(pair);
      if (r0 > 0n && r1 > 0n) out.push({ pair, r0, r1 });
    }
    return out;
  }

  /// Adds liquidity to a pair in proportion to its reserves: both tokens to
  /// the pair, then the pair's mint.
  async addLiquidity() {
    const funded = await this.fundedPairs();
    if (!funded.length) return false;
    const { pair, r0, r1 } = this.rng.pick(funded);
    const have0 = await this.holders(pair.token0);
    const have1 = new Map((await this.holders(pair.token1)).map((h) => [h.who, h.balance]));
    const both = have0.filter((h) => have1.has(h.who));
    if (!both.length) return false;
    const { who, balance: b0 } = this.rng.pick(both);
    const b1 = have1.get(who);
    let a0 = this.rng.share(b0, 10_000, 300_000);
    let a1 = (a0 * r1) / r0 + 1n;
    if (a1 > b1) {
      a1 = this.rng.share(b1, 10_000, 300_000);
      a0 = (a1 * r0) / r1 + 1n;
      if (a0 > b0) return false;
    }
    // Too small an add would mint no liquidity, and the pair would refuse it.
    const [supply] = await this.node.view(pair.address, 'totalSupply');
    if ((a0 * supply) / r0 === 0n || (a1 * supply) / r1 === 0n) return false;
    await this.tx(who, pair.token0, ERC20, 'transfer', [pair.address, a0]);
    await this.tx(who, pair.token1, ERC20, 'transfer', [pair.address, a1]);
    await this.tx(who, pair.address, PAIR, 'mint', [who]);
    return true;
  }

  async removeLiquidity() {
    const pair = this.rng.pick(this.pairs);
    const holders = (await this.holders(pair.address)).filter((h) => h.balance > 10_000n);
    if (!holders.length) return false;
    const { who, balance } = this.rng.pick(holders);
    const lp = this.rng.chance(0.15) ? balance : this.rng.share(balance, 10_000, 500_000);
    // Too little would give back nothing of one side, and the pair would refuse it.
    const [supply] = await this.node.view(pair.address, 'totalSupply');
    const b0 = await this.balance(pair.token0, pair.address);
    const b1 = await this.balance(pair.token1, pair.address);
    if ((lp * b0) / supply === 0n || (lp * b1) / supply === 0n) return false;
    await this.tx(who, pair.address, ERC20, 'transfer', [pair.address, lp]);
    await this.tx(who, pair.address, PAIR, 'burn', [who]);
    return true;
  }

  /// A swap through the pair itself: the input to the pair, then `swap` for
  /// the most the constant product (with the 0.3% fee) gives.
  async swap({ pair: only, big = false } = {}) {
    const funded = (await this.fundedPairs()).filter((f) => !only || f.pair.address === only.address);
    if (!funded.length) return false;
    const { pair, r0, r1 } = this.rng.pick(funded);
    const zeroForOne = this.rng.chance(0.5);
    const [tokenIn, reserveIn] = zeroForOne ? [pair.token0, r0] : [pair.token1, r1];
    const holders = await this.holders(tokenIn);
    if (!holders.length) return false;
    const { who, balance } = this.rng.pick(holders);
    const wanted = big ? this.rng.share(reserveIn, 150_000, 300_000) : this.rng.share(reserveIn, 500, 60_000);
    const amountIn = wanted < balance ? wanted : this.rng.share(balance, 100_000, 1_000_000);
    await this.tx(who, tokenIn, ERC20, 'transfer', [pair.address, amountIn]);
    const [s0, s1] = await this.reserves(pair);
    const [inNow, reserveInNow, reserveOutNow] = zeroForOne
      ? [await this.balance(pair.token0, pair.address), s0, s1]
      : [await this.balance(pair.token1, pair.address), s1, s0];
    const effective = inNow - reserveInNow;
    const withFee = effective * 997n;
    const out = (withFee * reserveOutNow) / (reserveInNow * 1000n + withFee);
    const to = this.rng.chance(0.8) ? who : this.other(who);
    if (out <= 0n) {
      await this.tx(who, pair.address, PAIR, 'sync');
      return true;
    }
    await this.tx(who, pair.address, PAIR, 'swap', zeroForOne ? [0n, out, to, '0x'] : [out, 0n, to, '0x']);
    return true;
  }

  async pairSyncOrSkim() {
    const pair = this.rng.pick(this.pairs);
    const [r0, r1] = await this.reserves(pair);
    const b0 = await this.balance(pair.token0, pair.address);
    const b1 = await this.balance(pair.token1, pair.address);
    if ((b0 > r0 || b1 > r1) && this.rng.chance(0.5)) {
      await this.tx(this.rng.pick(this.actors), pair.address, PAIR, 'skim', [this.rng.pick(this.actors)]);
    } else {
      await this.tx(this.rng.pick(this.actors), pair.address, PAIR, 'sync');
    }
    return true;
  }

  /// One random action; `maxTxs` bounds how many transactions it may send.
  async step(maxTxs = Infinity) {
    const table = [
      [20, ['erc20Transfer', 1]],
      [4, ['erc20ApproveAndTransferFrom', 2]],
      [5, ['erc20Mint', 1]],
      [4, ['erc20Burn', 1]],
      [5, ['wethDeposit', 1]],
      [4, ['wethWithdraw', 1]],
      [4, ['nativeTransfer', 1]],
      [5, ['nft721Mint', 1]],
      [5, ['nft721Transfer', 2]],
      [2, ['nft721Burn', 1]],
      [4, ['nft1155Mint', 1]],
      [3, ['nft1155MintBatch', 1]],
      [4, ['nft1155Transfer', 1]],
      [3, ['nft1155TransferBatch', 1]],
      [3, ['nft1155Burn', 1]],
      [5, ['addLiquidity', 3]],
      [3, ['removeLiquidity', 2]],
      [12, ['swap', 2]],
      [1, ['pairSyncOrSkim', 1]],
    ].filter(([, [, txs]]) => txs <= maxTxs);
    for (let attempt = 0; attempt < 20; attempt++) {
      const [action] = this.rng.weighted(table);
      if (await this[action]()) return action;
    }
    await this.nativeTransfer();
    return 'nativeTransfer';
  }
}

// ---------------------------------------------------------------- deploy

async function deployAll(world, steps) {
  const { node, rng, dep } = world;
  const accounts = await node.accounts();
  if (accounts.length < 12) throw new Error(`the node has ${accounts.length} accounts, 12 needed`);
  world.admin = accounts[0];
  world.users = accounts.slice(1, 11);
  world.fresh = Array.from({ length: 8 }, () => rng.address());
  const idle = accounts[11];
  dep.firstBlock = (await node.head()) + 1;

  console.log('--- deploy: contracts');
  const weth = await world.deploy('WETH9', [], { role: 'wrapped', kind: 'weth', name: 'Wrapped Ether', symbol: 'WETH', decimals: 18 });
  const preset = async (role, name, symbol) =>
    world.deploy('ERC20PresetMinterPauser', [name, symbol], { role, kind: 'preset', name, symbol, decimals: 18 });
  const usd = await preset('stable', 'USD Stable', 'USD');
  const aaa = await preset('token', 'Token A', 'AAA');
  const bbb = await preset('token', 'Token B', 'BBB');
  const ccc = await preset('token', 'Token C', 'CCC');
  const six = await world.deploy('SixDecimals', [], { role: 'token', kind: 'six', name: 'Six Decimals', symbol: 'SIX', decimals: 6 });
  const lone = await preset('token', 'Lonely', 'LONE');
  const factories = [];
  for (const label of ['uniswap-v2-a', 'uniswap-v2-b']) {
    factories.push(await world.deploy('UniswapV2Factory', [world.admin], { role: 'factory', label }));
  }
  for (const [name, symbol] of [
    ['Node Apes', 'NAPE'],
    ['Node Birds', 'NBRD'],
  ]) {
    const base = `${NFT_BASE}/${symbol.toLowerCase()}/`;
    const c = await world.deploy('ERC721PresetMinterPauserAutoId', [name, symbol, base], { role: 'erc721', name, symbol, baseUri: base });
    world.erc721.push(c.address);
  }
  const e1155 = await world.deploy('ERC1155PresetMinterPauser', [`${NFT_BASE}/items/{id}.json`], { role: 'erc1155' });
  world.erc1155 = e1155.address;
  for (const t of [weth, usd, aaa, bbb, ccc, six, lone]) {
    world.tokens.push({ address: t.address, kind: t.kind, symbol: t.symbol, decimals: t.decimals });
  }

  console.log('--- deploy: pairs');
  const createPair = async (factory, a, b) => {
    const receipt = await world.tx(world.admin, factory.address, FACTORY, 'createPair', [a.address, b.address]);
    const log = receipt.logs.map((l) => FACTORY.parseLog(l)).find((l) => l && l.name === 'PairCreated');
    const pair = {
      address: log.args.pair.toLowerCase(),
      token0: log.args.token0.toLowerCase(),
      token1: log.args.token1.toLowerCase(),
      factory: factory.address,
    };
    world.pairs.push(pair);
    world.tokens.push({ address: pair.address, kind: 'lp', symbol: 'UNI-V2', decimals: 18 });
    dep.contracts.push({ role: 'pair', ...pair, name: `${a.symbol}/${b.symbol}`, block: Number(receipt.blockNumber) });
    return pair;
  };
  const [f1, f2] = factories;
  const pairs = {
    wethUsd: await createPair(f1, weth, usd),
    aaaWeth: await createPair(f1, aaa, weth),
    bbbWeth: await createPair(f1, bbb, weth),
    cccWeth: await createPair(f1, ccc, weth),
    sixWeth: await createPair(f1, six, weth),
    aaaUsd: await createPair(f1, aaa, usd),
    aaaBbb: await createPair(f1, aaa, bbb),
    loneAaa: await createPair(f1, lone, aaa),
    cccUsd: await createPair(f1, ccc, usd),
    wethUsd2: await createPair(f2, weth, usd),
    aaaWeth2: await createPair(f2, aaa, weth),
  };

  console.log('--- deploy: funding');
  const admin = world.admin;
  await world.tx(admin, weth.address, ERC20, 'deposit', [], 1_500n * E18);
  const mint = (token, to, amount) => world.tx(admin, token.address, ERC20, 'mint', [to, amount]);
  await mint(usd, admin, 20_000_000n * E18);
  await mint(aaa, admin, 10_000_000n * E18);
  await mint(bbb, admin, 50_000_000n * E18);
  await mint(ccc, admin, 20_000n * E18);
  await mint(six, admin, 5_000_000n * 10n ** 6n);
  await mint(lone, admin, 1_000_000n * E18);
  const seed = async (pair, a, amountA, b, amountB, to = admin) => {
    await world.tx(admin, a.address, ERC20, 'transfer', [pair.address, amountA]);
    await world.tx(admin, b.address, ERC20, 'transfer', [pair.address, amountB]);
    await world.tx(admin, pair.address, PAIR, 'mint', [to]);
  };
  // ETH at 2,000 USD on the deeper pair (2,050 on the other); AAA at 2 USD
  // through WETH, 2.02 through USD, nearly as deep (swaps move which is
  // deeper); BBB at 0.5, CCC at 1,234.5, SIX at 3; LONE only against AAA
  // and AAA/BBB quotes nothing: neither prices anything.
  await seed(pairs.wethUsd, weth, 200n * E18, usd, 400_000n * E18);
  await seed(pairs.wethUsd2, weth, 20n * E18, usd, 41_000n * E18);
  await seed(pairs.aaaWeth, aaa, 50_000n * E18, weth, 50n * E18);
  await seed(pairs.aaaUsd, aaa, 45_000n * E18, usd, 90_900n * E18);
  await seed(pairs.aaaWeth2, aaa, 4_900n * E18, weth, 5n * E18);
  await seed(pairs.bbbWeth, bbb, 120_000n * E18, weth, 30n * E18);
  await seed(pairs.cccWeth, ccc, 64_800n * 10n ** 15n, weth, 40n * E18);
  await seed(pairs.sixWeth, six, 6_666_666_666n, weth, 10n * E18);
  await seed(pairs.aaaBbb, aaa, 1_000n * E18, bbb, 4_000n * E18);
  await seed(pairs.loneAaa, lone, 10_000n * E18, aaa, 3_000n * E18);

  for (const user of world.users) {
    await mint(usd, user, BigInt(rng.between(5_000, 60_000)) * E18);
    await mint(aaa, user, BigInt(rng.between(1_000, 90_000)) * E18);
    if (rng.chance(0.7)) await mint(bbb, user, BigInt(rng.between(10_000, 400_000)) * E18);
    if (rng.chance(0.6)) await mint(ccc, user, rng.bigBetween(E18, 40n * E18));
    if (rng.chance(0.6)) await mint(six, user, rng.bigBetween(10n ** 6n, 50_000n * 10n ** 6n));
    await world.tx(user, weth.address, ERC20, 'deposit', [], rng.bigBetween(E18, 80n * E18));
  }
  for (const address of world.fresh) {
    await node.impersonate(address);
    await world.nativeTransfer(rng.pick(world.users), address);
    // nativeTransfer sends up to 2% of the sender's balance: plenty for gas.
  }
  for (let i = 0; i < 6; i++) await world.nft721Mint();
  for (let i = 0; i < 4; i++) await world.nft1155Mint();

  dep.wallets = [
    ...[admin, ...world.users].map((address) => ({ address, kind: 'account' })),
    ...world.fresh.map((address) => ({ address, kind: 'fresh' })),
    { address: idle, kind: 'idle' },
    ...world.pairs.map((p) => ({ address: p.address, kind: 'pair' })),
    { address: weth.address, kind: 'contract' },
  ];

  console.log(`--- deploy: ${steps} random actions`);
  const counts = {};
  for (let i = 0; i < steps; i++) {
    if (i === Math.floor(steps / 2)) {
      // Mid-way, the empty CCC/USD pair gets its first liquidity, at about
      // CCC's price through WETH: a second source for CCC from then on.
      const [c0, c1] = await world.reserves(pairs.cccWeth);
      const [w0, w1] = await world.reserves(pairs.wethUsd);
      const cccInWeth = pairs.cccWeth.token0 === ccc.address ? [c0, c1] : [c1, c0];
      const usdPerWeth = pairs.wethUsd.token0 === weth.address ? [w1, w0] : [w0, w1];
      const cccAmount = 30n * E18;
      const usdAmount = (cccAmount * cccInWeth[1] * usdPerWeth[0]) / (cccInWeth[0] * usdPerWeth[1]);
      await seed(pairs.cccUsd, ccc, cccAmount, usd, usdAmount);
      counts.seedCccUsd = 1;
    }
    const action = await world.step();
    counts[action] = (counts[action] ?? 0) + 1;
  }
  console.log('actions: ' + Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(', '));
}

// ---------------------------------------------------------------- branch

async function driveBranch(world, name, blocks) {
  const { node, rng, dep } = world;
  await world.load();
  const start = await node.head();
  const only = rng.address();
  console.log(`--- branch ${name}: ${blocks} blocks from ${start}, only this branch touches ${only}`);
  const usd = world.byRole('stable')[0];
  // The branch's marks: a transfer, a native transfer, an ERC721 and an
  // ERC1155 mint to its own address, and a large swap.
  const holders = await world.holders(usd.address, world.users);
  const from = rng.pick(holders);
  await world.tx(from.who, usd.address, ERC20, 'transfer', [only, rng.share(from.balance, 10_000, 200_000)]);
  await world.nativeTransfer(rng.pick(world.users), only);
  await world.nft721Mint(only);
  await world.nft1155Mint(only, 1_000n + BigInt(rng.between(0, 999)));
  // The swap moves a price: on a pair of the first exchange that prices a token.
  const firstFactory = world.byRole('factory')[0].address;
  const pricing = world.pairs.filter((p) => {
    const c = dep.contracts.find((x) => x.address === p.address);
    return p.factory === firstFactory && ['WETH/USD', 'AAA/WETH', 'BBB/WETH', 'SIX/WETH'].includes(c.name);
  });
  const swapped = rng.pick(pricing);
  await world.swap({ pair: swapped, big: true });
  console.log(`branch ${name}: a large swap on ${dep.contracts.find((c) => c.address === swapped.address).name}`);
  while (true) {
    const left = blocks - ((await node.head()) - start);
    if (left <= 0) break;
    await world.step(left);
  }
  const end = await node.head();
  if (end - start !== blocks) throw new Error(`branch ${name} has ${end - start} blocks, not ${blocks}`);
  dep.wallets.push({ address: only, kind: 'branch-only', branch: name });
  dep.branches = [...(dep.branches ?? []), { name, from: start, to: end, onlyAddress: only }];
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  required(args, 'rpc', 'out');
  const node = new Node(args.rpc);
  const started = Date.now();
  let dep;
  let world;
  if (args.branch) {
    required(args, 'deployment', 'blocks');
    dep = readJson(args.deployment);
    world = new World(node, new Rng(`${dep.seed}/branch/${args.branch}`), dep);
    await driveBranch(world, args.branch, Number(args.blocks));
  } else {
    const chainId = Number(await node.rpc.call('eth_chainId'));
    dep = { chainId, seed: args.seed ?? 'w3api-node-mode', contracts: [], wallets: [], nfts: [], branches: [] };
    world = new World(node, new Rng(dep.seed), dep);
    await deployAll(world, Number(args.steps ?? 260));
  }
  dep.lastBlock = await node.head();
  writeJson(args.out, dep);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(
    `--- deploy: ${world.txs} transactions, head ${dep.lastBlock}, ${dep.wallets.length} wallets, ` +
      `${dep.nfts.length} NFTs minted, ${seconds} s; wrote ${args.out}`,
  );
}

main().catch(fail);
