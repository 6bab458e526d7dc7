/// The pinned-certificate trust model's validation: a one-certificate chain identical to a
/// trusted root (the certificate StoreKit Testing in Xcode exports) is checked for its own
/// validity at the check time, deciding `chain`; Apple's marker OIDs are not required of it.
enum PinnedCertificate {
    static func validate(_ certificate: Certificate, isXcode: Bool, run: inout Run) {
        let (store, pinnedChecks) = (run.options.trustStore, run.options.pinnedChecks)
        let checkTime = run.checkTime
        let result = store.validate(
            leaf: certificate, intermediates: [], at: checkTime.date, checks: pinnedChecks, floor: .level2)
        if result.isValid {
            run.record(ChainPolicy.name, true, ChainPolicy.Detail.pinned(certificate, at: checkTime))
            run.validatedPath = [certificate]
        } else {
            let failure = ChainPolicy.Failure(
                result: result, certificates: [certificate], roots: store.roots, when: .checkTime(checkTime))
            run.record(ChainPolicy.name, false, ChainPolicy.Detail.failed(failure))
        }
        run.notes.append(
            "Apple's marker OIDs are not required: the one certificate is a trusted root given with "
                + run.options.hints.word(.givenRoot)
                + (isXcode ? " (StoreKit Testing in Xcode)" : ""))
        let now = run.options.now
        run.recordValidityNow(
            validText: Inspection.ValidityNow.alsoValid("certificate", now: run.nowText), certificates: [certificate],
            known: false
        ) {
            store.validate(leaf: certificate, intermediates: [], at: now, checks: pinnedChecks, floor: .level2)
        }
    }
}
