internal import COpenSSL

/// A private key: EC (P-256, P-384) for the JWS chains, RSA for the legacy receipt chains (and
/// P-192 or small RSA keys for chains that must be refused).
///
/// Keys are generated with OpenSSL's provider API (`EVP_PKEY_CTX_new_from_name`
/// and `EVP_PKEY_keygen`); no deprecated `EC_KEY` or `RSA` functions are used.
///
/// Immutable after `init`: the wrapped `EVP_PKEY` is only read afterwards
/// (OpenSSL 3 allows concurrent signing with one key), which is why the class
/// is `@unchecked Sendable`. The key is freed in `deinit`.
public final class TestKey: @unchecked Sendable {
    /// The named curves a `TestKey` can be generated on.
    public enum Curve: String, Sendable, CaseIterable {
        /// NIST P-256 (prime256v1, secp256r1), the curve of ES256.
        case p256 = "P-256"
        /// NIST P-384 (secp384r1), the curve of ES384 and of Apple's root CA G3.
        case p384 = "P-384"
        /// NIST P-192 (prime192v1): 80-bit security, for keys a verifier must refuse.
        case p192 = "P-192"

        /// Byte length of one signature component (r or s) and of a field element.
        public var componentSize: Int {
            switch self {
            case .p192: 24
            case .p256: 32
            case .p384: 48
            }
        }
    }

    /// The kind of key: EC on a curve, or RSA with a modulus size.
    public enum Algorithm: Sendable, Equatable {
        /// An EC key on the curve.
        case ec(Curve)
        /// An RSA key with a modulus of `bits` bits (public exponent 65537).
        case rsa(bits: Int)
    }

    /// What kind of key this is.
    public let algorithm: Algorithm

    /// The curve of an EC key; nil for an RSA key.
    public var curve: Curve? {
        if case .ec(let curve) = algorithm { curve } else { nil }
    }

    /// The key as a SubjectPublicKeyInfo DER (`i2d_PUBKEY`).
    public let publicKeyDER: [UInt8]

    /// The owned `EVP_PKEY`.
    let pkey: OpaquePointer

    /// Generates a fresh P-256 key.
    public static func p256() -> TestKey {
        TestKey(generating: .p256)
    }

    /// Generates a fresh P-384 key.
    public static func p384() -> TestKey {
        TestKey(generating: .p384)
    }

    /// Generates a fresh RSA key of `bits` bits (default 2048, the size of Apple's receipt keys).
    public static func rsa(bits: Int = 2048) -> TestKey {
        TestKey(generatingRSA: bits)
    }

    /// Generates a fresh key on `curve`.
    public convenience init(generating curve: Curve) {
        let context = OpenSSL.unwrap(EVP_PKEY_CTX_new_from_name(nil, "EC", nil), "EVP_PKEY_CTX_new_from_name(EC)")
        defer { EVP_PKEY_CTX_free(context) }
        OpenSSL.check(EVP_PKEY_keygen_init(context), "EVP_PKEY_keygen_init")
        OpenSSL.check(
            EVP_PKEY_CTX_set_group_name(context, curve.rawValue), "EVP_PKEY_CTX_set_group_name(\(curve.rawValue))")
        var generated: OpaquePointer?
        OpenSSL.check(EVP_PKEY_keygen(context, &generated), "EVP_PKEY_keygen")
        self.init(owning: OpenSSL.unwrap(generated, "EVP_PKEY_keygen"), algorithm: .ec(curve))
    }

