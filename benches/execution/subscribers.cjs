'use strict';
// WebSocket subscribers under a stream of blocks: SUBSCRIBERS sockets, each
// subscribed to newHeads and to the token's logs, while a block with one
// transfer of the token (one log) is made every INTERVAL ms, BLOCKS times.
// A block's delivery time is when a subscriber read its notification, from
// the moment the send that made the block was answered (the block was made
// by then). With STALLED=1, one more socket subscribes to newHeads 1,000
// times over and never reads: it must not move the others' figures, and
// the server must close it (1008) rather than hold what it cannot send.
//
//   node subscribers.cjs WS_URL HTTP_URL TOKEN HOLDER
//   SUBSCRIBERS=1000 BLOCKS=100 INTERVAL=100 STALLED=1 node subscribers.cjs …
// Prints one line of JSON.
const WebSocket = require('ws');
const { ethers } = require('ethers');

const [wsUrl, httpUrl, token, holder] = process.argv.slice(2);
const SUBSCRIBERS = Number(process.env.SUBSCRIBERS || 1000);
const BLOCKS = Number(process.env.BLOCKS || 100);
const INTERVAL = Number(process.env.INTERVAL || 100);
const STALLED = process.env.STALLED === '1';

const made = new Map(); // block number -> when the send that made it was answered
const heads = [];
const logs = [];

async function rpc(method, params) {
  const response = await fetch(httpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = await response.json();
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** A socket with its subscriptions made; `recorded`: whether its notifications count. */
function open(subscriptions, recorded = true) {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(wsUrl);
    const kinds = new Map();
    socket.on('open', () => {
      subscriptions.forEach((params, id) => socket.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_subscribe', params })));
    });
    socket.on('message', (data) => {
      const now = performance.now();
      const message = JSON.parse(data);
      if (message.id !== undefined) {
        if (message.error) return reject(new Error(JSON.stringify(message.error)));
        kinds.set(message.result, subscriptions[message.id][0]);
        if (kinds.size === subscriptions.length) resolve(socket);
        return;
      }
      if (!recorded) return;
      const { subscription, result } = message.params;
      const number = Number(kinds.get(subscription) === 'newHeads' ? result.number : result.blockNumber);
      (kinds.get(subscription) === 'newHeads' ? heads : logs).push({ number, at: now });
    });
    socket.on('error', reject);
  });
}

function percentile(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] : NaN;
}

function summary(events) {
  const delays = events.filter((e) => made.has(e.number)).map((e) => e.at - made.get(e.number)).sort((a, b) => a - b);
  const round = (v) => Math.round(v * 100) / 100;
  return { count: delays.length, p50: round(percentile(delays, 50)), p99: round(percentile(delays, 99)), max: round(delays[delays.length - 1]) };
}

async function main() {
  const sockets = [];
  for (let i = 0; i < SUBSCRIBERS; i += 50) {
    const batch = [];
    for (let j = i; j < Math.min(SUBSCRIBERS, i + 50); j++) batch.push(open([['newHeads'], ['logs', { address: token }]]));
    sockets.push(...(await Promise.all(batch)));
  }
  let stalled;
  let stalledClose;
  if (STALLED) {
    stalled = await open(Array.from({ length: 1000 }, () => ['newHeads']), false);
    stalledClose = new Promise((resolve) => stalled.on('close', (code, reason) => resolve({ code, reason: `${reason}` })));
    stalled._socket.pause();
  }
  const iface = new ethers.Interface(['function transfer(address to, uint256 value)']);
  const data = iface.encodeFunctionData('transfer', ['0x000000000000000000000000000000000000dEaD', 1n]);
  let head = Number(await rpc('eth_blockNumber', []));
  for (let i = 0; i < BLOCKS; i++) {
    const started = performance.now();
    await rpc('eth_sendTransaction', [{ from: holder, to: token, data, gas: '0x20000' }]);
    head += 1;
    made.set(head, performance.now());
    const left = INTERVAL - (performance.now() - started);
    if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
  let stalledOutcome = null;
  if (stalled) {
    stalled._socket.resume();
    stalledOutcome = await Promise.race([stalledClose, new Promise((resolve) => setTimeout(() => resolve('open'), 10000))]);
  }
  const expected = SUBSCRIBERS * BLOCKS;
  console.log(JSON.stringify({ subscribers: SUBSCRIBERS, blocks: BLOCKS, expected, heads: summary(heads), logs: summary(logs), stalled: stalledOutcome }));
  for (const socket of sockets) socket.terminate();
  if (stalled) stalled.terminate();
}

main().catch((e) => { console.error(e); process.exit(1); });
