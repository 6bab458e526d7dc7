/// The pinned-certificate trust model's validation: a one-certificate chain identical to a
/// trusted root (the certificate StoreKit Testing in Xcode exports) is checked for its own
/// validity at the check time, deciding `chain`; Apple's marker OIDs are not required of it.
enum PinnedCertificate {
    static func validate(_ certificate: Certificate, isXcode: Bool, run: inout Run) {
        let when = run.checkTimeText
        let (store, pinnedChecks) = (run.options.trustStore, run.options.pinnedChecks)
        let result = store.validate(leaf: certificate, intermediates: [], at: run.checkTime.date, checks: pinnedChecks)
        if result.isValid {
            run.record(
                ChainPolicy.name, true,
                "the certificate \(Run.name(certificate)) is itself a trusted root, valid \(when)")
        } else {
            run.record(ChainPolicy.name, false, run.explain(result, certificates: [certificate], when: when))
        }
        run.notes.append(
            "Apple's marker OIDs are not required: the one certificate is a trusted root given with --root"
                + (isXcode ? " (StoreKit Testing in Xcode)" : ""))
        let now = run.options.now
        run.recordValidityNow(
            validText: Inspection.ValidityNow.alsoValid("certificate", now: run.nowText), certificates: [certificate],
            known: false
        ) {
            store.validate(leaf: certificate, intermediates: [], at: now, checks: pinnedChecks)
        }
    }
}
