// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

interface IERC721Transfer {
    function transferFrom(address from, address to, uint256 tokenId) external;
}

interface IERC20Payment {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// An NFT marketplace of fixed-price listings: a holder lists a token (and
/// approves the marketplace for it); a buyer pays the listed price, in the
/// native currency or in the listed ERC20, and receives the token. Each
/// sale is a `Sale` event, from which wallet answers read last sales and
/// floors.
contract Marketplace {
    struct Listing {
        address seller;
        address paymentToken;
        uint256 price;
    }

    mapping(address => mapping(uint256 => Listing)) public listings;

    event Listed(address indexed collection, uint256 indexed tokenId, address indexed seller, address paymentToken, uint256 price);
    event Sale(
        address indexed collection,
        uint256 indexed tokenId,
        address indexed buyer,
        address seller,
        address paymentToken,
        uint256 price
    );

    error NotListed(address collection, uint256 tokenId);
    error ListingChanged(address seller, address paymentToken, uint256 price);
    error WrongPayment(uint256 sent, uint256 price);
    error PaymentFailed(address to, uint256 amount);

    function list(address collection, uint256 tokenId, address paymentToken, uint256 price) external {
        listings[collection][tokenId] = Listing(msg.sender, paymentToken, price);
        emit Listed(collection, tokenId, msg.sender, paymentToken, price);
    }

    /// Buys the listed token; the seller, currency and price must be those
    /// of the listing, so that a buyer never pays what they did not see.
    function buy(address collection, uint256 tokenId, address seller, address paymentToken, uint256 price)
        external
        payable
    {
        Listing memory listing = listings[collection][tokenId];
        if (listing.seller == address(0)) revert NotListed(collection, tokenId);
        if (listing.seller != seller || listing.paymentToken != paymentToken || listing.price != price) {
            revert ListingChanged(listing.seller, listing.paymentToken, listing.price);
        }
        delete listings[collection][tokenId];
        if (paymentToken == address(0)) {
            if (msg.value != price) revert WrongPayment(msg.value, price);
            (bool paid,) = seller.call{value: price}("");
            if (!paid) revert PaymentFailed(seller, price);
        } else {
            if (msg.value != 0) revert WrongPayment(msg.value, 0);
            if (!IERC20Payment(paymentToken).transferFrom(msg.sender, seller, price)) revert PaymentFailed(seller, price);
        }
        IERC721Transfer(collection).transferFrom(seller, msg.sender, tokenId);
        emit Sale(collection, tokenId, msg.sender, seller, paymentToken, price);
    }
}
