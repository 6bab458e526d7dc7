public import FoundationEssentials

/// The legacy (V1) promotional offer signature of StoreKit 1 (`SKPaymentDiscount`), exactly as
/// Apple's `PromotionalOfferSignatureCreator` makes it: ECDSA P-256 with SHA-256 over the UTF-8
/// of seven fields joined by U+2063 INVISIBLE SEPARATOR, DER-encoded, in standard base64.
public struct PromotionalOfferV1: Sendable, Equatable {
    /// U+2063 INVISIBLE SEPARATOR, between the fields.
    public static let separator = "\u{2063}"

    public var bundleID: String
    public var keyID: String
    public var productID: String
    public var offerID: String
    /// The `applicationUsername` (or appAccountToken); may be empty. Lowercased when signed.
    public var applicationUsername: String
    /// The one-time nonce; signed in lowercase.
    public var nonce: UUID
    /// UNIX milliseconds.
    public var timestamp: Int64

    public init(
        bundleID: String, keyID: String, productID: String, offerID: String, applicationUsername: String,
        nonce: UUID, timestamp: Int64
    ) {
        self.bundleID = bundleID
        self.keyID = keyID
        self.productID = productID
        self.offerID = offerID
        self.applicationUsername = applicationUsername
        self.nonce = nonce
        self.timestamp = timestamp
    }

    /// The nonce as signed and as the app passes it: lowercase.
    public var nonceText: String { nonce.uuidString.lowercased() }

    /// The string that is signed: bundle ID, key ID, product ID, offer ID, lowercased
    /// username, lowercased nonce and timestamp, joined by U+2063.
    public var signedString: String {
        [bundleID, keyID, productID, offerID, applicationUsername.lowercased(), nonceText, String(timestamp)]
            .joined(separator: Self.separator)
    }

    /// The signature: DER ECDSA P-256 SHA-256 over the UTF-8 of `signedString`, standard base64.
    public func signature(with key: PrivateKey) -> String {
        Data(key.signDER(Array(signedString.utf8))).base64EncodedString()
    }

    /// Whether `signature` (standard base64 of a DER signature) verifies over `signedString`.
    public func verifies(signature: String, with key: PublicKey) -> Bool {
        guard let der = Data(base64Encoded: signature) else { return false }
        return key.verifyDER(signature: Array(der), message: Array(signedString.utf8))
    }
}
