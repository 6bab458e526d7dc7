package import AppStoreTestData
package import FoundationEssentials

/// An RSA chain shaped like the one that signs App Store receipts, and the receipts it signs.
///
/// root (self-signed, like "Apple Root CA") -> intermediate (marker 1.2.840.113635.100.6.2.1, like
/// "Apple Worldwide Developer Relations CA") -> leaf (marker 1.2.840.113635.100.6.11.1, like
/// "Mac App Store and iTunes Store Receipt Signing"). Keys are RSA 2048; certificates are signed
/// sha256WithRSAEncryption, or sha1WithRSAEncryption as Apple's chains were up to 2023.
/// Subjects are `CN=jwsinspect Test ..., O=jwsinspect test PKI, C=US`: never mistakable for Apple's.
/// Serial numbers are 1 (root), 2 (intermediate) and 3 (leaf); validity as `AppleShapedChain`'s.
package struct TestReceiptChain: Sendable {
    /// Common name of the default root.
    package static let defaultRootCN = "jwsinspect Test Receipt Root CA"
    /// Common name of the intermediate.
    package static let intermediateCN = "jwsinspect Test Receipt WWDR Intermediate"
    /// Common name of the leaf.
    package static let leafCN = "jwsinspect Test App Store Receipt Signing"

    /// The self-signed trust anchor (RSA, CA, no marker).
    package let root: TestCertificate
    /// The intermediate CA (RSA), issued by `root`.
    package let intermediate: TestCertificate
    /// The receipt signer (RSA, not a CA), issued by `intermediate`.
    package let leaf: TestCertificate

    /// Builds a fresh chain with a new root.
    ///
    /// - Parameters:
    ///   - rootCN: The root's common name.
    ///   - leafHasOID: Whether the leaf carries `TestPKI.leafOID`.
    ///   - intermediateHasOID: Whether the intermediate carries `TestPKI.intermediateOID`.
    ///   - leafNotBefore: Start of the leaf's validity (default 2024-01-01).
    ///   - leafNotAfter: End of the leaf's validity (default 2026-01-01); before a receipt's creation
    ///     date it makes that receipt "expired at creation".
    ///   - certificateDigest: The digest every certificate is signed with (SHA-1 like Apple's chains to 2023).
    ///   - leafDigest: The digest the intermediate signs the leaf with, when not `certificateDigest`.
    ///   - rootKey, intermediateKey, leafKey: The keys (fresh RSA 2048 by default, as Apple's).
    package init(
        rootCN: String = TestReceiptChain.defaultRootCN,
        leafHasOID: Bool = true,
        intermediateHasOID: Bool = true,
        leafNotBefore: Date = AppleShapedChain.leafNotBefore,
        leafNotAfter: Date = AppleShapedChain.leafNotAfter,
        certificateDigest: DigestAlgorithm = .sha256,
        leafDigest: DigestAlgorithm? = nil,
        rootKey: TestKey? = nil,
        intermediateKey: TestKey? = nil,
        leafKey: TestKey? = nil
    ) {
        self.init(
            root: TestPKI.markerRoot(commonName: rootCN, key: rootKey ?? .rsa(), digest: certificateDigest),
            leafHasOID: leafHasOID,
            intermediateHasOID: intermediateHasOID, leafNotBefore: leafNotBefore, leafNotAfter: leafNotAfter,
            certificateDigest: certificateDigest, leafDigest: leafDigest, intermediateKey: intermediateKey,
            leafKey: leafKey)
    }

    /// Builds a chain under an existing root (so several chains share one trust anchor);
    /// the intermediate and leaf get fresh keys unless given. Parameters as in `init(rootCN:...)`.
    package init(
        root: TestCertificate,
        leafHasOID: Bool = true,
        intermediateHasOID: Bool = true,
        leafNotBefore: Date = AppleShapedChain.leafNotBefore,
        leafNotAfter: Date = AppleShapedChain.leafNotAfter,
        certificateDigest: DigestAlgorithm = .sha256,
        leafDigest: DigestAlgorithm? = nil,
        intermediateKey: TestKey? = nil,
        leafKey: TestKey? = nil
    ) {
        (intermediate, leaf) = TestPKI.markerChain(
            under: root, intermediateCN: Self.intermediateCN, intermediateKey: intermediateKey ?? .rsa(),
            leafCN: Self.leafCN, leafKey: leafKey ?? .rsa(), leafHasOID: leafHasOID,
            intermediateHasOID: intermediateHasOID, leafNotBefore: leafNotBefore, leafNotAfter: leafNotAfter,
            digest: certificateDigest, leafDigest: leafDigest)
        self.root = root
    }

    /// A chain of certificates made elsewhere (`OCSPTestPKI`'s, which name OCSP responders).
    package init(root: TestCertificate, intermediate: TestCertificate, leaf: TestCertificate) {
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
    }

    /// An App Store-shaped receipt: `content` signed by the leaf with no signed attributes,
    /// the leaf, intermediate and root embedded.
    ///
    /// - Parameters:
    ///   - content: The receipt content, e.g. `ReceiptBuilder().der()`.
    ///   - digest: The signer's digest (SHA-256 by default; SHA-1 as receipts up to 2023).
    ///   - encoding: DER (App Store, default) or indefinite-length BER.
    package func sign(
        _ content: [UInt8], digest: DigestAlgorithm = .sha256, encoding: ReceiptMinter.Encoding = .der
    ) -> [UInt8] {
        ReceiptMinter.sign(
            content: content, signer: leaf, certificates: [intermediate, root], digest: digest, encoding: encoding)
    }
}

/// A StoreKit Testing in Xcode-shaped signer: one self-signed RSA certificate, receipts in BER.
///
/// Xcode's certificate is `CN=StoreKit, O=StoreKit`; this one is
/// `CN=jwsinspect Test StoreKit, O=jwsinspect test PKI, C=US`, valid 2020-04-01 to 2040-03-27 like Xcode's.
package struct StoreKitTestingSigner: Sendable {
    /// Common name of the certificate.
    package static let commonName = "jwsinspect Test StoreKit"

    /// The self-signed certificate (RSA 2048, SHA-256), both signer and the only embedded certificate.
    package let certificate: TestCertificate

    /// Builds a fresh certificate with a new key.
    ///
    /// - Parameter commonName: the certificate's common name; "StoreKit", Xcode's own, makes
    ///   receipts that jwsinspect takes for StoreKit Testing in Xcode's.
    package init(commonName: String = Self.commonName) {
        let spec = CertificateSpec(
            commonName: commonName, serial: 1,
            notBefore: Date(timeIntervalSince1970: 1_585_699_200),  // 2020-04-01T00:00:00Z
            notAfter: Date(timeIntervalSince1970: 2_216_332_800),  // 2040-03-27T00:00:00Z
            isCA: true, keyUsage: "critical,digitalSignature,keyCertSign")
        certificate = TestPKI.issue(spec, key: .rsa(), issuer: nil)
    }

    /// An Xcode-shaped receipt: `content` signed SHA-256 without signed attributes, written as
    /// indefinite-length BER (`encoding: .der` for the DER form).
    package func sign(_ content: [UInt8], encoding: ReceiptMinter.Encoding = .berIndefinite) -> [UInt8] {
        ReceiptMinter.sign(content: content, signer: certificate, digest: .sha256, encoding: encoding)
    }
}
