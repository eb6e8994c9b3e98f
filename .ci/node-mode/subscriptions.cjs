#!/usr/bin/env node
// WebSocket subscriptions in node mode, through reorganisations: `record`
// opens ws://API/eth/KEY, subscribes to newHeads and to every log, and
// writes each notification to a file as it comes, until it is stopped
// (SIGTERM). `verify` then reads the file back against the node:
//   - every header comes after its parent: its parentHash is the hash of
//     the header announced last at the height below (an announced branch
//     replaces what was announced above its fork point);
//   - the branch announced last is the node's chain, block by block;
//   - the logs announced, minus those announced again with removed: true
//     (each removal of a log that was announced and live), are exactly
//     the node's eth_getLogs over the blocks announced, field by field;
//   - a reorganisation was seen: some log came back removed.
//
//   subscriptions.cjs record --api W3API_URL --key KEY --out FILE
//   subscriptions.cjs verify --rpc NODE_URL --file FILE
'use strict';

const fs = require('node:fs');
const WebSocket = require('ws');
const { Rpc, Tally, fail, parseArgs, required } = require('./lib.cjs');

const LOG_FIELDS = ['address', 'topics', 'data', 'blockNumber', 'blockHash', 'transactionHash', 'transactionIndex', 'logIndex'];

function record(args) {
  required(args, 'api', 'key', 'out');
  const url = `${args.api.replace(/^http/, 'ws').replace(/\/+$/, '')}/eth/${args.key}`;
  const out = fs.openSync(args.out, 'w');
  const socket = new WebSocket(url);
  const kinds = new Map();
  socket.on('open', () => {
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_subscribe', params: ['logs', {}] }));
  });
  socket.on('message', (data) => {
    const message = JSON.parse(data.toString());
    if (message.id === 1 || message.id === 2) {
      if (message.error) fail(new Error(`eth_subscribe: ${JSON.stringify(message.error)}`));
      kinds.set(message.result, message.id === 1 ? 'head' : 'log');
      if (kinds.size === 2) console.log('subscribed');
      return;
    }
    const kind = kinds.get(message.params && message.params.subscription);
    if (!kind) fail(new Error(`a notification of no subscription: ${data}`));
    fs.writeSync(out, JSON.stringify({ kind, result: message.params.result }) + '\n');
  });
  socket.on('close', (code, reason) => fail(new Error(`the server closed the socket: ${code} ${reason}`)));
  socket.on('error', fail);
  process.on('SIGTERM', () => {
    fs.closeSync(out);
    process.exit(0);
  });
}

async function verify(args) {
  required(args, 'rpc', 'file');
  const node = new Rpc(args.rpc);
  const tally = new Tally();
  const notes = fs.readFileSync(args.file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  const announced = new Map(); // height -> hash, the branch announced last
  const live = new Map(); // blockHash:logIndex -> log
  let removed = 0;
  let heads = 0;
  for (const { kind, result } of notes) {
    if (kind === 'head') {
      heads++;
      const number = Number(result.number);
      for (const height of [...announced.keys()]) if (height >= number) announced.delete(height);
      if (announced.has(number - 1)) tally.eq(`header ${number}`, 'parentHash', announced.get(number - 1), result.parentHash);
      announced.set(number, result.hash);
      continue;
    }
    const key = `${result.blockHash}:${result.logIndex}`;
    if (result.removed) {
      removed++;
      tally.ok(live.has(key), `removed log ${key}`, 'was announced and live', true, live.has(key));
      live.delete(key);
    } else {
      tally.ok(!live.has(key), `log ${key}`, 'announced once while live', false, live.has(key));
      live.set(key, result);
    }
  }
  tally.ok(heads > 0, 'newHeads', 'headers announced', '> 0', heads);
  tally.ok(removed > 0, 'logs', 'logs announced removed in a reorganisation', '> 0', removed);
  const heights = [...announced.keys()].sort((a, b) => a - b);
  const [first, last] = [heights[0], heights[heights.length - 1]];
  tally.eq('newHeads', 'the last announced head is the node\'s head', Number(await node.call('eth_blockNumber')), last);
  for (const height of heights) {
    const block = await node.call('eth_getBlockByNumber', ['0x' + height.toString(16), false]);
    tally.eq(`block ${height}`, 'hash as announced', block.hash, announced.get(height));
  }
  const logs = await node.call('eth_getLogs', [{ fromBlock: '0x' + first.toString(16), toBlock: '0x' + last.toString(16) }]);
  tally.eq('logs', 'live logs, as many as the node\'s', logs.length, [...live.values()].filter((log) => Number(log.blockNumber) >= first).length);
  for (const log of logs) {
    const got = live.get(`${log.blockHash}:${log.logIndex}`);
    const where = `log ${log.blockHash}:${log.logIndex}`;
    if (!tally.ok(got !== undefined, where, 'announced', 'a log', got)) continue;
    for (const field of LOG_FIELDS) tally.eq(where, field, JSON.stringify(log[field]).toLowerCase(), JSON.stringify(got[field]).toLowerCase());
  }
  console.log(`subscriptions: ${heads} headers, ${notes.length - heads} log notifications (${removed} removed) over blocks ${first}-${last}`);
  console.log(`subscriptions: ${tally.passed} passed, ${tally.failed} failed`);
  process.exitCode = tally.failed ? 1 : 0;
}

const [mode, ...rest] = process.argv.slice(2);
const args = parseArgs(rest);
if (mode === 'record') record(args);
else if (mode === 'verify') verify(args).catch(fail);
else fail(new Error('usage: subscriptions.cjs record|verify ...'));
