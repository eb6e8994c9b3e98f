"""web3.py over the gateway's WebSocket: AsyncWeb3(WebSocketProvider(ws://HOST/eth/KEY)),
eth.subscribe("newHeads") heard through the provider's subscription stream for a
block made by evm_mine, compared with the raw HTTP answer for the same block, then
eth.unsubscribe."""

from __future__ import annotations

import asyncio
import sys

from web3 import AsyncWeb3, Web3, WebSocketProvider

from pylib import RPC_URL, Runner, raw_result

WS_URL = RPC_URL.replace("http://", "ws://", 1)
r = Runner("web3.py-ws")


async def new_heads() -> str:
    async with AsyncWeb3(WebSocketProvider(WS_URL)) as w3:
        assert await w3.eth.chain_id == 1, "eth_chainId over the socket"
        subscription = await w3.eth.subscribe("newHeads")
        # The raw call is blocking; the subscription exists before it.
        await asyncio.to_thread(raw_result, "evm_mine")

        async def first():
            async for message in w3.socket.process_subscriptions():
                return message

        message = await asyncio.wait_for(first(), timeout=20)
        assert message["subscription"] == subscription, f"{message['subscription']} is not {subscription}"
        header = message["result"]
        assert await w3.eth.unsubscribe(subscription) is True, "unsubscribe answers true"
    raw = raw_result("eth_getBlockByNumber", [hex(header["number"]), False])
    for field in ("hash", "parentHash", "stateRoot"):
        assert Web3.to_hex(header[field]) == raw[field], f"{field}: {Web3.to_hex(header[field])} is not {raw[field]}"
    return f"block {header['number']}"


def main() -> int:
    r.check("eth_subscribe newHeads: eth.subscribe, socket.process_subscriptions, eth.unsubscribe",
            lambda: asyncio.run(new_heads()))
    return r.done()


if __name__ == "__main__":
    sys.exit(main())
