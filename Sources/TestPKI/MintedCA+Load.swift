internal import COpenSSL
internal import FoundationEssentials

extension TestKey {
    /// A private key read from PKCS#8 PEM (`mint ca`'s `*-key.p8`); nil when the text is not one
    /// or not an EC key on `curve`.
    public convenience init?(privateKeyPEM pem: [UInt8], curve: Curve) {
        let read: OpaquePointer? = pem.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(clamping: buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        ERR_clear_error()
        guard let pkey = read else { return nil }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(pkey, &name, name.count, &length) == 1,
            [curve.rawValue, curve == .p256 ? "prime256v1" : "secp384r1"].contains(
                String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self))
        else {
            EVP_PKEY_free(pkey)
            return nil
        }
        self.init(adopting: pkey, algorithm: .ec(curve))
    }
}

extension TestCertificate {
    /// A certificate read from DER with its own private key; nil when the bytes are not one
    /// certificate. Its spec records the common name and validity read from it.
    public convenience init?(der: [UInt8], key: TestKey, isCA: Bool) {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        ERR_clear_error()
        guard let x509 = parsed, let notBefore = Self.date(X509_get0_notBefore(x509)),
            let notAfter = Self.date(X509_get0_notAfter(x509))
        else {
            if let parsed { X509_free(parsed) }
            return nil
        }
        let spec = CertificateSpec(commonName: "", notBefore: notBefore, notAfter: notAfter, isCA: isCA)
        self.init(owning: x509, key: key, spec: spec)
    }

    /// An ASN1_TIME as a Date (whole seconds, UTC).
    private static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }
}

extension MintedCA {
    /// A CA read back from a `mint ca` folder's files (nil when one is not what `mint ca` writes).
    public init?(
        rootDER: [UInt8], rootKey: [UInt8], intermediateDER: [UInt8], intermediateKey: [UInt8], leafDER: [UInt8],
        leafKey: [UInt8]
    ) {
        guard
            let rootPrivate = TestKey(privateKeyPEM: rootKey, curve: .p384)
                ?? TestKey(privateKeyPEM: rootKey, curve: .p256),
            let intermediatePrivate = TestKey(privateKeyPEM: intermediateKey, curve: .p384),
            let leafPrivate = TestKey(privateKeyPEM: leafKey, curve: .p256),
            let root = TestCertificate(der: rootDER, key: rootPrivate, isCA: true),
            let intermediate = TestCertificate(der: intermediateDER, key: intermediatePrivate, isCA: true),
            let leaf = TestCertificate(der: leafDER, key: leafPrivate, isCA: false)
        else { return nil }
        self.init(root: root, intermediate: intermediate, leaf: leaf)
    }

    /// A leaf like this CA's (same validity, issued by its intermediate) without Apple's leaf marker.
    public func leafWithoutOID() -> TestCertificate {
        TestPKI.issue(
            CertificateSpec(
                commonName: Self.leafCN, serial: 4, notBefore: leaf.spec.notBefore, notAfter: leaf.spec.notAfter,
                isCA: false),
            key: .p256(), issuer: intermediate)
    }

    /// An intermediate without Apple's marker (issued by this CA's root) and a leaf it issued.
    public func chainWithIntermediateWithoutOID() -> (intermediate: TestCertificate, leaf: TestCertificate) {
        TestPKI.markerChain(
            under: root, intermediateCN: Self.intermediateCN, intermediateKey: .p384(), leafCN: Self.leafCN,
            leafKey: .p256(), leafHasOID: true, intermediateHasOID: false, leafNotBefore: leaf.spec.notBefore,
            leafNotAfter: leaf.spec.notAfter, caValidity: (intermediate.spec.notBefore, intermediate.spec.notAfter))
    }
}

extension TestPKI {
    /// The high-S twin of a raw `r‖s` P-256 signature: s replaced by n − s when s ≤ n/2 (ECDSA
    /// is malleable: both verify). Computed with OpenSSL's BIGNUM; the input when it is not 64 bytes.
    public static func highS(_ raw: [UInt8]) -> [UInt8] {
        guard raw.count == 64, let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else { return raw }
        defer { EC_GROUP_free(group) }
        guard let order = EC_GROUP_get0_order(group), let s = BN_bin2bn(Array(raw[32...]), 32, nil),
            let half = BN_new(), let flipped = BN_new()
        else { return raw }
        defer {
            BN_free(s)
            BN_free(half)
            BN_free(flipped)
        }
        guard BN_rshift1(half, order) == 1, BN_cmp(s, half) <= 0, BN_sub(flipped, order, s) == 1 else { return raw }
        var bytes = [UInt8](repeating: 0, count: 32)
        guard BN_bn2binpad(flipped, &bytes, 32) == 32 else { return raw }
        return Array(raw[..<32]) + bytes
    }
}
