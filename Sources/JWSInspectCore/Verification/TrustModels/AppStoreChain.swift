/// The App Store trust model's validation: x5c[0] -> x5c[1] -> a trusted root at the check
/// time, in one OpenSSL call whose validated window the cache keeps, deciding `chain`,
/// `chain-path`, `leaf-oid` and `intermediate-oid` (the markers are decided once per pair,
/// by `markerChecks`, and kept by the cache), and whether the chain is valid now too.
enum AppStoreChain {
    /// `leaf-oid` and `intermediate-oid`: they depend on the certificates only, so the cache
    /// keeps them with the pair (`VerificationCache.ChainEntry.pairChecks`).
    static func markerChecks(leaf: Certificate, intermediate: Certificate) -> [Check] {
        [LeafOIDPolicy.check(leaf), IntermediateOIDPolicy.check(intermediate)]
    }

    static func validate(leaf: Certificate, intermediate: Certificate, run: inout Run) {
        let store = run.options.trustStore
        let cache = run.cache
        let checkTime = run.checkTime
        let entry = cache.chain(leaf: leaf, intermediate: intermediate, pairChecks: markerChecks)
        run.chainEntry = entry

        // A validated pair whose path is in date at the check time needs no new validation.
        var validated = entry.validated.flatMap { $0.covers(checkTime.date) ? $0 : nil }
        if validated == nil {
            let result = store.validate(
                leaf: leaf, intermediates: [intermediate], at: checkTime.date, checks: run.options.chainChecks)
            if result.isValid {
                validated =
                    cache.storeValidated(result.path, leaf: leaf, intermediate: intermediate)
                    ?? .init(path: result.path, notBefore: .infinity, notAfter: -.infinity)
            } else {
                let failure = ChainPolicy.Failure(
                    result: result, certificates: run.parsedChain.certificates, roots: store.roots,
                    when: .checkTime(checkTime))
                run.record(ChainPolicy.name, false, ChainPolicy.Detail.failed(failure))
            }
        }
        if let validated {
            run.record(.chainValid(anchorName: validated.anchorName, at: checkTime))
            run.record(ChainPathPolicy.check(validated.path, leaf: leaf, intermediate: intermediate))
        }
        for check in entry.pairChecks { run.record(check) }

        let (now, chainChecks) = (run.options.now, run.options.chainChecks)
        run.recordValidityNow(
            validText: run.chainValidNowText, certificates: run.parsedChain.certificates,
            known: validated?.covers(now) == true
        ) {
            let result = store.validate(leaf: leaf, intermediates: [intermediate], at: now, checks: chainChecks)
            if result.isValid { cache.storeValidated(result.path, leaf: leaf, intermediate: intermediate) }
            return result
        }
    }
}
