#!/usr/bin/env node
// A node that limits its request rate, for the node-mode check: a proxy on
// 127.0.0.1 (a port the system picks) in front of a node, which answers
// every other request with HTTP 429 and passes the rest on. Hosted
// endpoints refuse this way when a client asks faster than its plan.
//
//   throttle-proxy.cjs --rpc NODE_URL
//
// Prints `Listening on http://127.0.0.1:PORT` once it listens, and on
// SIGTERM `throttle-proxy: N passed on, M refused` before it exits.
'use strict';

const http = require('node:http');
const { parseArgs, required } = require('./lib.cjs');

const args = parseArgs(process.argv.slice(2));
required(args, 'rpc');
const upstream = new URL(args.rpc);
let passed = 0;
let refused = 0;
let turn = 0;

const server = http.createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    turn += 1;
    if (turn % 2 === 0) {
      refused += 1;
      response.writeHead(429, { 'content-type': 'text/plain' });
      response.end('Too Many Requests');
      return;
    }
    passed += 1;
    const forward = http.request(
      upstream,
      { method: 'POST', headers: { 'content-type': 'application/json' } },
      (answer) => {
        response.writeHead(answer.statusCode, { 'content-type': answer.headers['content-type'] ?? 'application/json' });
        answer.pipe(response);
      },
    );
    forward.on('error', (error) => {
      response.writeHead(502, { 'content-type': 'text/plain' });
      response.end(`the node did not answer: ${error.message}`);
    });
    forward.end(Buffer.concat(chunks));
  });
});

server.listen(0, '127.0.0.1', () => {
  const { address, port } = server.address();
  console.log(`Listening on http://${address}:${port}`);
});

process.on('SIGTERM', () => {
  console.log(`throttle-proxy: ${passed} passed on, ${refused} refused`);
  process.exit(0);
});