    /// Generates a fresh RSA key with a modulus of `bits` bits (`EVP_PKEY_CTX_set_rsa_keygen_bits`).
    public convenience init(generatingRSA bits: Int) {
        let context = OpenSSL.unwrap(EVP_PKEY_CTX_new_from_name(nil, "RSA", nil), "EVP_PKEY_CTX_new_from_name(RSA)")
        defer { EVP_PKEY_CTX_free(context) }
        OpenSSL.check(EVP_PKEY_keygen_init(context), "EVP_PKEY_keygen_init")
        OpenSSL.check(EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)), "EVP_PKEY_CTX_set_rsa_keygen_bits")
        var generated: OpaquePointer?
        OpenSSL.check(EVP_PKEY_keygen(context, &generated), "EVP_PKEY_keygen(RSA)")
        self.init(owning: OpenSSL.unwrap(generated, "EVP_PKEY_keygen(RSA)"), algorithm: .rsa(bits: bits))
    }

    /// Takes ownership of `pkey`, a key of kind `algorithm` (read from a file).
    convenience init(adopting pkey: OpaquePointer, algorithm: Algorithm) {
        self.init(owning: pkey, algorithm: algorithm)
    }

    /// Takes ownership of `pkey`, a key of kind `algorithm`.
    private init(owning pkey: OpaquePointer, algorithm: Algorithm) {
        self.pkey = pkey
        self.algorithm = algorithm
        self.publicKeyDER = OpenSSL.der("i2d_PUBKEY") { i2d_PUBKEY(pkey, $0) }
    }

    deinit {
        EVP_PKEY_free(pkey)
    }

    /// The public key in PEM form (`-----BEGIN PUBLIC KEY-----`), e.g. for `openssl dgst -verify`.
    public var publicKeyPEM: String {
        PEM.encode(publicKeyDER, label: "PUBLIC KEY")
    }

    /// ES256 signature: ECDSA P-256 SHA-256 over `message`, returned as raw 64-byte r||s
    /// (32 + 32 bytes, big-endian, left-padded), the JWS form of RFC 7518 §3.4.
    ///
    /// The key must be a P-256 key.
    public func signES256(_ message: [UInt8]) -> [UInt8] {
        precondition(curve == .p256, "TestPKI: signES256 needs a P-256 key, this key is \(algorithm)")
        return signRaw(message, digest: EVP_sha256())
    }

    /// ES384 signature: ECDSA P-384 SHA-384 over `message`, returned as raw 96-byte r||s
    /// (48 + 48 bytes, big-endian, left-padded).
    ///
    /// The key must be a P-384 key.
    /// ECDSA over SHA-256 of `message` as DER (`ECDSA-Sig-Value`), not the raw `r‖s` JWS wants.
    public func signDERES256(_ message: [UInt8]) -> [UInt8] {
        signDER(message, digest: EVP_sha256())
    }

    public func signES384(_ message: [UInt8]) -> [UInt8] {
        precondition(curve == .p384, "TestPKI: signES384 needs a P-384 key, this key is \(algorithm)")
        return signRaw(message, digest: EVP_sha384())
    }

    /// ECDSA over `message` hashed with `digest`, as raw r||s with each
    /// component left-padded to the curve's size.
    private func signRaw(_ message: [UInt8], digest: OpaquePointer?) -> [UInt8] {
        let derSignature = signDER(message, digest: digest)
        var cursor: UnsafePointer<UInt8>?
        let parsed = derSignature.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        let signature = OpenSSL.unwrap(parsed, "d2i_ECDSA_SIG")
        defer { ECDSA_SIG_free(signature) }

        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        guard let size = curve?.componentSize else { OpenSSL.fail("ECDSA with an RSA key") }
        var raw = [UInt8](repeating: 0, count: 2 * size)
        raw.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { OpenSSL.fail("signature buffer") }
            guard BN_bn2binpad(OpenSSL.unwrap(r, "ECDSA_SIG_get0 r"), base, Int32(size)) == Int32(size) else {
                OpenSSL.fail("BN_bn2binpad(r)")
            }
            guard BN_bn2binpad(OpenSSL.unwrap(s, "ECDSA_SIG_get0 s"), base + size, Int32(size)) == Int32(size) else {
                OpenSSL.fail("BN_bn2binpad(s)")
            }
        }
        return raw
    }

    /// ECDSA over `message` hashed with `digest`, as the DER `ECDSA-Sig-Value` OpenSSL produces.
    private func signDER(_ message: [UInt8], digest: OpaquePointer?) -> [UInt8] {
        let context = OpenSSL.unwrap(EVP_MD_CTX_new(), "EVP_MD_CTX_new")
        defer { EVP_MD_CTX_free(context) }
        OpenSSL.check(EVP_DigestSignInit(context, nil, digest, nil, pkey), "EVP_DigestSignInit")

        // A one-byte stand-in keeps the data pointer non-NULL for an empty message.
        let input = message.isEmpty ? [0] : message
        return input.withUnsafeBufferPointer { data -> [UInt8] in
            var length = 0
            OpenSSL.check(
                EVP_DigestSign(context, nil, &length, data.baseAddress, message.count), "EVP_DigestSign length query")
            var signature = [UInt8](repeating: 0, count: length)
            OpenSSL.check(
                EVP_DigestSign(context, &signature, &length, data.baseAddress, message.count), "EVP_DigestSign")
            return Array(signature.prefix(length))
        }
    }
}

extension TestKey {
    /// The private key as PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), the form App Store
    /// Connect's `AuthKey_<KEYID>.p8` downloads have.
    public var privateKeyPEM: String {
        TestPKI.pem("PEM_write_bio_PrivateKey") { PEM_write_bio_PrivateKey($0, pkey, nil, nil, 0, nil, nil) }
    }

    /// The private key as encrypted PKCS#8 PEM (`-----BEGIN ENCRYPTED PRIVATE KEY-----`, AES-256-CBC).
    public func encryptedPrivateKeyPEM(password: String) -> String {
        TestPKI.pem("PEM_write_bio_PKCS8PrivateKey") { bio in
            var bytes = Array(password.utf8).map { CChar(bitPattern: $0) }
            return PEM_write_bio_PKCS8PrivateKey(bio, pkey, EVP_aes_256_cbc(), &bytes, Int32(bytes.count), nil, nil)
        }
    }
}

extension TestPKI {
    /// A fresh RSA private key as PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), for tests of keys
    /// that are not EC P-256.
    public static func rsaPrivateKeyPEM(bits: Int = 2048) -> String {
        TestKey.rsa(bits: bits).privateKeyPEM
    }

    /// The text an OpenSSL `PEM_write_bio_*` call writes into a memory BIO.
    static func pem(_ what: String, _ write: (OpaquePointer) -> Int32) -> String {
        let bio = OpenSSL.unwrap(BIO_new(BIO_s_mem()), "BIO_new")
        defer { BIO_free(bio) }
        OpenSSL.check(write(bio), what)
        var data: UnsafeMutablePointer<CChar>?
        let length = COpenSSL_BIO_get_mem_data(bio, &data)
        guard length > 0, let data else { OpenSSL.fail("\(what): empty output") }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }
}
