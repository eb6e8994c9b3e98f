// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Owned} from "./Owned.sol";
import {IERC1155Receiver} from "./Receivers.sol";

/// An ERC1155 collection anyone mints from, as an open drop; `uri` is one template for every
/// id, with `{id}` for clients to replace, as the standard has it.
contract MultiToken is Owned {
    string public name;
    string public symbol;
    string private template;
    mapping(uint256 => mapping(address => uint256)) private balances;
    mapping(address => mapping(address => bool)) public isApprovedForAll;

    event TransferSingle(
        address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value
    );
    event TransferBatch(
        address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values
    );
    event ApprovalForAll(address indexed account, address indexed operator, bool approved);
    event URI(string value, uint256 indexed id);

    error NotAllowed(address caller, address from);
    error InsufficientBalance(address holder, uint256 id, uint256 balance, uint256 needed);
    error LengthMismatch(uint256 ids, uint256 values);
    error ZeroAddress();
    error NotAReceiver(address to);

    constructor(string memory name_, string memory symbol_, string memory template_, address owner_) Owned(owner_) {
        name = name_;
        symbol = symbol_;
        template = template_;
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        // ERC165, ERC1155, ERC1155MetadataURI.
        return interfaceId == 0x01ffc9a7 || interfaceId == 0xd9b67a26 || interfaceId == 0x0e89341c;
    }

    function uri(uint256) external view returns (string memory) {
        return template;
    }

    function balanceOf(address account, uint256 id) external view returns (uint256) {
        return balances[id][account];
    }

    function balanceOfBatch(address[] calldata accounts, uint256[] calldata ids)
        external
        view
        returns (uint256[] memory amounts)
    {
        if (accounts.length != ids.length) revert LengthMismatch(ids.length, accounts.length);
        amounts = new uint256[](accounts.length);
        for (uint256 i = 0; i < accounts.length; i++) {
            amounts[i] = balances[ids[i]][accounts[i]];
        }
    }

    function setApprovalForAll(address operator, bool approved) external {
        isApprovedForAll[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function mint(address to, uint256 id, uint256 amount, bytes calldata data) external {
        if (to == address(0)) revert ZeroAddress();
        balances[id][to] += amount;
        emit TransferSingle(msg.sender, address(0), to, id, amount);
        _checkReceiver(address(0), to, id, amount, data);
    }

    function safeTransferFrom(address from, address to, uint256 id, uint256 amount, bytes calldata data) external {
        _authorize(from, to);
        _move(from, to, id, amount);
        emit TransferSingle(msg.sender, from, to, id, amount);
        _checkReceiver(from, to, id, amount, data);
    }

    function safeBatchTransferFrom(
        address from,
        address to,
        uint256[] calldata ids,
        uint256[] calldata amounts,
        bytes calldata data
    ) external {
        _authorize(from, to);
        if (ids.length != amounts.length) revert LengthMismatch(ids.length, amounts.length);
        for (uint256 i = 0; i < ids.length; i++) {
            _move(from, to, ids[i], amounts[i]);
        }
        emit TransferBatch(msg.sender, from, to, ids, amounts);
        if (to.code.length == 0) return;
        try IERC1155Receiver(to).onERC1155BatchReceived(msg.sender, from, ids, amounts, data) returns (bytes4 answer) {
            if (answer != IERC1155Receiver.onERC1155BatchReceived.selector) revert NotAReceiver(to);
        } catch {
            revert NotAReceiver(to);
        }
    }

    function _authorize(address from, address to) private view {
        if (to == address(0)) revert ZeroAddress();
        if (msg.sender != from && !isApprovedForAll[from][msg.sender]) revert NotAllowed(msg.sender, from);
    }

    function _move(address from, address to, uint256 id, uint256 amount) private {
        uint256 balance = balances[id][from];
        if (balance < amount) revert InsufficientBalance(from, id, balance, amount);
        unchecked {
            balances[id][from] = balance - amount;
        }
        balances[id][to] += amount;
    }

    function _checkReceiver(address from, address to, uint256 id, uint256 amount, bytes calldata data) private {
        if (to.code.length == 0) return;
        try IERC1155Receiver(to).onERC1155Received(msg.sender, from, id, amount, data) returns (bytes4 answer) {
            if (answer != IERC1155Receiver.onERC1155Received.selector) revert NotAReceiver(to);
        } catch {
            revert NotAReceiver(to);
        }
    }
}
