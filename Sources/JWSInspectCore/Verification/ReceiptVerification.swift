internal import FoundationEssentials

extension Verifier {
    /// Inspects a legacy App Store receipt (a PKCS#7 container, DER or BER) with the same
    /// checks, statuses and expectations as a JWS.
    ///
    /// Checks, in order: `signature` (the CMS signature over the content, over SHA-1 or a stronger
    /// digest, exit 1), `chain` (the
    /// signer's certificate through the embedded ones to Apple Inc. Root, or the `--root`
    /// certificates, at `receipt_creation_date` unless `--at`; exit 2), `leaf-oid` and
    /// `intermediate-oid` (Apple's markers, App Store receipts only; exit 2), then the
    /// expectations: `bundle-id` (exit 4), `environment` (exit 3), `device-verification`
    /// (exit 4) and `active` (exit 6).
    ///
    /// - Parameters:
    ///   - der: the container's bytes.
    ///   - source: where it came from, carried into the result.
    /// - Returns: the inspection; never throws: an unreadable receipt is a `malformed` result.
    public func inspectReceipt(_ der: [UInt8], source: String) -> Inspection {
        let receipt: ReceiptEnvelope
        do {
            receipt = try ReceiptEnvelope(der: der)
        } catch {
            return .malformed(source: source, reason: error.description)
        }
        var run = ReceiptRun(receipt: receipt, options: options, nowText: nowText)
        run.verify()
        run.expect(policies.receiptExpectations)
        return run.inspection(source: source)
    }
}

/// The state of one receipt's verification while its checks run.
struct ReceiptRun {
    let receipt: ReceiptEnvelope
    let options: VerificationOptions
    let nowText: String
    let checkTime: Inspection.CheckTime
    let isXcode: Bool
    var checks: [Check] = []
    var notes: [String] = []
    var chain: [CertificateSummary] = []
    var validNow: Inspection.ValidityNow?
    var expectationsChecked = false

    init(receipt: ReceiptEnvelope, options: VerificationOptions, nowText: String) {
        self.receipt = receipt
        self.options = options
        self.nowText = nowText
        let isDefault = options.trustStore.rootDERs == AppleCertificates.embeddedRootDERs
        trustStore = isDefault ? ReceiptChain.appleIncRoot : options.trustStore
        if case .storeKitTesting = ReceiptChain.signer(of: receipt.container) {
            isXcode = true
        } else {
            isXcode = false
        }
        let payload = receipt.payload
        let (checkTime, note) = Inspection.CheckTime.decide(
            options.timePolicy, now: options.now, hints: options.hints
        ) {
            if let created = payload.creationDate { return .date(created, field: "receipt_creation_date") }
            let text = payload.creationDateText.map { "is \"\($0)\", not an RFC 3339 date" }
            return .unusable(
                .init(name: "receipt_creation_date", container: "the receipt"), text == nil ? .absent : .notADate,
                note: "receipt_creation_date \(text ?? "is absent"): certificates checked now")
        }
        self.checkTime = checkTime
        if let note { notes.append(note) }
    }

    /// The roots receipts are checked against: Apple Inc. Root unless `--root` gave others.
    let trustStore: TrustStore

    /// The signature, the chain at the check time (and now), and Apple's marker OIDs.
    mutating func verify() {
        let container = receipt.container
        let signer = Run.name(container.signerCertificate)
        let validation = ReceiptChain.validate(container, trustStore: trustStore, at: checkTime.date)
        chain = summaries(validation.path.isValid ? validation.path.path : nil)
        guard options.verifySignatures else { return }
        let algorithm = "\(container.digestAlgorithm) with \(container.signatureAlgorithm)"
        let weakDigests = container.digests(refusedBy: ReceiptChain.algorithmFloor)
        switch Result(catching: { () throws(CMSSignedData.SignatureError) in try container.verifySignature() }) {
        case .success where !weakDigests.isEmpty:
            // A signature over a weak digest does not tie the signer to these bytes: a collision
            // gives other content the same digest, so the same signature.
            checks.append(
                Check(
                    SignaturePolicy.name, passed: false,
                    "the PKCS#7 signature (\(algorithm)) uses the digest \(weakDigests.joined(separator: " and ")), "
                        + "which receipts do not accept (SHA-1, SHA-2 and SHA-3 only): a collision would let other "
                        + "content carry the same signature"))
        case .success:
            checks.append(
                Check(
                    SignaturePolicy.name, passed: true,
                    "PKCS#7 signature (\(algorithm)) over the \(container.content.count)-byte receipt verifies "
                        + "with the signer's certificate \(signer)"))
        case .failure(let error):
            checks.append(Check(SignaturePolicy.name, passed: false, error.description))
        }
        checks.append(chainCheck(validation))
        if !isXcode {
            let leafMissing = validation.failures.contains { if case .leafMarkerMissing = $0 { true } else { false } }
            checks.append(
                Check(
                    LeafOIDPolicy.name, passed: !leafMissing,
                    leafMissing
                        ? "the leaf \(signer) lacks Apple's receipt-signing marker \(AppleCertificates.leafMarkerOID)"
                        : "the leaf carries \(AppleCertificates.leafMarkerOID) (App Store receipt signing)"))
            let intermediateMissing = validation.failures.contains(.intermediateMarkerMissing)
            checks.append(
                Check(
                    IntermediateOIDPolicy.name, passed: !intermediateMissing,
                    intermediateMissing
                        ? "no intermediate carries Apple's WWDR marker \(AppleCertificates.intermediateMarkerOID)"
                        : "the intermediate carries \(AppleCertificates.intermediateMarkerOID) (Apple WWDR CA)"))
        }
        if let requester = options.revocation, validation.isValid, !checks.contains(where: \.failed) {
            let (check, revocationNotes) = RevocationPolicy.decide(
                path: validation.path.path, requester: requester, now: options.now, nowText: nowText)
            if let check { checks.append(check) }
            notes += revocationNotes
        }
        recordValidityNow(validatedAtCheckTime: validation.isValid)
    }

