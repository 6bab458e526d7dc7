internal import COpenSSL
package import JWSInspectCore

/// The kind of a key test data is signed with: EC on a named curve (P-256 and P-384 as on
/// Apple's chains, P-192 for keys a verifier must refuse) or RSA (receipt chains).
package enum KeyKind: Sendable, Equatable {
    /// An EC key on the curve.
    case ec(Curve)
    /// An RSA key with a modulus of `bits` bits (public exponent 65537).
    case rsa(bits: Int)

    /// The named curves a key can be generated on.
    package enum Curve: String, Sendable, CaseIterable {
        /// NIST P-256 (prime256v1, secp256r1), the curve of ES256.
        case p256 = "P-256"
        /// NIST P-384 (secp384r1), the curve of ES384 and of Apple's root CA G3.
        case p384 = "P-384"
        /// NIST P-192 (prime192v1): 80-bit security, for keys a verifier must refuse.
        case p192 = "P-192"

        /// Byte length of one signature component (r or s) and of a field element.
        package var componentSize: Int {
            switch self {
            case .p192: 24
            case .p256: 32
            case .p384: 48
            }
        }

        /// OpenSSL's name of the group (what `EVP_PKEY_get_group_name` says).
        var groupName: String {
            switch self {
            case .p192: "prime192v1"
            case .p256: "prime256v1"
            case .p384: "secp384r1"
            }
        }
    }
}

extension PrivateKey {
    /// A fresh key of `kind`, generated with OpenSSL's provider API (`EVP_PKEY_CTX_new_from_name`,
    /// `EVP_PKEY_keygen`).
    package static func generate(_ kind: KeyKind) throws(MintError) -> PrivateKey {
        let name = if case .rsa = kind { "RSA" } else { "EC" }
        let context = try OpenSSLCall.unwrap(
            EVP_PKEY_CTX_new_from_name(nil, name, nil), "EVP_PKEY_CTX_new_from_name(\(name))")
        defer { EVP_PKEY_CTX_free(context) }
        try OpenSSLCall.check(EVP_PKEY_keygen_init(context), "EVP_PKEY_keygen_init")
        switch kind {
        case .ec(let curve):
            try OpenSSLCall.check(
                EVP_PKEY_CTX_set_group_name(context, curve.rawValue), "EVP_PKEY_CTX_set_group_name(\(curve.rawValue))")
        case .rsa(let bits):
            guard (512...16_384).contains(bits) else { throw MintError("an RSA key of \(bits) bits is not made") }
            try OpenSSLCall.check(
                EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)), "EVP_PKEY_CTX_set_rsa_keygen_bits")
        }
        var generated: OpaquePointer?
        try OpenSSLCall.check(EVP_PKEY_keygen(context, &generated), "EVP_PKEY_keygen(\(name))")
        let pointer = try OpenSSLCall.unwrap(generated, "EVP_PKEY_keygen(\(name))")
        guard let key = PrivateKey(taking: pointer) else { throw OpenSSLCall.failure("encoding the new public key") }
        return key
    }

    /// A private key read from PKCS#8 PEM (`mint ca`'s `*-key.p8`); nil when the text is not
    /// one, or not an EC key on `curve`.
    package static func read(privateKeyPEM pem: [UInt8], curve: KeyKind.Curve) -> PrivateKey? {
        let read: OpaquePointer? = pem.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(clamping: buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        OpenSSLError.drain()
        guard let read else { return nil }
        guard let key = PrivateKey(taking: read) else { return nil }
        return key.publicKey.curveName == curve.groupName ? key : nil
    }

    /// The private key as PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), the form App Store
    /// Connect's `AuthKey_<KEYID>.p8` downloads have.
    package func privateKeyPEM() throws(MintError) -> String {
        try withUnsafeKeyPointer { (key) throws(MintError) in
            try OpenSSLCall.pem("PEM_write_bio_PrivateKey") { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) }
        }
    }

    /// The private key as encrypted PKCS#8 PEM (`-----BEGIN ENCRYPTED PRIVATE KEY-----`, AES-256-CBC).
    package func encryptedPrivateKeyPEM(password: String) throws(MintError) -> String {
        try withUnsafeKeyPointer { (key) throws(MintError) in
            try OpenSSLCall.pem("PEM_write_bio_PKCS8PrivateKey") { bio in
                var bytes = Array(password.utf8).map { CChar(bitPattern: $0) }
                return PEM_write_bio_PKCS8PrivateKey(bio, key, EVP_aes_256_cbc(), &bytes, Int32(bytes.count), nil, nil)
            }
        }
    }

    /// The key as a SubjectPublicKeyInfo DER (`i2d_PUBKEY`).
    package func publicKeyDER() throws(MintError) -> [UInt8] {
        try withUnsafeKeyPointer { (key) throws(MintError) in try OpenSSLCall.der("i2d_PUBKEY") { i2d_PUBKEY(key, $0) }
        }
    }

    /// An ECDSA signature in the JWS form `r || s` over `message` hashed with `digest`, each
    /// component left-padded to `curve`'s size (ES256 with P-256 and SHA-256, ES384 with P-384
    /// and SHA-384).
    package func signRaw(_ message: [UInt8], digest: SignatureDigest, curve: KeyKind.Curve) throws(MintError)
        -> [UInt8]
    {
        let der: [UInt8]
        do {
            der = try signDER(message, digest: digest)
        } catch {
            throw MintError("signing: \(error)")
        }
        guard let raw = PrivateKey.rawSignature(der: der, componentSize: curve.componentSize) else {
            throw MintError("signing: OpenSSL's ECDSA signature did not decode for \(curve.rawValue)")
        }
        return raw
    }
}
