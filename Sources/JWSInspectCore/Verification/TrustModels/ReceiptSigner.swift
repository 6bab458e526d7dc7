internal import FoundationEssentials

/// A legacy receipt's trust model: the CMS signer's certificate, through the certificates the
/// container embeds, to Apple Inc. Root (or the roots given instead) at the check time, with
/// Apple's marker OIDs on an App Store receipt; the PKCS#7 signature over the content by that
/// certificate. Configured once per verifier; its validation decides `signature`, `chain`,
/// `leaf-oid`, `intermediate-oid` (and `revocation` when asked for), and whether the chain is
/// valid now too, by the rules every envelope shares.
struct ReceiptSigner: Sendable {
    /// The roots receipts are checked against: Apple Inc. Root unless others were given.
    let trustStore: TrustStore
    /// False when nothing cryptographic runs (the certificates are still shown).
    let verifiesSignatures: Bool
    let revocation: RevocationPolicy?
    let hints: any HintWording
    let validityNow: Inspection.ValidityNow.Rule

    init(options: VerificationOptions, validityNow: Inspection.ValidityNow.Rule) {
        let isDefault = options.trustStore.rootDERs == AppleCertificates.embeddedRootDERs
        trustStore = isDefault ? ReceiptChain.appleIncRoot : options.trustStore
        verifiesSignatures = options.verifySignatures
        revocation = options.revocation.map {
            RevocationPolicy(
                requester: $0, requireCheck: options.requireRevocationCheck, now: validityNow.now,
                nowText: validityNow.nowText)
        }
        hints = options.hints
        self.validityNow = validityNow
    }

    /// How a valid receipt's verdict reads.
    func verdict(isXcode: Bool) -> String {
        isXcode
            ? "PKCS#7 signature verified with the StoreKit Testing certificate given as " + hints.word(.givenRoot)
            : "PKCS#7 signature and certificate chain verified"
    }

    /// The certificates shown, and what the validation found.
    func validate(_ subject: ReceiptSubject) -> (chain: [CertificateSummary], TrustValidation) {
        let container = subject.receipt.container
        let signer = container.signerCertificate.quotedName
        let validation = ReceiptChain.validate(container, trustStore: trustStore, at: subject.checkTime.date)
        let chain = summaries(subject, path: validation.path.isValid ? validation.path.path : nil)
        var found = TrustValidation(checks: [])
        guard verifiesSignatures else { return (chain, found) }
        let algorithm = "\(container.digestAlgorithm) with \(container.signatureAlgorithm)"
        let weakDigests = container.digests(refusedBy: ReceiptChain.algorithmFloor)
        switch Result(catching: { () throws(CMSSignedData.SignatureError) in try container.verifySignature() }) {
        case .success where !weakDigests.isEmpty:
            // A signature over a weak digest does not tie the signer to these bytes: a collision
            // gives other content the same digest, so the same signature.
            found.checks.append(
                Check(
                    SignaturePolicy.name, passed: false,
                    "the PKCS#7 signature (\(algorithm)) uses the digest \(weakDigests.joined(separator: " and ")), "
                        + "which receipts do not accept (SHA-1, SHA-2 and SHA-3 only): a collision would let other "
                        + "content carry the same signature"))
        case .success:
            found.checks.append(
                Check(
                    SignaturePolicy.name, passed: true,
                    "PKCS#7 signature (\(algorithm)) over the \(container.content.count)-byte receipt verifies "
                        + "with the signer's certificate \(signer)"))
        case .failure(let error):
            found.checks.append(Check(SignaturePolicy.name, passed: false, error.description))
        }
        found.checks.append(chainCheck(validation, subject))
        if !subject.isXcode {
            let leafMissing = validation.failures.contains { if case .leafMarkerMissing = $0 { true } else { false } }
            found.checks.append(LeafOIDPolicy.receiptCheck(missing: leafMissing, signer: container.signerCertificate))
            found.checks.append(
                IntermediateOIDPolicy.receiptCheck(missing: validation.failures.contains(.intermediateMarkerMissing)))
        }
        if validation.isValid {
            found.path = validation.path.path
            if let revocation, !found.checks.contains(where: \.failed) {
                let (check, notes) = revocation.decide(path: validation.path.path)
                if let check { found.checks.append(check) }
                found.notes += notes
            }
            let certificates = Self.orderedCertificates(container)
            let store = trustStore
            let now = validityNow
            found.validNow = validityNow.decide(
                checkTime: subject.checkTime,
                validText: Inspection.ValidityNow.alsoValid(
                    subject.isXcode ? "certificate" : "chain", now: now.nowText),
                known: false,
                validate: { ReceiptChain.validate(container, trustStore: store, at: now.now).path },
                explain: { result in
                    ChainPolicy.Failure(
                        result: result, certificates: certificates, roots: store.roots,
                        when: .phrase(now.nowText, now.now), untrustedNote: Self.untrustedNote
                    ).text
                })
        }
        return (chain, found)
    }

