internal import COpenSSL

/// A public key taken from a certificate (an owned `EVP_PKEY`).
///
/// `@unchecked Sendable`: the key is never mutated after init, and OpenSSL 3
/// allows concurrent verifications with one `EVP_PKEY`.
package final class PublicKey: @unchecked Sendable {
    /// The owned `EVP_PKEY`, never handed out: every use of it is a method of this class.
    private let pointer: OpaquePointer
    /// Verification contexts initialised for this key, reused across calls (one per
    /// concurrent user): setting one up costs more than a few microseconds.
    private let contexts = Locked<[VerifyContext]>([])

    /// An `EVP_PKEY_CTX*` set up for verification. Only one thread uses it at a time (it is
    /// out of the pool while in use), which is what makes passing it between threads safe.
    private struct VerifyContext: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// The named curve of an EC key ("prime256v1" for P-256), or nil.
    package let curveName: String?

    /// A P-256 key's `EC_KEY`, for verifying raw `r || s` signatures without the DER round
    /// trip of `EVP_PKEY_verify` (nil for other keys, or where OpenSSL lacks the interface).
    private let p256Key: OpaquePointer?

    /// Takes ownership of an `EVP_PKEY*` (one reference is released in deinit).
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
        let curve = Self.groupName(pointer)
        self.curveName = curve
        self.p256Key = curve == "prime256v1" ? COpenSSL_EVP_PKEY_get1_EC_KEY(pointer) : nil
        self.summary = Self.describe(curve: curve, pointer: pointer)
    }

    deinit {
        contexts.withLock { pool in
            for context in pool { EVP_PKEY_CTX_free(context.pointer) }
        }
        if let p256Key { COpenSSL_EC_KEY_free(p256Key) }
        EVP_PKEY_free(pointer)
    }

    private static func typeName(_ pointer: OpaquePointer) -> String {
        guard let name = EVP_PKEY_get0_type_name(pointer) else { return "unknown" }
        return String(cString: name)
    }

    private static func groupName(_ pointer: OpaquePointer) -> String? {
        var buffer = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(pointer, &buffer, buffer.count, &length) == 1 else {
            OpenSSLError.drain()
            return nil
        }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A short description such as "EC P-256" or "RSA 2048" (computed once: every token's report uses it).
    package let summary: String

    /// The description `summary` gives, for a key not (yet) wrapped ("EC P-384", "RSA 2048").
    static func summary(of pointer: OpaquePointer) -> String {
        describe(curve: groupName(pointer), pointer: pointer)
    }

    private static func describe(curve: String?, pointer: OpaquePointer) -> String {
        switch curve {
        case "prime256v1": return "EC P-256"
        case "secp384r1": return "EC P-384"
        case "secp521r1": return "EC P-521"
        case let curve?: return "EC \(curve)"
        case nil: return "\(typeName(pointer)) \(EVP_PKEY_get_bits(pointer))"
        }
    }
}

/// Why an ES256 signature did not verify.
package enum SignatureFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The key is not an EC P-256 key; carries the key's description.
    case wrongKeyType(String)
    /// An ES256 signature is exactly 64 bytes; carries the length seen.
    case length(Int)
    /// r or s is zero or could not be encoded (OpenSSL's reason attached).
    case encoding(String)
    /// The signature does not match the signed bytes and key.
    case mismatch

    package var description: String {
        switch self {
        case .wrongKeyType(let key): "the leaf key is \(key), ES256 needs EC P-256"
        case .length(let length): "an ES256 signature is 64 bytes (r||s), got \(length)"
        case .encoding(let detail): "the signature's r||s could not be encoded: \(detail)"
        case .mismatch: "the signature does not match header.payload and the leaf certificate's key"
        }
    }
}

extension PublicKey {
    /// Verifies an ES256 (ECDSA P-256, SHA-256) JWS signature.
    ///
    /// - Parameters:
    ///   - signature: the raw 64 bytes `r || s` as carried in a JWS (not DER).
    ///   - message: the exact signing input, the ASCII bytes of `header.payload`.
    /// - Returns: nil when the signature is valid, otherwise why not.
    package func verifyES256(signature: [UInt8], message: [UInt8]) -> SignatureFailure? {
        verifyES256(signature: signature, digest: Digest.sha256(message))
    }

