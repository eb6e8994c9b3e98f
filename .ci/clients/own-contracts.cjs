'use strict';
// A user's own contracts on the devnet, as a dApp developer makes them:
// OpenZeppelin's ERC20 and ERC721 (their published npm build artifacts)
// deployed from the dev accounts of the standard test mnemonic, with viem
// and with ethers, each through both kinds of account (a key the client
// holds, and the node's account by eth_sendTransaction); read back with
// eth_call; minted and transferred; their receipts and events decoded.
// Then the Moralis JS SDK's wallet tokens and NFTs answers show them, named
// by what the contracts say of themselves. Transactions the chain will not
// take, and calls that revert, come back as the errors viem and ethers
// make of geth's: error -32000 with geth's words, error 3 with the revert
// data.

const path = require('node:path');
const viem = require('viem');
const { mainnet } = require('viem/chains');
const { mnemonicToAccount, generatePrivateKey, privateKeyToAccount } = require('viem/accounts');
const ethers = require('ethers');
const Moralis = require('moralis').default;
const { URL: BASE, KEY, RPC_URL, runner, assert } = require('./lib.cjs');

const MNEMONIC = 'test test test test test test test test test test test junk';
const OZ = path.dirname(require.resolve('@openzeppelin/contracts/package.json'));
const artifact = (name) => require(path.join(OZ, 'build', 'contracts', `${name}.json`));
const ERC20 = artifact('ERC20PresetMinterPauser');
const ERC721 = artifact('ERC721PresetMinterPauserAutoId');
const WHOLE = 10n ** 18n;

const { check, done, fatal } = runner('own-contracts');

/** Every check's outcome, for the SDK checks at the end. */
const deployed = [];

async function withViem() {
  const transport = viem.http(RPC_URL, { retryCount: 0, timeout: 20000 });
  const client = viem.createPublicClient({ chain: mainnet, transport, pollingInterval: 100 });
  // Account #5 of the mnemonic, signed here; the same account's key on the node for eth_sendTransaction.
  const local = mnemonicToAccount(MNEMONIC, { addressIndex: 5 });
  const wallet = viem.createWalletClient({ account: local, chain: mainnet, transport });
  const node = viem.createWalletClient({ account: local.address, chain: mainnet, transport });
  const holder = privateKeyToAccount(generatePrivateKey()).address;
  const mined = async (hash) => {
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 100, timeout: 20000 });
    assert(receipt.status === 'success', `${hash}: status ${receipt.status}`);
    return receipt;
  };

  let token;
  await check('viem: deployContract ERC20PresetMinterPauser by eth_sendTransaction (the node signs)', async () => {
    const hash = await node.deployContract({ abi: ERC20.abi, bytecode: ERC20.bytecode, args: ['Viem Garden', 'VGDN'] });
    token = (await mined(hash)).contractAddress;
    const code = await client.getCode({ address: token });
    assert(code && code.length > 2, 'no code at the new address');
    return `${token}, ${(code.length - 2) / 2} bytes of code`;
  });
  await check('viem: readContract name, symbol, decimals, totalSupply (eth_call)', async () => {
    const read = (functionName, args = []) => client.readContract({ address: token, abi: ERC20.abi, functionName, args });
    const [name, symbol, decimals, supply] = await Promise.all([read('name'), read('symbol'), read('decimals'), read('totalSupply')]);
    assert(name === 'Viem Garden' && symbol === 'VGDN' && decimals === 18 && supply === 0n, `${name} ${symbol} ${decimals} ${supply}`);
    return `${name} (${symbol}), ${decimals} decimals`;
  });
  await check('viem: writeContract mint and transfer (signed here), Transfer events decoded', async () => {
    const mint = await wallet.writeContract({ address: token, abi: ERC20.abi, functionName: 'mint', args: [local.address, 1000n * WHOLE] });
    await mined(mint);
    const send = await wallet.writeContract({ address: token, abi: ERC20.abi, functionName: 'transfer', args: [holder, 250n * WHOLE] });
    const receipt = await mined(send);
    const [event] = viem.parseEventLogs({ abi: ERC20.abi, logs: receipt.logs, eventName: 'Transfer' });
    assert(event && event.args.to === holder && event.args.value === 250n * WHOLE, `event ${JSON.stringify(event && event.args, (_, v) => (typeof v === 'bigint' ? `${v}` : v))}`);
    const held = await client.readContract({ address: token, abi: ERC20.abi, functionName: 'balanceOf', args: [holder] });
    assert(held === 250n * WHOLE, `balanceOf ${held}`);
    return `holder has ${held}`;
  });

  let nft;
  await check('viem: deployContract ERC721PresetMinterPauserAutoId (signed here), mint, ownerOf, tokenURI', async () => {
    const hash = await wallet.deployContract({ abi: ERC721.abi, bytecode: ERC721.bytecode, args: ['Viem Plots', 'VPLT', 'https://plots.example/'] });
    nft = (await mined(hash)).contractAddress;
    const receipt = await mined(await node.writeContract({ address: nft, abi: ERC721.abi, functionName: 'mint', args: [holder] }));
    const [event] = viem.parseEventLogs({ abi: ERC721.abi, logs: receipt.logs, eventName: 'Transfer' });
    assert(event && event.args.tokenId === 0n && event.args.to === holder, 'a Transfer of token 0 to the holder');
    const owner = await client.readContract({ address: nft, abi: ERC721.abi, functionName: 'ownerOf', args: [0n] });
    const uri = await client.readContract({ address: nft, abi: ERC721.abi, functionName: 'tokenURI', args: [0n] });
    assert(owner === holder && uri === 'https://plots.example/0', `${owner} ${uri}`);
    return `${nft}: token 0 owned by the holder, ${uri}`;
  });
  deployed.push({ client: 'viem', holder, token, name: 'Viem Garden', symbol: 'VGDN', balance: 250n * WHOLE, nft, collection: 'Viem Plots' });
}

