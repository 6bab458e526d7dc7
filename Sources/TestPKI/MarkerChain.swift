internal import AppStoreTestData
internal import FoundationEssentials

/// The certificates of an Apple-shaped chain, built once for both of its shapes: the App Store
/// JWS chain (`AppleShapedChain`, EC keys) and the receipt chain (`TestReceiptChain`, RSA keys),
/// by `CertificateIssuer.root` and `.chain`. Serial numbers are 1 (root), 2 (intermediate) and 3
/// (leaf); the root and intermediate are valid from `AppleShapedChain.caNotBefore` to `caNotAfter`.
extension TestPKI {
    /// A self-signed root CA, without marker OIDs.
    static func markerRoot(
        commonName: String, key: TestKey, keyIdentifiers: Bool = true, digest: DigestAlgorithm = .sha256,
        validity: (notBefore: Date, notAfter: Date) = (AppleShapedChain.caNotBefore, AppleShapedChain.caNotAfter)
    ) -> TestCertificate {
        let root = OpenSSL.must {
            try CertificateIssuer.root(
                commonName: commonName, key: key.privateKey, validity: validity, keyIdentifiers: keyIdentifiers,
                digest: digest)
        }
        return TestCertificate(root, key: key)
    }

    /// The intermediate (marker `intermediateOID` when `intermediateHasOID`) issued by `root`, and
    /// the leaf (marker `leafOID` when `leafHasOID`) issued by the intermediate; both signed with
    /// `digest`, the leaf with `leafDigest` when given.
    static func markerChain(
        under root: TestCertificate, intermediateCN: String, intermediateKey: TestKey, leafCN: String,
        leafKey: TestKey, leafHasOID: Bool, intermediateHasOID: Bool, leafNotBefore: Date, leafNotAfter: Date,
        keyIdentifiers: Bool = true, digest: DigestAlgorithm = .sha256, leafDigest: DigestAlgorithm? = nil,
        caValidity: (notBefore: Date, notAfter: Date) = (AppleShapedChain.caNotBefore, AppleShapedChain.caNotAfter)
    ) -> (intermediate: TestCertificate, leaf: TestCertificate) {
        let (intermediate, leaf) = OpenSSL.must {
            try CertificateIssuer.chain(
                under: root.issued, intermediateCN: intermediateCN, intermediateKey: intermediateKey.privateKey,
                leafCN: leafCN, leafKey: leafKey.privateKey, leafHasOID: leafHasOID,
                intermediateHasOID: intermediateHasOID, leafNotBefore: leafNotBefore, leafNotAfter: leafNotAfter,
                caValidity: caValidity, keyIdentifiers: keyIdentifiers, digest: digest, leafDigest: leafDigest)
        }
        return (TestCertificate(intermediate, key: intermediateKey), TestCertificate(leaf, key: leafKey))
    }
}
