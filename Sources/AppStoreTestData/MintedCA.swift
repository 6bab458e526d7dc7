package import FoundationEssentials
internal import JWSInspectCore

/// The test PKI `jwsinspect mint ca` writes: an Apple-shaped chain of its own (root,
/// intermediate with 1.2.840.113635.100.6.2.1, leaf with 1.2.840.113635.100.6.11.1 and a P-256
/// key), every subject saying "jwsinspect test" and "not Apple".
package struct MintedCA: Sendable {
    package static let rootCN = "jwsinspect test Root CA (not Apple)"
    package static let intermediateCN = "jwsinspect test WWDR intermediate (not Apple)"
    package static let leafCN = "jwsinspect test App Store signing (not Apple)"

    package let root: IssuedCertificate
    package let intermediate: IssuedCertificate
    package let leaf: IssuedCertificate

    /// A CA of these certificates (their keys with them).
    init(root: IssuedCertificate, intermediate: IssuedCertificate, leaf: IssuedCertificate) {
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
    }

    /// A fresh CA whose leaf is valid from `backdateDays` days (default 1) before `now` for
    /// `validDays` days, and whose root and intermediate from 30 days before `now` (or a day
    /// before the leaf, when that is earlier) to a year after the leaf.
    ///
    /// - Parameters:
    ///   - validDays: how long the certificates stay valid (1 to 36,500).
    ///   - rootCurve: the root's key, P-384 (as Apple Root CA - G3) or P-256.
    ///   - ocspURLs: the OCSP responders the intermediate and the leaf name (their Authority
    ///     Information Access), or nil for none.
    package init(
        validDays: Int, rootCurve: KeyKind.Curve = .p384, now: Date = Date(),
        ocspURLs: (intermediate: String?, leaf: String?) = (nil, nil), backdateDays: Int = 1
    ) throws(MintError) {
        let now = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))  // as certificates hold it
        let backdate = Double(max(1, min(backdateDays, 36_500)))
        let start = now.addingTimeInterval(-backdate * 86_400)
        let end = now.addingTimeInterval(Double(max(1, min(validDays, 36_500))) * 86_400)
        // The CAs outlast the leaf on both sides, so that a leaf out of date is the only defect.
        let caValidity = (
            now.addingTimeInterval(-max(30, backdate + 1) * 86_400), end.addingTimeInterval(365 * 86_400)
        )
        root = try CertificateIssuer.root(
            commonName: Self.rootCN, key: try .generate(.ec(rootCurve)), validity: caValidity)
        (intermediate, leaf) = try CertificateIssuer.chain(
            under: root, intermediateCN: Self.intermediateCN, intermediateKey: try .generate(.ec(.p384)),
            leafCN: Self.leafCN, leafKey: try .generate(.ec(.p256)), leafHasOID: true, intermediateHasOID: true,
            leafNotBefore: start, leafNotAfter: end, caValidity: caValidity, ocspURLs: ocspURLs)
    }

    /// One file of the CA folder.
    package struct File: Sendable {
        package let name: String
        package let bytes: [UInt8]
        /// Readable by its owner only (the leaf's private key).
        package let isSecret: Bool
    }

    /// The folder's files: `root.der`, `root.pem`, `intermediate.der`, `leaf.der`, the three
    /// keys (`*-key.p8`, secret) and `README.txt`.
    package func files() throws(MintError) -> [File] {
        [
            File(name: "root.der", bytes: root.der, isSecret: false),
            File(name: "root.pem", bytes: Array(root.pem.utf8), isSecret: false),
            File(name: "intermediate.der", bytes: intermediate.der, isSecret: false),
            File(name: "leaf.der", bytes: leaf.der, isSecret: false),
            File(name: "leaf-key.p8", bytes: Array(try leaf.key.privateKeyPEM().utf8), isSecret: true),
            File(name: "intermediate-key.p8", bytes: Array(try intermediate.key.privateKeyPEM().utf8), isSecret: true),
            File(name: "root-key.p8", bytes: Array(try root.key.privateKeyPEM().utf8), isSecret: true),
            File(name: "README.txt", bytes: Array(readme.utf8), isSecret: false),
        ] + ocspFiles
    }

    /// With OCSP URLs: `ocsp-leaf-index.txt` and `ocsp-intermediate-index.txt`, `openssl ocsp`'s
    /// index of each responder (the certificate valid; a line turned from V to R revokes it).
    private var ocspFiles: [File] {
        var files: [File] = []
        if leaf.spec.ocspURL != nil {
            files.append(File(name: "ocsp-leaf-index.txt", bytes: Array(Self.indexLine(leaf).utf8), isSecret: false))
        }
        if intermediate.spec.ocspURL != nil {
            files.append(
                File(
                    name: "ocsp-intermediate-index.txt", bytes: Array(Self.indexLine(intermediate).utf8),
                    isSecret: false))
        }
        return files
    }

    /// One valid certificate's line of an `openssl ocsp` index.
    private static func indexLine(_ certificate: IssuedCertificate) -> String {
        OCSPIndex.line(serial: certificate.spec.serial, commonName: certificate.spec.commonName)
    }

    /// The README's part on revocation, when the certificates name OCSP responders.
    private var ocspReadme: String {
        guard let leafURL = leaf.spec.ocspURL else {
            guard let url = intermediate.spec.ocspURL else { return "" }
            return "\nThe intermediate names the OCSP responder \(url) (ocsp-intermediate-index.txt).\n"
        }
        let intermediateURL = intermediate.spec.ocspURL ?? leafURL
        return """

            Revocation (jwsinspect --check-revocation): the leaf names the OCSP responder \(leafURL), the
            intermediate \(intermediateURL). Run them with openssl from this folder (a responder answers for
            one issuer, so the intermediate's needs a second one unless you only test the leaf):
              openssl ocsp -index ocsp-leaf-index.txt -port \(Self.port(of: leafURL)) -CA intermediate.der \\
                  -rsigner intermediate.der -rkey intermediate-key.p8 -ndays 1 &
              openssl ocsp -index ocsp-intermediate-index.txt -port \(Self.port(of: intermediateURL)) -CA root.der \\
                  -rsigner root.der -rkey root-key.p8 -ndays 1 &
            To revoke a certificate, change its index line's V to R and put the time in the third field
            (R<TAB>391231235959Z<TAB>261201000000Z,keyCompromise<TAB>03<TAB>...), then restart its responder.

            """
    }

    /// The port of an http:// URL (80 when it names none), as openssl ocsp -port takes it.
    private static func port(of url: String) -> String {
        let rest = url.drop { $0 != "/" }.dropFirst(2)
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        guard let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") else {
            return url.lowercased().hasPrefix("https") ? "443" : "80"
        }
        return String(authority[authority.index(after: colon)...])
    }

    /// What the folder is and how to trust it.
    package var readme: String {
        """
        jwsinspect test CA: NOTHING HERE IS APPLE'S.

        An Apple-shaped chain made by `jwsinspect mint ca` for testing App Store backends:
          root.der, root.pem   "\(Self.rootCN)", self-signed (\(rootCurveName))
          intermediate.der     "\(Self.intermediateCN)", carries 1.2.840.113635.100.6.2.1
          leaf.der             "\(Self.leafCN)", carries 1.2.840.113635.100.6.11.1
          leaf-key.p8          the leaf's P-256 private key (PKCS#8 PEM, readable by you only)
          intermediate-key.p8, root-key.p8
                               their keys (readable by you only): mint suite issues defective
                               certificates under this root with them
        Valid \(Self.day(leaf.spec.notBefore)) to \(Self.day(leaf.spec.notAfter)).

        Tokens signed with it (jwsinspect mint transaction --ca THIS-FOLDER, ...) verify only where
        root.der is trusted:
          jwsinspect:        jwsinspect --root root.der TOKEN
          Apple's libraries: pass root.der's bytes as the root certificates argument of
                             SignedDataVerifier (Python, Java, Node.js, Swift), e.g.
                             SignedDataVerifier([open("root.der","rb").read()], True, Environment.SANDBOX,
                                                "com.example.app", 1234567890)
        Never trust root.der in production: anyone holding leaf-key.p8 can sign anything.
        \(ocspReadme)
        """
    }

    /// The root key's curve as the README names it ("P-384").
    private var rootCurveName: String {
        KeyKind.Curve.allCases.first { $0.groupName == root.key.publicKey.curveName }?.rawValue ?? "EC"
    }

    private static func day(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day())
    }
}
