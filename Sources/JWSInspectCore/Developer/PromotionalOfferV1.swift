package import FoundationEssentials

/// The legacy (V1) promotional offer signature of StoreKit 1 (`SKPaymentDiscount`), exactly as
/// Apple's `PromotionalOfferSignatureCreator` makes it: ECDSA P-256 with SHA-256 over the UTF-8
/// of seven fields joined by U+2063 INVISIBLE SEPARATOR, DER-encoded, in standard base64.
package struct PromotionalOfferV1: Sendable, Equatable {
    /// U+2063 INVISIBLE SEPARATOR, between the fields.
    package static let separator = "\u{2063}"

    package var bundleID: String
    package var keyID: String
    package var productID: String
    package var offerID: String
    /// The `applicationUsername` (or appAccountToken); may be empty. Lowercased when signed.
    package var applicationUsername: String
    /// The one-time nonce; signed in lowercase.
    package var nonce: UUID
    /// UNIX milliseconds.
    package var timestamp: Int64

    package init(
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
    package var nonceText: String { nonce.uuidString.lowercased() }

    /// The string that is signed: bundle ID, key ID, product ID, offer ID, lowercased
    /// username, lowercased nonce and timestamp, joined by U+2063.
    package var signedString: String {
        [bundleID, keyID, productID, offerID, applicationUsername.lowercased(), nonceText, String(timestamp)]
            .joined(separator: Self.separator)
    }

    /// The signature: DER ECDSA P-256 SHA-256 over the UTF-8 of `signedString`, standard base64.
    package func signature(with key: PrivateKey) throws(PrivateKey.SigningError) -> String {
        Data(try key.signDER(Array(signedString.utf8))).base64EncodedString()
    }

    /// Whether `signature` (standard base64 of a DER signature) verifies over `signedString`.
    package func verifies(signature: String, with key: PublicKey) -> Bool {
        guard let der = Data(base64Encoded: signature) else { return false }
        return verifies(derSignature: Array(der), with: key)
    }

    /// Whether a DER signature verifies over `signedString`.
    package func verifies(derSignature: [UInt8], with key: PublicKey) -> Bool {
        key.verifyDER(signature: derSignature, message: Array(signedString.utf8))
    }

    // MARK: Checking a signature given as text

    /// How long the App Store accepts a signature after its timestamp: 24 hours, in milliseconds.
    package static let lifetime: Int64 = 24 * 3600 * 1000

    /// The largest timestamp shown as a date: 9999-12-31T23:59:59.999Z.
    package static let maximumTimestamp: Int64 = 253_402_300_799_999

    /// The timestamp as a date.
    package var date: Date { Date(timeIntervalSince1970: Double(timestamp) / 1000) }

    /// Whether the timestamp is more than 24 hours before `now` (the App Store refuses it then).
    package func isOlderThanLifetime(at now: Date) -> Bool {
        let nowMilliseconds = (now.timeIntervalSince1970 * 1000).rounded(.down)
        return Double(timestamp) < nowMilliseconds - Double(Self.lifetime)
    }

    /// The DER bytes of a signature written as standard base64 (padding may be left off;
    /// whitespace around it is ignored), or why it is not one: not standard base64 (saying which
    /// alphabet it is in: URL-safe, both, or characters of none), or not one DER ECDSA signature
    /// with r and s of at most 32 bytes.
    package static func derSignature(base64 text: String) -> Result<[UInt8], SignatureTextError> {
        let whitespace: Set<UInt8> = [0x20, 0x09, 0x0a, 0x0d]
        var bytes = Array(text.utf8.drop(while: whitespace.contains).reversed().drop(while: whitespace.contains))
        bytes.reverse()
        guard !bytes.isEmpty else { return .failure(.notBase64("it is empty")) }
        if let problem = alphabetProblem(bytes) ?? paddingProblem(bytes) { return .failure(.notBase64(problem)) }
        let body = bytes.prefix { $0 != UInt8(ascii: "=") }
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

    /// Which alphabet `bytes` are in when it is not standard base64's (A–Z, a–z, 0–9, `+`, `/`,
    /// and `=` to pad): a character of no base64 alphabet (named, with its position), URL-safe
    /// base64's `-` and `_` (StoreKit takes standard base64 only), or both alphabets mixed.
    static func alphabetProblem(_ bytes: [UInt8]) -> String? {
        let standard = { (byte: UInt8) in
            (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte) || (0x30...0x39).contains(byte)
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "=")
        }
        let urlSafe: Set<UInt8> = [UInt8(ascii: "-"), UInt8(ascii: "_")]
        if let offset = bytes.firstIndex(where: { !standard($0) && !urlSafe.contains($0) }) {
            let text = String(decoding: bytes, as: UTF8.self)
            let before = String(decoding: bytes[..<offset], as: UTF8.self).unicodeScalars.count
            let scalar = text.unicodeScalars.dropFirst(before).first ?? "\u{FFFD}"
            return "it has \(describe(scalar)) (character \(before + 1)), which no base64 alphabet has"
        }
        guard bytes.contains(where: urlSafe.contains) else { return nil }
        if bytes.contains(UInt8(ascii: "+")) || bytes.contains(UInt8(ascii: "/")) {
            return "it mixes URL-safe base64's - and _ with standard base64's + and /"
        }
        return "it is URL-safe base64 (base64url: - and _ where standard base64 has + and /), which StoreKit "
            + "refuses; convert it with tr '_-' '/+'"
    }

    /// What is wrong with the padding and length of base64 text, if anything.
    static func paddingProblem(_ bytes: [UInt8]) -> String? {
        let body = bytes.prefix { $0 != UInt8(ascii: "=") }
        let padding = bytes.count - body.count
        if bytes[body.count...].contains(where: { $0 != UInt8(ascii: "=") }) {
            return "it has = at character \(body.count + 1), before its end: = only pads the end"
        }
        if padding > 2 { return "it ends with \(padding) =, and base64 pads with at most 2" }
        if body.count % 4 == 1 { return "its \(body.count) characters are a length no base64 text has" }
        if padding > 0 && bytes.count % 4 != 0 {
            return "it is padded to \(bytes.count) characters, not a multiple of 4"
        }
        return nil
    }

    /// A character for a message: itself when it is visible ASCII, else its name or code point.
    private static func describe(_ scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x20: return "a space"
        case 0x09: return "a tab"
        case 0x0a, 0x0d: return "a line break"
        case 0x21...0x7e: return "'\(Character(scalar))'"
        default:
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
    }

    /// Why a signature's text is not a V1 signature.
    package enum SignatureTextError: Error, Equatable, Sendable, CustomStringConvertible {
        case notBase64(String)
        case notDER(String)

        package var description: String {
            switch self {
            case .notBase64(let why): "is not standard base64: \(why)"
            case .notDER(let why): "is not a DER signature: \(why)"
            }
        }
    }
}
