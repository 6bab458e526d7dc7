/// The pinned-certificate trust model's validation: a one-certificate chain identical to a
/// trusted root (the certificate StoreKit Testing in Xcode exports) is checked for its own
/// validity at the check time, deciding `chain`; Apple's marker OIDs are not required of it.
enum PinnedCertificate {
    static func validate(
        _ certificate: Certificate, isXcode: Bool, at checkTime: Inspection.CheckTime, with step: TrustModelValidation
    ) -> TrustValidation {
        let (store, pinnedChecks) = (step.store, step.pinnedChecks)
        let result = store.validate(
            leaf: certificate, intermediates: [], at: checkTime.date, checks: pinnedChecks, floor: .level2)
        var found = TrustValidation(checks: [])
        if result.isValid {
            found.checks.append(
                Check(ChainPolicy.name, passed: true, ChainPolicy.Detail.pinned(certificate, at: checkTime)))
            found.path = [certificate]
        } else {
            let failure = ChainPolicy.Failure(
                result: result, certificates: [certificate], roots: store.roots, when: .checkTime(checkTime))
            found.checks.append(Check(ChainPolicy.name, passed: false, ChainPolicy.Detail.failed(failure)))
        }
        found.notes.append(
            "Apple's marker OIDs are not required: the one certificate is a trusted root given with "
                + step.hints.word(.givenRoot)
                + (isXcode ? " (StoreKit Testing in Xcode)" : ""))
        let now = step.validityNow.now
        found.validNow = step.validityNow.decide(
            checkTime: checkTime,
            validText: Inspection.ValidityNow.alsoValid("certificate", now: step.validityNow.nowText), known: false,
            validate: {
                store.validate(leaf: certificate, intermediates: [], at: now, checks: pinnedChecks, floor: .level2)
            },
            explain: { step.explainNow($0, certificates: [certificate]) })
        return found
    }
}
