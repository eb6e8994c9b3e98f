#!/usr/bin/env node
// The second independent node of the node-mode check: Ganache 7 on
// 127.0.0.1, on a port the system picks (its command line refuses port 0,
// its server API does not). It prints `Listening on http://127.0.0.1:PORT`
// once it answers, and runs until it is stopped.
//
// It is set up as the Hardhat node is (hardhat.config.cjs), so that the
// same scripts drive both: the Hardhat test mnemonic's first 20 accounts
// with 10,000 ETH each, a block mined for each transaction before its hash
// is returned, enough gas for a transaction sent without, and reverts as
// errors of the call that caused them. The
// chain id is Ganache's own, 1337.
'use strict';

const ganache = require('ganache');

const server = ganache.server({
  chain: { chainId: 1337, vmErrorsOnRPCResponse: true },
  wallet: { mnemonic: 'test test test test test test test test test test test junk', totalAccounts: 20, defaultBalance: 10_000 },
  // A transaction sent without gas may use up to 12M (Ganache's own default
  // is 90,000, and its estimates fall short for some swaps).
  miner: { instamine: 'eager', defaultTransactionGasLimit: 12_000_000 },
  logging: { quiet: true },
});

server
  .listen(0, '127.0.0.1')
  .then(() => {
    const { address, port } = server.address();
    console.log(`Listening on http://${address}:${port}`);
  })
  .catch((error) => {
    console.error(`ganache: ${error.message}`);
    process.exit(1);
  });

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close().then(() => process.exit(0)));