async function withEthers() {
  const provider = new ethers.JsonRpcProvider(RPC_URL, 1, { staticNetwork: true });
  provider.pollingInterval = 100;
  const local = ethers.HDNodeWallet.fromPhrase(MNEMONIC, undefined, "m/44'/60'/0'/0/6").connect(provider);
  const node = await provider.getSigner(local.address);
  const holder = ethers.Wallet.createRandom().address;

  let token;
  await check('ethers: ContractFactory.deploy ERC20PresetMinterPauser (signed here), waitForDeployment', async () => {
    const contract = await new ethers.ContractFactory(ERC20.abi, ERC20.bytecode, local).deploy('Ethers Orchard', 'ORCH');
    await contract.waitForDeployment();
    token = new ethers.Contract(await contract.getAddress(), ERC20.abi, provider);
    const [name, symbol, decimals] = await Promise.all([token.name(), token.symbol(), token.decimals()]);
    assert(name === 'Ethers Orchard' && symbol === 'ORCH' && decimals === 18n, `${name} ${symbol} ${decimals}`);
    return `${await token.getAddress()}: ${name} (${symbol})`;
  });
  await check('ethers: mint and transfer through the node\'s account (JsonRpcSigner), events from the receipt', async () => {
    const asNode = token.connect(node);
    await (await asNode.mint(local.address, 40n * WHOLE)).wait();
    const receipt = await (await asNode.transfer(holder, 7n * WHOLE)).wait();
    assert(receipt.status === 1, `status ${receipt.status}`);
    const events = receipt.logs.map((log) => token.interface.parseLog(log)).filter((e) => e && e.name === 'Transfer');
    assert(events.length === 1 && events[0].args.to === holder && events[0].args.value === 7n * WHOLE, 'one Transfer to the holder');
    const held = await token.balanceOf(holder);
    assert(held === 7n * WHOLE, `balanceOf ${held}`);
    return `holder has ${held}`;
  });

  let nft;
  await check('ethers: ERC721PresetMinterPauserAutoId deployed by the node\'s account, minted, read', async () => {
    const contract = await new ethers.ContractFactory(ERC721.abi, ERC721.bytecode, node).deploy('Ethers Acres', 'ACRE', 'ipfs://acres/');
    await contract.waitForDeployment();
    nft = new ethers.Contract(await contract.getAddress(), ERC721.abi, local);
    const receipt = await (await nft.mint(holder)).wait();
    const event = receipt.logs.map((log) => nft.interface.parseLog(log)).find((e) => e && e.name === 'Transfer');
    assert(event && event.args.tokenId === 0n, 'a Transfer of token 0');
    const [owner, uri, supply] = await Promise.all([nft.ownerOf(0n), nft.tokenURI(0n), nft.totalSupply()]);
    assert(owner === holder && uri === 'ipfs://acres/0' && supply === 1n, `${owner} ${uri} ${supply}`);
    return `${await nft.getAddress()}: ${uri}`;
  });
  deployed.push({
    client: 'ethers', holder, token: await token.getAddress(), name: 'Ethers Orchard', symbol: 'ORCH', balance: 7n * WHOLE,
    nft: await nft.getAddress(), collection: 'Ethers Acres',
  });
}

