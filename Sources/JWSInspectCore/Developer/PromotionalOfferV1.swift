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
        return verifies(derSignature: Array(der), with: key)
    }

    /// Whether a DER signature verifies over `signedString`.
    public func verifies(derSignature: [UInt8], with key: PublicKey) -> Bool {
        key.verifyDER(signature: derSignature, message: Array(signedString.utf8))
    }

    // MARK: Checking a signature given as text

    /// How long the App Store accepts a signature after its timestamp: 24 hours, in milliseconds.
    public static let lifetime: Int64 = 24 * 3600 * 1000

    /// The largest timestamp shown as a date: 9999-12-31T23:59:59.999Z.
    public static let maximumTimestamp: Int64 = 253_402_300_799_999

    /// The timestamp as a date.
    public var date: Date { Date(timeIntervalSince1970: Double(timestamp) / 1000) }

    /// Whether the timestamp is more than 24 hours before `now` (the App Store refuses it then).
    public func isOlderThanLifetime(at now: Date) -> Bool {
        let nowMilliseconds = (now.timeIntervalSince1970 * 1000).rounded(.down)
        return Double(timestamp) < nowMilliseconds - Double(Self.lifetime)
    }

    /// The DER bytes of a signature written as standard base64 (padding may be left off;
    /// whitespace around it is ignored), or why it is not one: not standard base64 (base64url
    /// is named), or not one DER ECDSA signature with r and s of at most 32 bytes.
    public static func derSignature(base64 text: String) -> Result<[UInt8], SignatureTextError> {
        let whitespace: Set<UInt8> = [0x20, 0x09, 0x0a, 0x0d]
        var bytes = Array(text.utf8.drop(while: whitespace.contains).reversed().drop(while: whitespace.contains))
        bytes.reverse()
        guard !bytes.isEmpty else { return .failure(.notBase64("it is empty")) }
        if bytes.contains(UInt8(ascii: "-")) || bytes.contains(UInt8(ascii: "_")) {
            return .failure(
                .notBase64("it has - or _: that is base64url; the V1 signature is standard base64 (+ and /)"))
        }
        let body = bytes.prefix { $0 != UInt8(ascii: "=") }
        let padding = bytes.count - body.count
        let alphabet = { (byte: UInt8) in
            (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte) || (0x30...0x39).contains(byte)
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
        }
        guard body.allSatisfy(alphabet), bytes.dropFirst(body.count).allSatisfy({ $0 == UInt8(ascii: "=") }),
            padding <= 2, body.count % 4 != 1, padding == 0 || bytes.count % 4 == 0
        else {
            return .failure(.notBase64("it has characters or padding standard base64 does not"))
        }
        let padded = String(decoding: body, as: UTF8.self) + String(repeating: "=", count: (4 - body.count % 4) % 4)
        guard let der = Data(base64Encoded: padded) else {
            return .failure(.notBase64("it does not decode as standard base64"))
        }
        guard PrivateKey.rawSignature(der: Array(der)) != nil else {
            let hint = der.count == 64 ? " (the r‖s form of a JWS signature? V1 signatures are DER)" : ""
            return .failure(.notDER("its \(der.count) bytes are not a DER ECDSA P-256 signature\(hint)"))
        }
        return .success(Array(der))
    }

    /// Why a signature's text is not a V1 signature.
    public enum SignatureTextError: Error, Equatable, Sendable, CustomStringConvertible {
        case notBase64(String)
        case notDER(String)

        public var description: String {
            switch self {
            case .notBase64(let why): "is not standard base64: \(why)"
            case .notDER(let why): "is not a DER signature: \(why)"
            }
        }
    }
}
