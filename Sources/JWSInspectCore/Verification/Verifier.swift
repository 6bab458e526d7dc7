package import FoundationEssentials

/// Verifies App Store JWS the way Apple's libraries do, reporting every check.
///
/// Apple's algorithm (alg, x5c chain to a trusted root at the signing time, marker
/// OIDs, ES256 signature, then app identity before environment), except that each
/// check is recorded with the values involved instead of one coarse error.
package struct Verifier: Sendable {
    package let options: VerificationOptions
    /// What this verifier has learned so far (headers, certificates, validated chains).
    let cache: VerificationCache
    /// The payload members decoded for verification: those `policies` read.
    let payloadKeys: PayloadKeys
    /// The checks run on every token, chosen once from `options`.
    let policies: Policies
    /// The checks run on the tokens nested in a notification (no backend expectations).
    let nestedPolicies: Policies
    package init(options: VerificationOptions) {
        let policies = Policies.make(options)
        self.init(
            options: options, cache: VerificationCache(),
            payloadKeys: PayloadKeys(policies: policies, kindOverride: options.kindOverride), policies: policies,
            nestedPolicies: Policies.make(Self.nestedOptions(options)))
    }

    init(options: VerificationOptions, cache: VerificationCache, payloadKeys: PayloadKeys) {
        self.init(
            options: options, cache: cache, payloadKeys: payloadKeys, policies: Policies.make(options),
            nestedPolicies: Policies.make(Self.nestedOptions(options)))
    }

    init(
        options: VerificationOptions, cache: VerificationCache, payloadKeys: PayloadKeys, policies: Policies,
        nestedPolicies: Policies
    ) {
        self.options = options
        self.cache = cache
        self.payloadKeys = payloadKeys
        self.policies = policies
        self.nestedPolicies = nestedPolicies
    }

    /// This verifier with `now` as the current time, sharing what it has learned (a listener
    /// verifies each request at its own moment).
    package func at(_ now: Date) -> Verifier {
        var options = options
        options.now = now
        return Verifier(options: options, cache: cache, payloadKeys: payloadKeys)
    }

    /// Inspects one compact JWS.
    ///
    /// - Parameters:
    ///   - token: the compact serialization, without surrounding whitespace.
    ///   - source: where it came from, carried into the result.
    /// - Returns: the inspection; never throws: undecodable input is a `malformed` result.
    package func inspect(_ token: String, source: String) -> Inspection {
        inspect(token, source: source, deferringSignature: false).inspection
    }

    /// Inspects a token leaving its ES256 verification to the caller, who can then run many in
    /// a row (the batch engine's `SignatureBatch` does).
    ///
    /// - Returns: the inspection, final when `signature` is nil. Otherwise its `signature`
    ///   check is `pending` (never passed before it has run) and its verdict is the one it gets
    ///   if the signature verifies: `signature.resolve(&inspection)` runs the verification and
    ///   passes the check, or returns false, and the inspection must then be discarded for
    ///   `inspect(_:source:)`, which reports the failure.
    package func inspectDeferringSignature(_ token: String, source: String)
        -> (inspection: Inspection, signature: DeferredSignature?)
    {
        inspect(token, source: source, deferringSignature: true)
    }

    private func inspect(_ token: String, source: String, deferringSignature: Bool)
        -> (inspection: Inspection, signature: DeferredSignature?)
    {
        let jws: CompactJWS
        let chain: ParsedChain
        let signingPrefix: SHA256Prefix?
        do {
            // The engine's header step: a header and its x5c are decoded once for every token sharing them.
            (jws, chain, signingPrefix) = try cache.decode(
                token, payloadKeys: payloadKeys, trustStore: options.trustStore)
        } catch {
            return (.malformed(source: source, reason: error.description), nil)
        }
        // The stages: the subject (decoded once, trust decided), the token's own checks, the
        // nested tokens, the backend expectations, the report.
        let subject = TokenSubject(
            jws: jws, chain: chain, signingPrefix: signingPrefix, options: options, cache: cache,
            deferringSignature: deferringSignature)
        var report = Report(chain: chain.summaries, note: subject.checkTimeNote)
        if let kindNote = subject.kindNote { report.add(.note(kindNote)) }
        if !policies.verifiesSignatures, jws.signature.isEmpty {
            report.add(.note("the signature segment is empty: the token is not signed"))
        }
        for step in policies.steps {
            let outcome = step.decide(subject, report)
            report.add(outcome)
        }
        let nested = inspectNested(jws.payload.essentials, kind: subject.kind, source: source)
        if let hint = Self.signingTimeHint(subject.checkTime, report.checks, nested: nested, hints: options.hints) {
            report.note(hint)
        }
        if !policies.expectations.isEmpty {
            let decided = subject.expectationSubject(nested: nested)
            for expectation in policies.expectations { report.addExpectation(expectation.decide(decided)) }
        }
        let deferred = report.deferredSignature
        let inspection = report.inspection(
            source: source, kind: subject.kind, envelope: .compactJWS(jws), checkTime: subject.checkTime,
            isXcode: subject.isXcode, nested: nested, options: options,
            unverified: "the signature and certificate chain were not checked",
            verdict: subject.trust.verdict(options.hints), checked: subject.trust.checkedAtCheckTime)
        return (inspection, deferred)
    }

    /// A notification without a usable signedDate is checked now, as Apple checks it, and fails
    /// once its leaf has expired: its nested tokens say when it was signed, and a fixed time
    /// checks it then.
    static func signingTimeHint(
        _ checkTime: Inspection.CheckTime, _ checks: [Check], nested: [Inspection.Nested], hints: any HintWording
    ) -> String? {
        guard case .nowInstead = checkTime.basis, checks.contains(where: { $0.name == .chain && $0.failed }),
            let signed = nested.compactMap({ item -> Date? in
                guard let time = item.inspection.checkTime, !time.basis.isNow else { return nil }
                return time.date
            }).max()
        else { return nil }
        let date = ISO8601.string(signed)
        return
            "its nested tokens were signed at \(date); to check its chain then, give \(hints.word(.fixedTime)) \(date)"
    }

    /// Decodes and verifies every JWS nested in a notification (`NotificationBody.nestedTokens`),
    /// with the same roots, time policy and expectations; the nested kind follows from where it sits.
    private func inspectNested(_ payload: [String: JSONValue], kind: PayloadKind, source: String) -> [Inspection.Nested]
    {
        guard kind == .notification else { return [] }
        var nested: [Inspection.Nested] = []
        for slot in NotificationBody.nestedTokens {
            guard let value = payload[slot.body]?[slot.member], value != .null else { continue }
            let path = slot.path
            let nestedSource = "\(source) \u{203A} \(path)"
            guard case .string(let token) = value else {
                nested.append(
                    .init(
                        path: path,
                        inspection: .malformed(
                            source: nestedSource, reason: "\(path) is \(value.kindDescription), expected a JWS string"))
                )
                continue
            }
            var nestedOptions = Self.nestedOptions(options)
            nestedOptions.kindOverride = slot.kind
            // The parent's key selection: the parent decides backend expectations on nested payloads.
            let verifier = Verifier(
                options: nestedOptions, cache: cache, payloadKeys: payloadKeys, policies: nestedPolicies,
                nestedPolicies: nestedPolicies)
            nested.append(.init(path: path, inspection: verifier.inspect(token, source: nestedSource)))
        }
        return nested
    }

    /// The options nested tokens are verified with: backend expectations are decided once, by
    /// the parent, across its nested tokens.
    static func nestedOptions(_ options: VerificationOptions) -> VerificationOptions {
        var nested = options
        nested.expectedAccountToken = nil
        nested.deviceVerificationID = nil
        nested.requireActive = false
        return nested
    }
}
