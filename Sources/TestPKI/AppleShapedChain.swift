package import FoundationEssentials

/// root -> intermediate (marker 1.2.840.113635.100.6.2.1) -> leaf (marker 1.2.840.113635.100.6.11.1), like Apple's App Store chain.
///
/// Like Apple's chain (Apple Root CA - G3, WWDR G6, receipt signing leaf), the
/// root and intermediate keys are P-384 and the leaf key is P-256; every
/// certificate is signed ecdsa-with-SHA256. Serial numbers are 1 (root),
/// 2 (intermediate) and 3 (leaf).
package struct AppleShapedChain: Sendable {
    /// Common name of the default root.
    package static let defaultRootCN = "jwsinspect Test Root CA"
    /// Common name of the intermediate.
    package static let intermediateCN = "jwsinspect Test WWDR Intermediate"
    /// Common name of the leaf.
    package static let leafCN = "jwsinspect Test Receipt Signing"

    /// Start of the root's and the intermediate's validity: 2020-01-01T00:00:00Z.
    package static let caNotBefore = Date(timeIntervalSince1970: 1_577_836_800)
    /// End of the root's and the intermediate's validity: 2040-01-01T00:00:00Z.
    package static let caNotAfter = Date(timeIntervalSince1970: 2_208_988_800)
    /// Default start of the leaf's validity: 2024-01-01T00:00:00Z.
    package static let leafNotBefore = Date(timeIntervalSince1970: 1_704_067_200)
    /// Default end of the leaf's validity: 2026-01-01T00:00:00Z.
    package static let leafNotAfter = Date(timeIntervalSince1970: 1_767_225_600)

    /// The self-signed trust anchor (P-384, CA).
    package let root: TestCertificate
    /// The intermediate CA (P-384), issued by `root`.
    package let intermediate: TestCertificate
    /// The signing certificate (P-256, not a CA), issued by `intermediate`; its key signs the JWS.
    package let leaf: TestCertificate

    /// Builds a fresh chain with a new root.
    ///
    /// - Parameters:
    ///   - rootCN: The root's common name.
    ///   - leafHasOID: Whether the leaf carries `TestPKI.leafOID`.
    ///   - intermediateHasOID: Whether the intermediate carries `TestPKI.intermediateOID`.
    ///   - leafNotBefore: Start of the leaf's validity.
    ///   - leafNotAfter: End of the leaf's validity.
    ///   - keyIdentifiers: Whether every certificate gets subject and authority key identifiers.
    package init(
        rootCN: String = AppleShapedChain.defaultRootCN,
        leafHasOID: Bool = true,
        intermediateHasOID: Bool = true,
        leafNotBefore: Date = AppleShapedChain.leafNotBefore,
        leafNotAfter: Date = AppleShapedChain.leafNotAfter,
        keyIdentifiers: Bool = true
    ) {
        let root = TestPKI.markerRoot(commonName: rootCN, key: .p384(), keyIdentifiers: keyIdentifiers)
        self.init(
            root: root,
            leafHasOID: leafHasOID,
            intermediateHasOID: intermediateHasOID,
            leafNotBefore: leafNotBefore,
            leafNotAfter: leafNotAfter,
            keyIdentifiers: keyIdentifiers
        )
    }

    /// Builds a chain reusing an existing root (so several chains share one trust anchor).
    ///
    /// The intermediate and leaf get fresh keys. Parameters as in `init(rootCN:...)`.
    package init(
        root: TestCertificate,
        leafHasOID: Bool = true,
        intermediateHasOID: Bool = true,
        leafNotBefore: Date = AppleShapedChain.leafNotBefore,
        leafNotAfter: Date = AppleShapedChain.leafNotAfter,
        keyIdentifiers: Bool = true
    ) {
        let (intermediate, leaf) = TestPKI.markerChain(
            under: root, intermediateCN: Self.intermediateCN, intermediateKey: .p384(), leafCN: Self.leafCN,
            leafKey: .p256(), leafHasOID: leafHasOID, intermediateHasOID: intermediateHasOID,
            leafNotBefore: leafNotBefore, leafNotAfter: leafNotAfter, keyIdentifiers: keyIdentifiers)
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
    }

    /// A chain of certificates made elsewhere (`OCSPTestPKI`'s, which name OCSP responders).
    package init(root: TestCertificate, intermediate: TestCertificate, leaf: TestCertificate) {
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
    }

    /// x5c array [leaf, intermediate, root] as standard base64.
    package var x5c: [String] {
        [leaf.base64, intermediate.base64, root.base64]
    }

    /// Header JSON `{"alg":"ES256","x5c":[...]}`: `alg` and the `x5c` entries
    /// (default `self.x5c`) are written as JSON strings, in that key order, without whitespace.
    package func headerJSON(alg: String = "ES256", x5c: [String]? = nil) -> String {
        let entries = (x5c ?? self.x5c).map(TestPKI.jsonString).joined(separator: ",")
        return "{\"alg\":\(TestPKI.jsonString(alg)),\"x5c\":[\(entries)]}"
    }

    /// A compact JWS over `payloadJSON` (used byte-exact) with `headerJSON(alg:x5c:)`,
    /// signed ES256 with the leaf key whatever `alg` says.
    package func sign(payloadJSON: String, alg: String = "ES256", x5c: [String]? = nil) -> String {
        TestPKI.compactJWS(headerJSON: headerJSON(alg: alg, x5c: x5c), payloadJSON: payloadJSON, key: leaf.key)
    }
}
