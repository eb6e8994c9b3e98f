// The independent node of the node-mode check: Hardhat Network (Hardhat 2,
// EDR) behind `hardhat node`, on chain id 31337, mining a block for each
// transaction. .ci/node-mode.sh copies this file next to the installed
// node_modules (Hardhat runs from the project its config is in) and passes
// --hostname 127.0.0.1 and a free port. Nothing is compiled: the contracts
// come from the build artifacts of npm packages (see deploy.cjs).
module.exports = {
  networks: {
    hardhat: {
      chainId: 31337,
      // Automine: each transaction is mined into a block of its own as it
      // arrives; bench-chain.cjs turns it off to put many in one block.
      mining: { auto: true, interval: 0 },
      // The default test mnemonic's first 20 accounts, 10,000 ETH each.
      accounts: { count: 20 },
      // No request log on stdout: the benchmark chain sends thousands.
      loggingEnabled: false,
      // Reverts are errors of eth_sendTransaction, so a script sees them at once.
      throwOnTransactionFailures: true,
      throwOnCallFailures: true,
    },
  },
  paths: {
    // Keep Hardhat's own folders inside the install directory.
    cache: './hardhat-cache',
    artifacts: './hardhat-artifacts',
    sources: './hardhat-sources',
  },
};
