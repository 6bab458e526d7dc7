internal import FoundationEssentials

extension Verifier {
    /// Inspects a legacy App Store receipt (a PKCS#7 container, DER or BER) with the same
    /// checks, statuses and expectations as a JWS, through the same stages: its subject
    /// (`ReceiptSubject`), its trust model's validation (`ReceiptSigner`), the backend
    /// expectations (`Policies.expectations`), one report.
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
    package func inspectReceipt(_ der: [UInt8], source: String) -> Inspection {
        let receipt: ReceiptEnvelope
        do {
            receipt = try ReceiptEnvelope(der: der, certificateSets: cache)
        } catch {
            return .malformed(source: source, reason: error.description)
        }
        let subject = ReceiptSubject(receipt: receipt, options: options)
        let signer = policies.receiptSigner
        let (chain, validation) = signer.validate(subject)
        var report = Report(chain: chain, note: subject.checkTimeNote)
        report.add(.validation(validation))
        let decided = ExpectationSubject.receipt(receipt, isXcode: subject.isXcode)
        for expectation in policies.expectations { report.addExpectation(expectation.decide(decided)) }
        return report.inspection(
            source: source, kind: .receipt, envelope: .pkcs7(receipt), checkTime: subject.checkTime,
            isXcode: subject.isXcode, nested: [], options: options,
            unverified: "the PKCS#7 signature and certificate chain were not checked",
            verdict: signer.verdict(isXcode: subject.isXcode), checked: "certificates")
    }
}

extension Report {
    /// The inspection this report makes, its verdict by the rule every envelope shares
    /// (`Inspection.verdict`).
    ///
    /// - Parameters:
    ///   - unverified: what was not checked, said when nothing cryptographic ran.
    ///   - verdict: how a valid verdict reads (the trust model's words).
    ///   - checked: what was checked at the check time ("certificates", "claims").
    consuming func inspection(
        source: String, kind: PayloadKind, envelope: Envelope, checkTime: Inspection.CheckTime, isXcode: Bool,
        nested: [Inspection.Nested], options: VerificationOptions, unverified: String,
        verdict: @autoclosure () -> String, checked: @autoclosure () -> String
    ) -> Inspection {
        let (status, reason) = Inspection.verdict(
            checks: checks, nested: nested, verifiesSignatures: options.verifySignatures,
            unverified: "NOT VERIFIED (\(options.hints.word(.decodeOnly))): decoded only; " + unverified,
            verdict: verdict(), checked: checked(), expectationsChecked: comparedExpectation, at: checkTime)
        var inspection = Inspection(
            source: source, kind: kind, status: status, reason: reason, checks: checks, notes: notes,
            envelope: envelope, chain: chain, checkTime: checkTime, validNow: validNow, isXcode: isXcode,
            nested: nested, now: options.now, accessTime: options.accessTime)
        inspection.setAccessContext(options.accessContext)
        return inspection
    }
}
