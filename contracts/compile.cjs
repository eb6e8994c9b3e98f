// Compiles src/*.sol with the pinned solc (solc-js, from npm) and writes one
// artifact per deployable contract: its ABI and creation bytecode. Run by
// `cargo xtask contracts`, which says where solc is and where artifacts go:
//
//   node compile.cjs <node_modules dir> <output dir>
//
// Warnings fail the build as errors do: a contract the devnet deploys
// should compile cleanly.
'use strict';

const fs = require('fs');
const path = require('path');

const [modules, out] = process.argv.slice(2);
if (!modules || !out) {
  console.error('usage: node compile.cjs <node_modules dir> <output dir>');
  process.exit(2);
}
const solc = require(path.join(path.resolve(modules), 'solc'));

// What the devnet deploys; the other sources are their parts.
const DEPLOYED = ['Token', 'WrappedNative', 'Collectible', 'MultiToken', 'Pair', 'Factory', 'Router', 'Marketplace'];
const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'prague',
  // No metadata hash in the bytecode: the same sources give the same bytes
  // wherever they are compiled.
  metadata: { bytecodeHash: 'none', appendCBOR: false },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
};

const dir = path.join(__dirname, 'src');
const sources = {};
for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.sol')).sort()) {
  sources[file] = { content: fs.readFileSync(path.join(dir, file), 'utf8') };
}
const output = JSON.parse(solc.compile(JSON.stringify({ language: 'Solidity', sources, settings: SETTINGS })));
const problems = (output.errors || []).filter((e) => e.severity !== 'info');
for (const problem of problems) console.error(problem.formattedMessage);
if (problems.length > 0) process.exit(1);

fs.mkdirSync(out, { recursive: true });
for (const name of DEPLOYED) {
  const compiled = output.contracts[`${name}.sol`] && output.contracts[`${name}.sol`][name];
  if (!compiled) {
    console.error(`${name}.sol does not define contract ${name}`);
    process.exit(1);
  }
  const artifact = {
    generatedBy: `cargo xtask contracts, from contracts/src/${name}.sol: do not edit`,
    contractName: name,
    compiler: `solc ${solc.version()}`,
    settings: { optimizer: SETTINGS.optimizer, evmVersion: SETTINGS.evmVersion },
    abi: compiled.abi,
    bytecode: `0x${compiled.evm.bytecode.object}`,
    deployedBytecode: `0x${compiled.evm.deployedBytecode.object}`,
  };
  fs.writeFileSync(path.join(out, `${name}.json`), `${JSON.stringify(artifact, null, 2)}\n`);
}
console.log(`compiled ${DEPLOYED.length} contracts with solc ${solc.version()}`);