/** Raw transactions the chain refuses, each as viem classifies it. */
async function refusals() {
  const transport = viem.http(RPC_URL, { retryCount: 0, timeout: 20000 });
  const client = viem.createPublicClient({ chain: mainnet, transport });
  const local = mnemonicToAccount(MNEMONIC, { addressIndex: 5 });
  const wallet = viem.createWalletClient({ account: local, chain: mainnet, transport });
  const used = await client.getTransactionCount({ address: local.address });
  const baseFee = (await client.getBlock()).baseFeePerGas;
  const fees = { maxFeePerGas: 2n * baseFee + 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n };
  const transfer = { to: '0x000000000000000000000000000000000000dEaD', value: 1n, gas: 21000n, nonce: used, ...fees };
  const cases = [
    ['nonce too low', { ...transfer, nonce: 0 }, viem.NonceTooLowError],
    ['intrinsic gas too low', { ...transfer, gas: 20000n }, viem.IntrinsicGasTooLowError],
    ['max fee under the base fee', { ...transfer, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }, viem.FeeCapTooLowError],
    ['insufficient funds', { ...transfer, value: 10n ** 30n }, viem.InsufficientFundsError],
  ];
  for (const [what, request, kind] of cases) {
    await check(`viem: sendTransaction with ${what} is refused as ${kind.name}, error -32000`, async () => {
      let error;
      await wallet.sendTransaction(request).catch((e) => { error = e; });
      assert(error, 'sent');
      const classified = error.walk((e) => e instanceof kind);
      const rpc = error.walk((e) => typeof e.code === 'number' && e.code < 0);
      assert(classified, `not a ${kind.name}: ${error.shortMessage}`);
      assert(rpc && rpc.code === -32000, `error code ${rpc && rpc.code}`);
      return rpc.details;
    });
  }
  await check('viem: a nonce ahead of the account\'s waits in the pool, queued, as in Anvil and geth', async () => {
    const hash = await wallet.sendTransaction({ ...transfer, nonce: used + 5 });
    const content = await client.request({ method: 'txpool_content' });
    const queued = Object.entries(content.queued).find(([sender]) => sender.toLowerCase() === local.address.toLowerCase());
    assert(queued && queued[1][`${used + 5}`] && queued[1][`${used + 5}`].hash === hash, `txpool_content ${JSON.stringify(content)}`);
    const dropped = await client.request({ method: 'anvil_dropTransaction', params: [hash] });
    assert(dropped === hash, `anvil_dropTransaction answered ${dropped}`);
    return `${hash} queued, then dropped`;
  });
  await check('viem: a refused transaction made no block', async () => {
    const after = await client.getTransactionCount({ address: local.address });
    assert(after === used, `nonce ${used} became ${after}`);
    return `nonce still ${after}`;
  });
  const token = deployed[0].token;
  await check('viem: simulateContract of a transfer beyond the balance reverts with its reason (error 3)', async () => {
    let error;
    await client.simulateContract({
      account: privateKeyToAccount(generatePrivateKey()).address, address: token, abi: ERC20.abi, functionName: 'transfer', args: [local.address, 1n],
    }).catch((e) => { error = e; });
    const reverted = error && error.walk((e) => e instanceof viem.ContractFunctionRevertedError);
    assert(reverted, `not a revert: ${error && error.shortMessage}`);
    assert(reverted.reason === 'ERC20: transfer amount exceeds balance', `reason ${reverted.reason}`);
    return reverted.reason;
  });
  const provider = new ethers.JsonRpcProvider(RPC_URL, 1, { staticNetwork: true });
  const signer = ethers.HDNodeWallet.fromPhrase(MNEMONIC, undefined, "m/44'/60'/0'/0/6").connect(provider);
  const expectCode = async (what, send, code) => check(`ethers: ${what} is ${code}`, async () => {
    let error;
    await send().catch((e) => { error = e; });
    assert(error && error.code === code, `${error && error.code}: ${error && error.message}`);
    return error.shortMessage;
  });
  await expectCode('a transaction with a used nonce', () => signer.sendTransaction({ to: signer.address, value: 1n, nonce: 0 }), 'NONCE_EXPIRED');
  await expectCode('a transaction worth more than the account', () => signer.sendTransaction({ to: signer.address, value: 10n ** 30n, gasLimit: 21000n }), 'INSUFFICIENT_FUNDS');
  await expectCode('a call that reverts', () => new ethers.Contract(token, ERC20.abi, provider).transfer.staticCall(signer.address, 1n, { from: ethers.Wallet.createRandom().address }), 'CALL_EXCEPTION');
}

