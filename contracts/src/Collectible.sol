// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Owned} from "./Owned.sol";
import {Decimal} from "./Decimal.sol";
import {IERC721Receiver} from "./Receivers.sol";

/// An ERC721 collection anyone mints from, as an open drop; a token's URI is
/// the collection's base URI, the token id in decimal, and ".json".
contract Collectible is Owned {
    string public name;
    string public symbol;
    string private baseURI;
    uint256 public totalSupply;
    mapping(uint256 => address) private owners;
    mapping(address => uint256) public balanceOf;
    mapping(uint256 => address) public getApproved;
    mapping(address => mapping(address => bool)) public isApprovedForAll;

    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId);
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);

    error NoSuchToken(uint256 tokenId);
    error TokenExists(uint256 tokenId);
    error NotAllowed(address caller, uint256 tokenId);
    error WrongOwner(address from, uint256 tokenId);
    error ZeroAddress();
    error NotAReceiver(address to);

    constructor(string memory name_, string memory symbol_, string memory baseURI_, address owner_) Owned(owner_) {
        name = name_;
        symbol = symbol_;
        baseURI = baseURI_;
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        // ERC165, ERC721, ERC721Metadata.
        return interfaceId == 0x01ffc9a7 || interfaceId == 0x80ac58cd || interfaceId == 0x5b5e139f;
    }

    function ownerOf(uint256 tokenId) public view returns (address) {
        address holder = owners[tokenId];
        if (holder == address(0)) revert NoSuchToken(tokenId);
        return holder;
    }

    function tokenURI(uint256 tokenId) external view returns (string memory) {
        ownerOf(tokenId);
        return string.concat(baseURI, Decimal.text(tokenId), ".json");
    }

    function approve(address to, uint256 tokenId) external {
        address holder = ownerOf(tokenId);
        if (msg.sender != holder && !isApprovedForAll[holder][msg.sender]) revert NotAllowed(msg.sender, tokenId);
        getApproved[tokenId] = to;
        emit Approval(holder, to, tokenId);
    }

    function setApprovalForAll(address operator, bool approved) external {
        isApprovedForAll[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function safeMint(address to, uint256 tokenId) external {
        if (to == address(0)) revert ZeroAddress();
        if (owners[tokenId] != address(0)) revert TokenExists(tokenId);
        owners[tokenId] = to;
        unchecked {
            balanceOf[to] += 1;
            totalSupply += 1;
        }
        emit Transfer(address(0), to, tokenId);
        _checkReceiver(address(0), to, tokenId, "");
    }

    function transferFrom(address from, address to, uint256 tokenId) public {
        address holder = ownerOf(tokenId);
        if (holder != from) revert WrongOwner(from, tokenId);
        if (to == address(0)) revert ZeroAddress();
        bool allowed = msg.sender == holder || isApprovedForAll[holder][msg.sender] || getApproved[tokenId] == msg.sender;
        if (!allowed) revert NotAllowed(msg.sender, tokenId);
        delete getApproved[tokenId];
        owners[tokenId] = to;
        unchecked {
            balanceOf[from] -= 1;
            balanceOf[to] += 1;
        }
        emit Transfer(from, to, tokenId);
    }

    function safeTransferFrom(address from, address to, uint256 tokenId) external {
        safeTransferFrom(from, to, tokenId, "");
    }

    function safeTransferFrom(address from, address to, uint256 tokenId, bytes memory data) public {
        transferFrom(from, to, tokenId);
        _checkReceiver(from, to, tokenId, data);
    }

    function _checkReceiver(address from, address to, uint256 tokenId, bytes memory data) private {
        if (to.code.length == 0) return;
        try IERC721Receiver(to).onERC721Received(msg.sender, from, tokenId, data) returns (bytes4 answer) {
            if (answer != IERC721Receiver.onERC721Received.selector) revert NotAReceiver(to);
        } catch {
            revert NotAReceiver(to);
        }
    }
}
