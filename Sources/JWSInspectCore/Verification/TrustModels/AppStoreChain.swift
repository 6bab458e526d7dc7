internal import FoundationEssentials

/// The App Store trust model's validation: x5c[0] -> x5c[1] -> a trusted root at the check
/// time, in one OpenSSL call (and, once the path validates, a second one for OpenSSL's strict
/// checks) whose validated window the cache keeps with the strict checks' findings, deciding `chain`,
/// `chain-path`, `leaf-oid` and `intermediate-oid` (the markers are decided once per pair,
/// by `markerChecks`, and kept by the cache), and whether the chain is valid now too.
enum AppStoreChain {
    /// `leaf-oid` and `intermediate-oid`: they depend on the certificates only, so the cache
    /// keeps them with the pair (`VerificationCache.ChainEntry.pairChecks`).
    static func markerChecks(leaf: Certificate, intermediate: Certificate) -> [Check] {
        [LeafOIDPolicy.check(leaf), IntermediateOIDPolicy.check(intermediate)]
    }

    static func validate(
        leaf: Certificate, intermediate: Certificate, token: borrowing TokenSubject, with step: TrustModelValidation
    ) -> TrustValidation {
        let store = step.store
        // The root the message names (never trusted for it): validated against first, when it is
        // a trusted root's own bytes (see `TrustStore.validate`).
        let certificates = token.parsedChain.certificates
        let namedRoot = certificates.count == 3 ? certificates[2].derBytes : nil
        let cache = token.cache
        let checkTime = token.checkTime
        let entry = cache.chain(leaf: leaf, intermediate: intermediate, pairChecks: markerChecks)
        var found = TrustValidation(checks: [], chainEntry: entry)
        found.checks.reserveCapacity(2 + entry.pairChecks.count)

        // A validated pair whose path is in date at the check time needs no new validation.
        var validated = entry.validated.flatMap { $0.covers(checkTime.date) ? $0 : nil }
        if validated == nil {
            let result = validation(
                leaf: leaf, intermediate: intermediate, at: checkTime.date, store: store, namedRoot: namedRoot)
            if result.isValid {
                validated =
                    cache.storeValidated(result, leaf: leaf, intermediate: intermediate)
                    ?? .init(validation: result, notBefore: .infinity, notAfter: -.infinity)
            } else {
                let failure = ChainPolicy.Failure(
                    result: result, certificates: certificates, roots: store.roots, when: .checkTime(checkTime))
                found.checks.append(Check(ChainPolicy.name, passed: false, ChainPolicy.Detail.failed(failure)))
            }
        }
        if let validated {
            // What OpenSSL's strict checks say is kept with the path: a failure when asked for, a note otherwise.
            if let findings = validated.strictFindings, step.strictX509 {
                found.checks.append(
                    Check(ChainPolicy.name, passed: false, ChainPolicy.Detail.strictRefusal(findings)))
            } else {
                found.checks.append(.chainValid(anchorName: validated.anchorName, at: checkTime))
                if let note = validated.strictNote { found.notes.append(note) }
            }
            found.checks.append(ChainPathPolicy.check(validated.path, leaf: leaf, intermediate: intermediate))
            found.path = validated.path
        }
        found.checks += entry.pairChecks

        let now = step.validityNow.now
        found.validNow = step.validityNow.decide(
            checkTime: checkTime, validText: step.chainValidNowText, known: validated?.covers(now) == true,
            validate: {
                if let known = entry.invalidValidation(at: now) { return known }
                let result = validation(
                    leaf: leaf, intermediate: intermediate, at: now, store: store, namedRoot: namedRoot)
                if result.isValid {
                    cache.storeValidated(result, leaf: leaf, intermediate: intermediate)
                } else {
                    cache.storeInvalid(result, at: now, leaf: leaf, intermediate: intermediate)
                }
                return result
            },
            explain: { step.explainNow($0, certificates: certificates) })
        return found
    }

    /// The one validation of an App Store chain: RFC 5280 path validation (as Apple's Swift,
    /// Java and Node libraries do) at OpenSSL's authentication level 2, with OpenSSL's strict
    /// checks run on the validated path for what they would refuse.
    private static func validation(
        leaf: Certificate, intermediate: Certificate, at date: Date, store: TrustStore, namedRoot: [UInt8]?
    ) -> TrustStore.PathValidation {
        store.validate(
            leaf: leaf, intermediates: [intermediate], at: date, checks: .rfc5280, floor: .level2,
            reviewingStrictChecks: true, namedRoot: namedRoot)
    }
}