async function withMoralis() {
  await Moralis.start({ apiKey: KEY, evmApiBaseUrl: `${BASE}/api/v2.2` });
  for (const d of deployed) {
    await check(`moralis-js: getWalletTokenBalancesPrice shows ${d.client}'s token with its own name, symbol, decimals`, async () => {
      const page = await Moralis.EvmApi.wallets.getWalletTokenBalancesPrice({ address: d.holder, chain: '0x1' });
      const row = page.result.find((t) => t.tokenAddress && t.tokenAddress.lowercase === d.token.toLowerCase());
      assert(row, `no row for ${d.token} in ${page.result.length} rows`);
      const balance = BigInt(row.balance.toString());
      assert(row.name === d.name && row.symbol === d.symbol && Number(row.decimals) === 18, `${row.name} ${row.symbol} ${row.decimals}`);
      assert(balance === d.balance, `balance ${balance}, expected ${d.balance}`);
      assert(row.possibleSpam === false, 'a user\'s token is not spam');
      return `${row.symbol}: ${balance}`;
    });
    await check(`moralis-js: getWalletNFTs shows ${d.client}'s ERC721 token 0`, async () => {
      const page = await Moralis.EvmApi.nft.getWalletNFTs({ address: d.holder, chain: '0x1' });
      const rows = page.result.filter((n) => n.tokenAddress.lowercase === d.nft.toLowerCase());
      assert(rows.length === 1, `${rows.length} rows of ${d.nft}`);
      const [row] = rows;
      assert(row.name === d.collection && row.contractType === 'ERC721' && `${row.tokenId}` === '0', `${row.name} ${row.contractType} ${row.tokenId}`);
      return `${row.name} #${row.tokenId}, ${row.tokenUri}`;
    });
  }
}

async function main() {
  await withViem();
  await withEthers();
  await refusals();
  await withMoralis();
}

main().catch(fatal).finally(done);