    /// The backend expectations the options ask for, decided by the policies that decide them
    /// for JWS (`ReceiptExpectation`); those a receipt cannot answer are noted, not failed.
    mutating func expect(_ expectations: [any ReceiptExpectation.Type]) {
        for expectation in expectations {
            switch expectation.decide(receipt: receipt, isXcode: isXcode, options: options) {
            case .check(let check):
                expectationsChecked = true
                checks.append(check)
            case .note(let note):
                notes.append(note)
            case .none:
                break
            }
        }
    }

    /// The inspection, its verdict by the rule every envelope shares (`Inspection.verdict`).
    func inspection(source: String) -> Inspection {
        let (status, reason) = Inspection.verdict(
            checks: checks, nested: [], verifiesSignatures: options.verifySignatures,
            unverified:
                "NOT VERIFIED (\(options.hints.word(.decodeOnly))): decoded only; the PKCS#7 signature and "
                + "certificate chain were not checked",
            verdict: isXcode
                ? "PKCS#7 signature verified with the StoreKit Testing certificate given as "
                    + options.hints.word(.givenRoot)
                : "PKCS#7 signature and certificate chain verified",
            checked: "certificates", expectationsChecked: expectationsChecked, at: checkTime)
        return Inspection(
            source: source, kind: .receipt, status: status, reason: reason, checks: checks, notes: notes,
            envelope: .pkcs7(receipt), chain: chain, checkTime: checkTime, validNow: validNow, isXcode: isXcode,
            now: options.now, accessTime: options.accessTime)
    }

    /// The `chain` check of a validation at the check time.
    private func chainCheck(_ validation: ReceiptChain.Validation) -> Check {
        let path = validation.path
        guard let error = path.error else {
            let root = path.path.last.map(Run.name) ?? "?"
            let given = options.hints.word(.givenRoot)
            let detail =
                if isXcode {
                    "the StoreKit certificate \(root) is itself a trusted root (\(given)), valid \(checkTime.phrase)"
                } else if path.path.count == 1 {
                    "the signer's certificate \(root) is itself a trusted root (\(given)), valid \(checkTime.phrase)"
                } else {
                    "leaf -> \(path.path.count > 2 ? "intermediate -> " : "")trusted root \(root), valid \(checkTime.phrase)"
                }
            return Check(ChainPolicy.name, passed: true, detail)
        }
        let signer = receipt.container.signerCertificate
        if isXcode, !trustStore.rootDERs.contains(signer.derBytes) {
            return Check(
                ChainPolicy.name, passed: false,
                "a StoreKit Testing in Xcode receipt, signed by Xcode's self-signed \"StoreKit\" certificate, "
                    + "not by the App Store: valid only with that certificate given as "
                    + "\(options.hints.word(.givenRoot)) (\(error.text))")
        }
        return Check(
            ChainPolicy.name, passed: false,
            ChainPolicy.Failure(
                result: path, certificates: orderedCertificates, roots: trustStore.roots, when: .checkTime(checkTime),
                untrustedNote: "the receipt's own root certificate is never trusted"))
    }

    /// The signer's certificate first, then the other embedded certificates in container order.
    private var orderedCertificates: [Certificate] {
        let leaf = receipt.container.signerCertificate
        return [leaf] + receipt.container.certificates.filter { $0 !== leaf }
    }

    /// One summary per certificate: along the validated path when there is one, else the signer
    /// first and the others in container order.
    private func summaries(_ path: [Certificate]?) -> [CertificateSummary] {
        let certificates = orderedCertificates
        let ordered: [Certificate]
        if let path {
            // The path ends at the trusted root: the embedded copy, when there is one, is shown instead.
            let embedded = path.map { step in certificates.first { $0.derBytes == step.derBytes } ?? step }
            ordered = embedded + certificates.filter { certificate in !embedded.contains { $0 === certificate } }
        } else {
            ordered = certificates
        }
        return ordered.enumerated().map { index, certificate in
            let role: String
            if index == 0 {
                role = isXcode ? "signer (StoreKit Testing in Xcode)" : "leaf"
            } else if certificate.isSelfIssued {
                role = "root (not used for trust)"
            } else {
                role = index < (path?.count ?? ordered.count) ? "intermediate" : "extra"
            }
            return CertificateSummary(
                index: index, role: role, certificate: certificate, trustedRootDERs: trustStore.rootDERs)
        }
    }

    /// Whether the chain is valid now too, when it was checked at another moment (the rule
    /// every envelope shares, `ValidityNow.decide`); asked only of a chain valid at the check time.
    private mutating func recordValidityNow(validatedAtCheckTime: Bool) {
        guard validatedAtCheckTime else { return }
        let (container, trustStore, options) = (receipt.container, trustStore, options)
        let certificates = orderedCertificates
        validNow = Inspection.ValidityNow.decide(
            checkTime: checkTime, options: options,
            validText: Inspection.ValidityNow.alsoValid(isXcode ? "certificate" : "chain", now: nowText), known: false,
            validate: { ReceiptChain.validate(container, trustStore: trustStore, at: options.now).path }
        ) { [nowText] result in
            ChainPolicy.Failure(
                result: result, certificates: certificates, roots: trustStore.roots,
                when: .phrase(nowText, options.now),
                untrustedNote: "the receipt's own root certificate is never trusted"
            ).text
        }
    }
}