    /// Verifies an ES256 signature over a message whose SHA-256 `digest` is already known.
    ///
    /// Uses the `EC_KEY` path when this OpenSSL has it (the one `openssl speed ecdsap256`
    /// measures: no DER round trip), else `EVP_PKEY_verify`. Both give the same answers
    /// (the Wycheproof test runs every vector through each).
    ///
    /// - Parameters:
    ///   - signature: the raw 64 bytes `r || s`.
    ///   - digest: SHA-256 of the signing input (32 bytes).
    func verifyES256(signature: [UInt8], digest: [UInt8]) -> SignatureFailure? {
        if let problem = es256Problem(signature: signature, digest: digest) { return problem }
        guard let p256Key else { return verifyThroughEVP(signature: signature, digest: digest) }
        let result = signature.withUnsafeBufferPointer { rs in
            digest.withUnsafeBufferPointer {
                COpenSSL_ECDSA_verify_raw(p256Key, $0.baseAddress, 32, rs.baseAddress, 32)
            }
        }
        switch result {
        case 1:
            return nil
        case -2:
            return verifyThroughEVP(signature: signature, digest: digest)
        default:
            // 0 is a wrong signature (r or s out of range included), -1 an unusable one.
            OpenSSLError.drain()
            return .mismatch
        }
    }

    /// The same verification through `EVP_PKEY_verify` with a DER-encoded signature.
    func verifyES256ThroughEVP(signature: [UInt8], digest: [UInt8]) -> SignatureFailure? {
        es256Problem(signature: signature, digest: digest) ?? verifyThroughEVP(signature: signature, digest: digest)
    }

    /// What makes the inputs unusable for ES256 before any verification, if anything.
    private func es256Problem(signature: [UInt8], digest: [UInt8]) -> SignatureFailure? {
        guard curveName == "prime256v1" else { return .wrongKeyType(summary) }
        guard signature.count == 64 else { return .length(signature.count) }
        guard digest.count == 32 else { return .encoding("a SHA-256 digest is 32 bytes") }
        return nil
    }

    private func verifyThroughEVP(signature: [UInt8], digest: [UInt8]) -> SignatureFailure? {
        guard let der = Self.derSignature(rawRS: signature) else {
            return .encoding(OpenSSLError.describe(or: "r or s is invalid"))
        }
        guard let context = takeContext()?.pointer else {
            return .encoding(OpenSSLError.describe(or: "EVP_PKEY_verify_init failed"))
        }
        let result = der.withUnsafeBufferPointer { sig in
            digest.withUnsafeBufferPointer {
                EVP_PKEY_verify(context, sig.baseAddress, sig.count, $0.baseAddress, $0.count)
            }
        }
        let done = VerifyContext(pointer: context)
        contexts.withLock { $0.append(done) }
        // Only 1 is success: 0 is a wrong signature, a negative value malformed input.
        guard result == 1 else {
            OpenSSLError.drain()
            return .mismatch
        }
        return nil
    }

    private func takeContext() -> VerifyContext? {
        if let pooled = contexts.withLock({ $0.popLast() }) { return pooled }
        guard let context = EVP_PKEY_CTX_new(pointer, nil) else { return nil }
        guard EVP_PKEY_verify_init(context) == 1,
            EVP_PKEY_CTX_set_signature_md(context, OpenSSLAlgorithms.shared.sha256) == 1
        else {
            EVP_PKEY_CTX_free(context)
            return nil
        }
        return VerifyContext(pointer: context)
    }

    /// Converts raw `r || s` (32 + 32 bytes, big-endian) to the DER `ECDSA-Sig-Value` OpenSSL expects.
    static func derSignature(rawRS: [UInt8]) -> [UInt8]? {
        guard let sig = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(sig) }
        let r = rawRS.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        let s = rawRS.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
        guard let r, let s else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        guard ECDSA_SIG_set0(sig, r, s) == 1 else {
            // On failure the caller still owns r and s.
            BN_free(r)
            BN_free(s)
            return nil
        }
        return DER.encode { i2d_ECDSA_SIG(sig, $0) }
    }
}

extension PublicKey {
    /// Parses a DER SubjectPublicKeyInfo (as in a certificate, or Wycheproof's `publicKeyDer`).
    ///
    /// - Returns: nil when OpenSSL cannot decode it (a malformed key or a point not on its curve).
    package convenience init?(subjectPublicKeyInfo der: [UInt8]) {
        let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let key = d2i_PUBKEY(nil, &cursor, buffer.count)
            let consumed = cursor.map { $0 - buffer.baseAddress! } ?? 0
            guard consumed == buffer.count else {
                EVP_PKEY_free(key)
                return nil
            }
            return key
        }
        guard let key else {
            OpenSSLError.drain()
            return nil
        }
        self.init(taking: key)
    }
}
