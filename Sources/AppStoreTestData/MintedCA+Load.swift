internal import JWSInspectCore

extension MintedCA {
    /// A CA read back from a `mint ca` folder's files; throws, naming the file, when one is not
    /// what `mint ca` writes.
    package init(
        rootDER: [UInt8], rootKey: [UInt8], intermediateDER: [UInt8], intermediateKey: [UInt8], leafDER: [UInt8],
        leafKey: [UInt8]
    ) throws(MintError) {
        func key(_ pem: [UInt8], _ name: String, _ curves: [KeyKind.Curve]) throws(MintError) -> PrivateKey {
            for curve in curves {
                if let key = PrivateKey.read(privateKeyPEM: pem, curve: curve) { return key }
            }
            throw MintError("\(name) is not a PKCS#8 \(curves.map(\.rawValue).joined(separator: " or ")) private key")
        }
        func certificate(_ der: [UInt8], _ name: String, key: PrivateKey, isCA: Bool) throws(MintError)
            -> IssuedCertificate
        {
            let parsed: Certificate
            do {
                parsed = try Certificate(derBytes: der)
            } catch {
                throw MintError("\(name) is \(error)")
            }
            guard let notBefore = parsed.notBefore, let notAfter = parsed.notAfter else {
                throw MintError("\(name) has a validity period that does not read")
            }
            let spec = CertificateSpec(commonName: "", notBefore: notBefore, notAfter: notAfter, isCA: isCA)
            return IssuedCertificate(certificate: parsed, key: key, spec: spec)
        }
        self.init(
            root: try certificate(
                rootDER, "root.der", key: try key(rootKey, "root-key.p8", [.p384, .p256]), isCA: true),
            intermediate: try certificate(
                intermediateDER, "intermediate.der", key: try key(intermediateKey, "intermediate-key.p8", [.p384]),
                isCA: true),
            leaf: try certificate(leafDER, "leaf.der", key: try key(leafKey, "leaf-key.p8", [.p256]), isCA: false))
    }

    /// A leaf like this CA's (same validity, issued by its intermediate) without Apple's leaf marker.
    package func leafWithoutOID() throws(MintError) -> IssuedCertificate {
        try CertificateIssuer.issue(
            CertificateSpec(
                commonName: Self.leafCN, serial: 4, notBefore: leaf.spec.notBefore, notAfter: leaf.spec.notAfter,
                isCA: false),
            key: try .generate(.ec(.p256)), issuer: intermediate)
    }

    /// An intermediate without Apple's marker (issued by this CA's root) and a leaf it issued.
    package func chainWithIntermediateWithoutOID() throws(MintError) -> (
        intermediate: IssuedCertificate, leaf: IssuedCertificate
    ) {
        try CertificateIssuer.chain(
            under: root, intermediateCN: Self.intermediateCN, intermediateKey: try .generate(.ec(.p384)),
            leafCN: Self.leafCN, leafKey: try .generate(.ec(.p256)), leafHasOID: true, intermediateHasOID: false,
            leafNotBefore: leaf.spec.notBefore, leafNotAfter: leaf.spec.notAfter,
            caValidity: (intermediate.spec.notBefore, intermediate.spec.notAfter))
    }
}
