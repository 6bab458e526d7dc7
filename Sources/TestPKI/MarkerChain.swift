internal import FoundationEssentials

/// The certificates of an Apple-shaped chain, built once for both of its shapes: the App Store
/// JWS chain (`AppleShapedChain`, EC keys) and the receipt chain (`TestReceiptChain`, RSA keys).
/// Serial numbers are 1 (root), 2 (intermediate) and 3 (leaf); the root and intermediate are
/// valid from `AppleShapedChain.caNotBefore` to `caNotAfter`.
extension TestPKI {
    /// A self-signed root CA, without marker OIDs.
    static func markerRoot(
        commonName: String, key: TestKey, keyIdentifiers: Bool = true, digest: DigestAlgorithm = .sha256,
        validity: (notBefore: Date, notAfter: Date) = (AppleShapedChain.caNotBefore, AppleShapedChain.caNotAfter)
    ) -> TestCertificate {
        let spec = CertificateSpec(
            commonName: commonName, serial: 1, notBefore: validity.notBefore, notAfter: validity.notAfter, isCA: true,
            keyIdentifiers: keyIdentifiers, signatureDigest: digest)
        return issue(spec, key: key, issuer: nil)
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
        let intermediateSpec = CertificateSpec(
            commonName: intermediateCN, serial: 2, notBefore: caValidity.notBefore, notAfter: caValidity.notAfter,
            isCA: true,
            markerOIDs: intermediateHasOID ? [intermediateOID] : [], keyIdentifiers: keyIdentifiers,
            signatureDigest: digest)
        let intermediate = issue(intermediateSpec, key: intermediateKey, issuer: root)
        let leafSpec = CertificateSpec(
            commonName: leafCN, serial: 3, notBefore: leafNotBefore, notAfter: leafNotAfter, isCA: false,
            markerOIDs: leafHasOID ? [leafOID] : [], keyIdentifiers: keyIdentifiers,
            signatureDigest: leafDigest ?? digest)
        return (intermediate, issue(leafSpec, key: leafKey, issuer: intermediate))
    }
}