    /// Said when the issuer is not a trusted root.
    private static let untrustedNote = "the receipt's own root certificate is never trusted"

    /// The `chain` check of a validation at the check time.
    private func chainCheck(_ validation: ReceiptChain.Validation, _ subject: ReceiptSubject) -> Check {
        let path = validation.path
        let checkTime = subject.checkTime
        guard let error = path.error else {
            let root = path.path.last.map(\.quotedName) ?? "?"
            let given = hints.word(.givenRoot)
            let detail =
                if subject.isXcode {
                    "the StoreKit certificate \(root) is itself a trusted root (\(given)), valid \(checkTime.phrase)"
                } else if path.path.count == 1 {
                    "the signer's certificate \(root) is itself a trusted root (\(given)), valid \(checkTime.phrase)"
                } else {
                    "leaf -> \(path.path.count > 2 ? "intermediate -> " : "")trusted root \(root), valid \(checkTime.phrase)"
                }
            return Check(ChainPolicy.name, passed: true, detail)
        }
        let container = subject.receipt.container
        if subject.isXcode, !trustStore.rootDERs.contains(container.signerCertificate.derBytes) {
            return Check(
                ChainPolicy.name, passed: false,
                "a StoreKit Testing in Xcode receipt, signed by Xcode's self-signed \"StoreKit\" certificate, "
                    + "not by the App Store: valid only with that certificate given as "
                    + "\(hints.word(.givenRoot)) (\(error.text))")
        }
        return Check(
            ChainPolicy.name, passed: false,
            ChainPolicy.Failure(
                result: path, certificates: Self.orderedCertificates(container), roots: trustStore.roots,
                when: .checkTime(checkTime), untrustedNote: Self.untrustedNote))
    }

    /// The signer's certificate first, then the other embedded certificates in container order.
    private static func orderedCertificates(_ container: CMSSignedData) -> [Certificate] {
        let leaf = container.signerCertificate
        return [leaf] + container.certificates.filter { $0 !== leaf }
    }

    /// One summary per certificate: along the validated path when there is one, else the signer
    /// first and the others in container order. Made once per order of a certificate set in a
    /// run (`EmbeddedCertificates.summaries`): they depend on the certificates, their order and
    /// the roots alone.
    private func summaries(_ subject: ReceiptSubject, path: [Certificate]?) -> [CertificateSummary] {
        let container = subject.receipt.container
        let certificates = Self.orderedCertificates(container)
        let ordered: [Certificate]
        if let path {
            // The path ends at the trusted root: the embedded copy, when there is one, is shown instead.
            let embedded = path.map { step in certificates.first { $0.derBytes == step.derBytes } ?? step }
            ordered = embedded + certificates.filter { certificate in !embedded.contains { $0 === certificate } }
        } else {
            ordered = certificates
        }
        let key = EmbeddedCertificates.SummaryKey(
            store: trustStore, order: ordered, pathCount: path?.count,
            isXcode: subject.isXcode)
        return container.embedded.summaries(for: key) {
            ordered.enumerated().map { index, certificate in
                let role: String
                if index == 0 {
                    role = subject.isXcode ? "signer (StoreKit Testing in Xcode)" : "leaf"
                } else if certificate.isSelfIssued {
                    role = "root (not used for trust)"
                } else {
                    role = index < (path?.count ?? ordered.count) ? "intermediate" : "extra"
                }
                return CertificateSummary(
                    index: index, role: role, certificate: certificate, trustedRootDERs: trustStore.rootDERs)
            }
        }
    }
}
