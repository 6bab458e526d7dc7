internal import COpenSSL

/// A private key: a P-256 App Store Connect In-App Purchase key (`AuthKey_<KEYID>.p8`, loaded
/// by `KeyFile`) that developer tokens and legacy offer signatures are signed with, or a key
/// `jwsinspect mint` generates for its test CA (EC P-256 or P-384, RSA for receipt chains).
///
/// The key material never leaves OpenSSL: no property, description or error shows it
/// (`description` and the mirror name only the kind of key).
///
/// `@unchecked Sendable`: the `EVP_PKEY` is never mutated after init, and OpenSSL 3 allows
/// concurrent signing with one key.
package final class PrivateKey: @unchecked Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    private let pointer: OpaquePointer
    /// The public half.
    package let publicKey: PublicKey

    /// Why OpenSSL did not sign: the function that failed and OpenSSL's error queue.
    package struct SigningError: Error, Sendable, CustomStringConvertible {
        package let description: String
        /// OpenSSL's error queue when the failing call was OpenSSL's, as data (empty otherwise).
        package var openSSLErrors: [OpenSSLError.Entry] = []
    }

    /// Takes ownership of an `EVP_PKEY*` holding a private key; nil (the key freed) when its
    /// public half cannot be encoded.
    package init?(taking pointer: OpaquePointer) {
        self.pointer = pointer
        guard let der = DER.encode({ i2d_PUBKEY(pointer, $0) }), let publicKey = PublicKey(subjectPublicKeyInfo: der)
        else {
            OpenSSLError.drain()
            EVP_PKEY_free(pointer)
            return nil
        }
        self.publicKey = publicKey
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// Calls `body` with the key's `EVP_PKEY*`, for this package's modules that hand it to
    /// OpenSSL (`X509_sign`, `CMS_add1_signer`). The pointer is valid only while `body` runs
    /// (the key is kept alive until it returns) and must not escape it.
    package func withUnsafeKeyPointer<Result, Failure: Error>(
        _ body: (OpaquePointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        defer { withExtendedLifetime(self) {} }
        return try body(pointer)
    }

    package var description: String { "\(publicKey.summary) private key" }
    package var debugDescription: String { description }
    package var customMirror: Mirror { Mirror(self, children: ["key": description]) }

    /// An ES256 signature (ECDSA P-256 with SHA-256) over `message`, in the JWS form: the
    /// 64 bytes `r || s`, each left-padded to 32 bytes (RFC 7518 §3.4).
    package func signES256(_ message: [UInt8]) throws(SigningError) -> [UInt8] {
        guard publicKey.curveName == "prime256v1" else {
            throw SigningError(description: "ES256 needs a P-256 key, this is a \(description)")
        }
        guard let raw = Self.rawSignature(der: try signDER(message)) else {
            throw SigningError(description: "OpenSSL's ECDSA signature did not decode")
        }
        return raw
    }

    /// An ECDSA signature over `message` hashed with `digest` (default SHA-256), DER-encoded
    /// (`ECDSA-Sig-Value`) as OpenSSL makes it: the form of the legacy (V1) promotional offer
    /// signature. With an RSA key, a PKCS#1 v1.5 signature.
    package func signDER(_ message: [UInt8], digest: SignatureDigest = .sha256) throws(SigningError) -> [UInt8] {
        func failure(_ what: String) -> SigningError {
            let entries = OpenSSLError.drainEntries()
            let detail = OpenSSLError.describe(entries, or: "no detail")
            return SigningError(description: "\(what) failed: \(detail)", openSSLErrors: entries)
        }
        guard let context = EVP_MD_CTX_new() else { throw failure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, digest.md, nil, pointer) == 1 else {
            throw failure("EVP_DigestSignInit")
        }
        // A one-byte stand-in keeps the data pointer non-NULL for an empty message.
        let input = message.isEmpty ? [0] : message
        return try input.withUnsafeBufferPointer { data throws(SigningError) -> [UInt8] in
            var length = 0
            guard EVP_DigestSign(context, nil, &length, data.baseAddress, message.count) == 1 else {
                throw failure("EVP_DigestSign")
            }
            var signature = [UInt8](repeating: 0, count: length)
            guard EVP_DigestSign(context, &signature, &length, data.baseAddress, message.count) == 1 else {
                throw failure("EVP_DigestSign")
            }
            return Array(signature.prefix(length))
        }
    }

    /// The digests a `PrivateKey` signs with.
    package enum SignatureDigest: Sendable {
        case sha256
        case sha384

        var md: OpaquePointer? {
            switch self {
            case .sha256: EVP_sha256()
            case .sha384: EVP_sha384()
            }
        }
    }

    /// A DER `ECDSA-Sig-Value` as the raw bytes `r || s` of a JWS signature, each left-padded
    /// to `componentSize` bytes (32 for ES256, 48 for ES384); nil when it is not one DER
    /// signature (trailing bytes included) or r or s needs more than `componentSize` bytes.
    package static func rawSignature(der: [UInt8], componentSize: Int = 32) -> [UInt8]? {
        let parsed = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let signature = d2i_ECDSA_SIG(nil, &cursor, buffer.count)
            guard let signature, cursor == buffer.baseAddress.map({ $0 + buffer.count }) else {
                ECDSA_SIG_free(signature)
                return nil
            }
            return signature
        }
        guard let parsed else {
            OpenSSLError.drain()
            return nil
        }
        defer { ECDSA_SIG_free(parsed) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(parsed, &r, &s)
        guard let r, let s else { return nil }
        let size = Int32(componentSize)
        var raw = [UInt8](repeating: 0, count: 2 * componentSize)
        let written = raw.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return BN_bn2binpad(r, base, size) == size && BN_bn2binpad(s, base + componentSize, size) == size
        }
        guard written else {
            OpenSSLError.drain()
            return nil
        }
        return raw
    }
}

extension PublicKey {
    /// Verifies a DER ECDSA P-256 SHA-256 signature over `message` (the legacy V1 offer
    /// signature's form); true only when OpenSSL says it verifies.
    package func verifyDER(signature: [UInt8], message: [UInt8]) -> Bool {
        guard curveName == "prime256v1", let raw = PrivateKey.rawSignature(der: signature) else { return false }
        return verifyES256(signature: raw, message: message) == nil
    }
}
