'use strict';
// Deploys OpenZeppelin's ERC20PresetMinterPauser (its npm build artifact)
// from the node's first account (eth_sendTransaction: Hardhat and w3api
// both hold the standard test mnemonic's keys), mints to that account, and
// prints "TOKEN HOLDER" for the load runs.
//   node deploy.cjs RPC_URL
const { ethers } = require('ethers');
const ERC20 = require('@openzeppelin/contracts/build/contracts/ERC20PresetMinterPauser.json');

async function main() {
  const provider = new ethers.JsonRpcProvider(process.argv[2], undefined, { staticNetwork: true });
  provider.pollingInterval = 50;
  const [first] = await provider.send('eth_accounts', []);
  const signer = await provider.getSigner(first);
  const token = await new ethers.ContractFactory(ERC20.abi, ERC20.bytecode, signer).deploy('Bench', 'BNCH');
  await token.waitForDeployment();
  await (await token.mint(first, 10n ** 24n)).wait();
  console.log(`${await token.getAddress()} ${first}`);
}

main().catch((e) => { console.error(e); process.exit(1); });
