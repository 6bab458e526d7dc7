internal import FoundationEssentials

/// Verifies App Store JWS the way Apple's libraries do, reporting every check.
///
/// Apple's algorithm (alg, x5c chain to a trusted root at the signing time, marker
/// OIDs, ES256 signature, then app identity before environment), except that each
/// check is recorded with the values involved instead of one coarse error.
public struct Verifier: Sendable {
    public let options: VerificationOptions
    /// What this verifier has learned so far (headers, certificates, validated chains).
    let cache: VerificationCache
    /// The payload members decoded for verification.
    let payloadKeys: PayloadKeys
    /// "now (…)" for messages; the verifier's now never changes.
    let nowText: String
    /// The note on a chain valid now too, the same for every such token.
    let chainValidNowText: String

    public init(options: VerificationOptions) {
        self.init(options: options, cache: VerificationCache(), payloadKeys: PayloadKeys(for: options))
    }

    init(options: VerificationOptions, cache: VerificationCache, payloadKeys: PayloadKeys) {
        self.options = options
        self.cache = cache
        self.payloadKeys = payloadKeys
        self.nowText = "now (\(ISO8601.string(options.now)))"
        self.chainValidNowText = Inspection.ValidityNow.alsoValid("chain", now: nowText)
    }

    /// Inspects one compact JWS.
    ///
    /// - Parameters:
    ///   - token: the compact serialization, without surrounding whitespace.
    ///   - source: where it came from, carried into the result.
    /// - Returns: the inspection; never throws: undecodable input is a `malformed` result.
    public func inspect(_ token: String, source: String) -> Inspection {
        inspect(token, source: source, deferringSignature: false).inspection
    }

    /// Inspects a token as if its ES256 signature verified, leaving that one verification to
    /// the caller, who can then run many in a row: each streams OpenSSL's 150 KB P-256 table
    /// through the CPU's first-level cache, so back to back they stay warm for each other,
    /// and the decoding stays warm for the next token (about half a microsecond a token here).
    ///
    /// - Returns: the inspection, final when `signature` is nil or `signature.verifies()`;
    ///   otherwise it must be discarded for `inspect(_:source:)`, which reports the failure.
    public func inspectDeferringSignature(_ token: String, source: String)
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
            // Tokens of one chain share their header byte for byte: decode it and its x5c once.
            if let known = cache.recentHeader(of: token) ?? cache.header(Self.headerSegment(of: token)) {
                jws = try CompactJWS(token, decodedHeader: known.header, payloadKeys: payloadKeys)
                chain = known.chain
                signingPrefix = known.signingPrefix
            } else {
                jws = try CompactJWS(token, decodedHeader: nil, payloadKeys: payloadKeys)
                chain = ParsedChain(header: jws.header.object, trustStore: options.trustStore, cache: cache)
                let segment = Self.headerSegment(of: token)
                signingPrefix = SHA256Prefix(Array(segment.utf8)[...])
                cache.store(header: .init(header: jws.header, chain: chain, signingPrefix: signingPrefix), for: segment)
            }
        } catch {
            return (.malformed(source: source, reason: error.description), nil)
        }
        var run = Run(
            jws: jws, chain: chain, signingPrefix: signingPrefix, options: options, cache: cache,
            nowText: nowText, chainValidNowText: chainValidNowText, deferringSignature: deferringSignature)
        run.execute()
        let nested = inspectNested(jws.payload.essentials, kind: run.kind, source: source)
        run.checkBackendExpectations(nested: nested)

        let status: Status
        let reason: Inspection.Reason
        let nestedFailure = nested.first { $0.inspection.status.isFailure }
        if let failure = run.checks.first(where: { !$0.passed }) {
            status = failure.name.failureStatus
            reason = .literal("\(failure.name.rawValue): \(failure.detail)")
        } else if let nestedFailure {
            status = nestedFailure.inspection.status
            reason = .literal("nested \(nestedFailure.path) failed: \(nestedFailure.inspection.reason)")
        } else if !options.verifySignatures {
            status = .unverified
            reason = .literal(
                "NOT VERIFIED (--no-verify): decoded only; the signature and certificate chain were not checked")
        } else {
            var text =
                run.isXcode
                ? "StoreKit Testing in Xcode token, NOT signed by the App Store: signature verified with "
                    + "the trusted Xcode certificate" : "signature and certificate chain verified"
            if !nested.isEmpty { text += ", nested \(nested.map(\.path).joined(separator: " and ")) too" }
            if run.expectationsChecked { text += ", expectations met" }
            reason = .verified(text, at: run.checkTime)
            status = .valid
        }
        let inspection = Inspection(
            source: source, kind: run.kind, status: status, reason: reason, checks: run.checks,
            notes: run.notes, jws: jws, chain: run.chain, checkTime: run.checkTime,
            validNow: run.validNow, isXcode: run.isXcode, nested: nested,
            now: options.now, accessTime: options.accessTime)
        return (inspection, run.deferredSignature)
    }

    /// The text before the first dot.
    static func headerSegment(of token: String) -> String {
        var token = token
        return token.withUTF8 { bytes in
            var end = bytes.count
            CompactJWS.forEachDot(in: bytes) {
                end = $0
                return false
            }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<end]), as: UTF8.self)
        }
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
            var nestedOptions = options
            nestedOptions.kindOverride = slot.kind
            // Backend expectations are decided once, by the parent, across its nested tokens.
            nestedOptions.expectedAccountToken = nil
            nestedOptions.deviceVerificationID = nil
            nestedOptions.requireActive = false
            // The parent's key selection: the parent decides backend expectations on nested payloads.
            let verifier = Verifier(options: nestedOptions, cache: cache, payloadKeys: payloadKeys)
            nested.append(.init(path: path, inspection: verifier.inspect(token, source: nestedSource)))
        }
        return nested
    }
}

/// An ES256 verification left for later by `Verifier.inspectDeferringSignature`.
public struct DeferredSignature: Sendable {
    let key: PublicKey
    let digest: [UInt8]
    let signature: [UInt8]

    /// Runs the verification: true when the signature is good.
    public func verifies() -> Bool {
        key.verifyES256(signature: signature, digest: digest) == nil
    }
}

/// The state of one verification while its checks run. Never copied (`~Copyable`): it holds
/// a token's whole state, and a copy costs a reference count on every field.
struct Run: ~Copyable {
    let jws: CompactJWS
    let parsedChain: ParsedChain
    let signingPrefix: SHA256Prefix?
    let options: VerificationOptions
    let cache: VerificationCache
    let kind: PayloadKind
    let checkTime: Inspection.CheckTime
    var checks: [Check] = []
    var notes: [String] = []
    var chain: [CertificateSummary] = []
    var validNow: Inspection.ValidityNow?
    /// What the cache knows about this token's (leaf, intermediate) pair, once the chain is checked.
    private var chainEntry: VerificationCache.ChainEntry?
    var expectationsChecked = false
    /// A StoreKit Testing in Xcode token: one self-signed certificate, not the App Store's chain.
    var isXcode = false
    /// "at signedDate 2025-01-01T00:00:00.000Z", formatted once per token that needs it.
    private(set) lazy var checkTimeText = checkTime.phrase
    /// "now (2026-…)", formatted once per run by the verifier.
    let nowText: String
    /// "the chain is also valid now (2026-…)".
    let chainValidNowText: String
    /// Whether the ES256 verification is left to the caller (recorded as passed meanwhile).
    let deferringSignature: Bool
    /// The verification left to the caller, when `deferringSignature`.
    private(set) var deferredSignature: DeferredSignature?

    init(
        jws: CompactJWS, chain: ParsedChain, signingPrefix: SHA256Prefix?, options: VerificationOptions,
        cache: VerificationCache, nowText: String, chainValidNowText: String, deferringSignature: Bool
    ) {
        self.nowText = nowText
        self.chainValidNowText = chainValidNowText
        self.deferringSignature = deferringSignature
        self.jws = jws
        self.parsedChain = chain
        self.signingPrefix = signingPrefix
        self.options = options
        self.cache = cache
        let payload = jws.payload.essentials
        self.kind = options.kindOverride ?? jws.payload.recognisedKind ?? PayloadKind.recognise(payload)
        var notes: [String] = []
        switch options.timePolicy {
        case .now:
            checkTime = .init(date: options.now, basis: "now")
        case .fixed(let date):
            checkTime = .init(date: date, basis: "--at")
        case .signingTime:
            // Apple's rule: signedDate, else receiptCreationDate (app transactions), else now.
            let (field, found): (String, JSONValue?) =
                if let signed = payload["signedDate"] {
                    ("signedDate", signed)
                } else if let created = payload["receiptCreationDate"] {
                    ("receiptCreationDate", created)
                } else {
                    (kind.signingTimeField, nil)
                }
            if let milliseconds = found?.numberValue, let date = Timestamp.date(milliseconds: milliseconds) {
                checkTime = .init(date: date, basis: field)
            } else if let value = found, value.numberValue != nil {
                // A number, but no date (1e22, a 30-digit integer): no usable signing time.
                notes.append(
                    "\(field) is \(PayloadDisplay.rawText(value)), not a valid date (\(Timestamp.rangeDescription)); "
                        + "certificates checked now")
                checkTime = .init(date: options.now, basis: "now (\(field) is not a valid date)")
            } else {
                if let value = found {
                    notes.append("\(field) is \(value.kindDescription), not milliseconds; certificates checked now")
                }
                checkTime = .init(date: options.now, basis: "now (no \(field) in the payload)")
            }
        }
        self.notes = notes
        checks.reserveCapacity(8)  // an App Store token gets 7 checks: one allocation, not four
    }

    mutating func execute() {
        if options.verifySignatures {
            checkSigned()
            checkAlgorithm()
        } else if jws.signature.isEmpty {
            notes.append("the signature segment is empty: the token is not signed")
        }
        let (certificates, x5cCheck) = readChain()
        if options.verifySignatures {
            checks.append(x5cCheck)
            if let certificates { checkChain(certificates) }
            checkSignature(leaf: certificates?.first)
        }
        checkExpectations()
    }

    // MARK: Header and x5c

    /// An empty signature segment (`header.payload.`, an `alg: none` JWT) decides the verdict:
    /// recorded first, as the signature check, so the token reads as not signed.
    private mutating func checkSigned() {
        guard jws.signature.isEmpty else { return }
        checks.append(Check(.signature, passed: false, ForeignJWT.unsignedDetail(alg: jws.header.object["alg"])))
    }

    private mutating func checkAlgorithm() {
        switch jws.header.object["alg"] {
        case .string("ES256")?:
            checks.append(Check(.alg, passed: true, "ES256"))
        case .string(let alg)?:
            checks.append(
                Check(
                    .alg, passed: false,
                    ForeignJWT.algorithmDetail(
                        alg, header: jws.header.object,
                        payload: jws.payload.object)))
        case let other?:
            checks.append(Check(.alg, passed: false, "alg is \(other.kindDescription), expected the string \"ES256\""))
        case nil:
            checks.append(Check(.alg, passed: false, "the header has no alg; expected \"ES256\""))
        }
        // RFC 7515 §4.1.11: extensions marked critical must be understood, and jwsinspect
        // understands none (App Store data never uses crit).
        if let critical = jws.header.object["crit"] {
            checks.append(
                Check(
                    .crit, passed: false,
                    "the header marks extensions critical (crit: \(Excerpt.of(PayloadDisplay.rawText(critical)))) "
                        + "that jwsinspect does not understand; RFC 7515 requires refusing the token"))
        }
    }

    /// The `x5c` check on the parsed chain, filling the chain report.
    ///
    /// - Returns: the certificates (nil when `x5c` is unusable; the leaf and intermediate only
    ///   when `x5c[2]` is not a certificate) and the `x5c` check's outcome.
    private mutating func readChain() -> ([Certificate]?, Check) {
        func record(_ name: Check.Name, _ passed: Bool, _ detail: String) -> Check {
            Check(name, passed: passed, detail)
        }
        chain = parsedChain.summaries
        if let problem = parsedChain.problem {
            if jws.header.object["x5c"] == nil, jws.header.object["alg"] == .string("ES256") {
                return (
                    nil,
                    record(
                        .x5c, false,
                        ForeignJWT.withoutChainDetail(
                            header: jws.header.object,
                            payload: jws.payload.object))
                )
            }
            return (nil, record(.x5c, false, problem))
        }
        let certificates = parsedChain.certificates
        let count = parsedChain.count
        if count == 1, let only = certificates.first {
            // Rare (App Store chains have three certificates): worth decoding the whole payload.
            isXcode = Self.looksLikeXcode(header: jws.header.object, payload: jws.payload.object, certificate: only)
            if options.trustStore.roots.contains(where: { $0.derBytes == only.derBytes }) {
                return (certificates, record(.x5c, true, "1 certificate, identical to a trusted root (--root)"))
            }
            if isXcode {
                return (
                    nil,
                    record(
                        .x5c, false,
                        "a StoreKit Testing in Xcode token (one self-signed certificate "
                            + "\"\(only.commonName ?? only.subject)\"), NOT signed by the App Store; to verify it, export the "
                            + "certificate from Xcode (Editor > Save Public Certificate) and pass --root StoreKitTestCertificate.cer"
                    )
                )
            }
        }
        guard count == 3 else {
            return (
                nil,
                record(
                    .x5c, false,
                    "x5c has \(count) certificate\(count == 1 ? "" : "s"); "
                        + "App Store chains have exactly 3 (leaf, intermediate, root)")
            )
        }
        if let ignored = parsedChain.ignoredRoot {
            return (certificates, record(.x5c, true, "3 entries (leaf, intermediate, x5c[2]); \(ignored)"))
        }
        return (
            certificates,
            record(
                .x5c, true,
                "3 certificates (leaf, intermediate, root); x5c[2] is never trusted, only the configured roots are")
        )
    }

    /// Xcode's markers: `kid` "Apple_Xcode_Key", the certificate's name, or an Xcode environment.
    private static func looksLikeXcode(
        header: [String: JSONValue], payload: [String: JSONValue], certificate: Certificate
    ) -> Bool {
        header["kid"] == .string("Apple_Xcode_Key") || certificate.commonName == "StoreKit Testing in Xcode"
            || payload["environment"] == .string("Xcode") || payload["receiptType"] == .string("Xcode")
    }

    // MARK: Chain

    private mutating func checkChain(_ certificates: [Certificate]) {
        guard certificates.count >= 2 else { return checkTrustedSingleCertificate(certificates[0]) }
        let leaf = certificates[0]
        let intermediate = certificates[1]
        let store = options.trustStore
        let entry = cache.chain(leaf: leaf, intermediate: intermediate)
        chainEntry = entry

        // A validated pair whose path is in date at the check time needs no new validation.
        var validated = entry.validated.flatMap { $0.covers(checkTime.date) ? $0 : nil }
        if validated == nil {
            let result = store.validate(
                leaf: leaf, intermediates: [intermediate], at: checkTime.date, checks: options.chainChecks)
            if result.isValid {
                validated =
                    cache.storeValidated(result.path, leaf: leaf, intermediate: intermediate)
                    ?? .init(path: result.path, notBefore: .infinity, notAfter: -.infinity)
            } else {
                record(.chain, false, explain(result, certificates: certificates, when: checkTimeText))
            }
        }
        if let validated {
            let path = validated.path
            record(.chainValid(anchorName: validated.anchorName, at: checkTime))
            if path.count == 3 && path[0] === leaf && path[1] === intermediate {
                record(.chainPath, true, "the validated path is x5c[0] -> x5c[1] -> trusted root")
            } else {
                let names = path.map { Self.name($0) }.joined(separator: " -> ")
                record(.chainPath, false, "the validated path \(names) does not run x5c[0] -> x5c[1] -> trusted root")
            }
        }
        checks.append(entry.leafMarker)
        checks.append(entry.intermediateMarker)

        let (cache, now, chainChecks) = (cache, options.now, options.chainChecks)
        recordValidityNow(
            validText: chainValidNowText, certificates: certificates, known: validated?.covers(now) == true
        ) {
            let result = store.validate(leaf: leaf, intermediates: [intermediate], at: now, checks: chainChecks)
            if result.isValid { cache.storeValidated(result.path, leaf: leaf, intermediate: intermediate) }
            return result
        }
    }

    /// A one-certificate chain identical to a trusted root (the certificate Xcode exports):
    /// its own validity at the check time is checked; Apple's OIDs are not required for it.
    private mutating func checkTrustedSingleCertificate(_ certificate: Certificate) {
        let when = checkTimeText
        let result = options.trustStore.validate(
            leaf: certificate, intermediates: [], at: checkTime.date, checks: options.pinnedChecks)
        if result.isValid {
            record(.chain, true, "the certificate \(Self.name(certificate)) is itself a trusted root, valid \(when)")
        } else {
            record(.chain, false, explain(result, certificates: [certificate], when: when))
        }
        notes.append(
            "Apple's marker OIDs are not required: the one certificate is a trusted root given with --root"
                + (isXcode ? " (StoreKit Testing in Xcode)" : ""))
        let (store, now, pinnedChecks) = (options.trustStore, options.now, options.pinnedChecks)
        recordValidityNow(
            validText: Inspection.ValidityNow.alsoValid("certificate", now: nowText), certificates: [certificate],
            known: false
        ) {
            store.validate(leaf: certificate, intermediates: [], at: now, checks: pinnedChecks)
        }
    }

    /// Records whether the certificates are valid now too, when they were checked at another
    /// moment (the signing time, `--at`): the one place that decides `validNow`.
    ///
    /// - Parameters:
    ///   - validText: the detail when they are ("the chain is also valid now (…)").
    ///   - certificates: the chain `explain` names when they are not.
    ///   - known: true when they are already known to be valid now (a validated window covers now).
    ///   - validate: validates them now; not called when `known`.
    private mutating func recordValidityNow(
        validText: String, certificates: [Certificate], known: Bool,
        validate: () -> TrustStore.PathValidation
    ) {
        guard checkTime.basis != "now" else { return }
        if known {
            validNow = .init(date: options.now, valid: true, detail: validText)
            return
        }
        let result = validate()
        validNow = .init(
            date: options.now, valid: result.isValid,
            detail: result.isValid ? validText : explain(result, certificates: certificates, when: nowText))
    }

    /// Turns OpenSSL's verification error into a sentence naming the certificate and the dates involved.
    private func explain(_ result: TrustStore.PathValidation, certificates: [Certificate], when: String) -> String {
        guard let error = result.error else { return "ok" }  // Only failures are explained.
        let depth = Int(result.errorDepth)
        let subject: Certificate? = depth >= 0 && depth < certificates.count ? certificates[depth] : nil
        let which = depth == 0 ? "leaf" : depth == 1 ? "intermediate" : depth >= 2 ? "root" : "chain"
        var text = error.description
        if let subject {
            text += " at the \(which) \(Self.name(subject))"
        } else if depth >= 0 {
            text += " at depth \(depth)"
        }
        switch error {
        case .certNotYetValid, .certHasExpired:
            if let subject {
                text +=
                    ": valid \(ISO8601.string(subject.notBefore)) to \(ISO8601.string(subject.notAfter)), checked \(when)"
            } else {
                text += ", checked \(when)"
            }
        case .unableToGetIssuerCert, .unableToGetIssuerCertLocally, .unableToVerifyLeafSignature:
            let roots = options.trustStore.roots.map { Self.name($0) }.joined(separator: ", ")
            let issuer = (subject ?? certificates[min(1, certificates.count - 1)]).issuer
            text += ": issuer \"\(issuer)\" is not among the trusted roots (\(roots)); x5c[2] is never trusted"
        default:
            text += ", checked \(when)"
        }
        return text
    }

    // MARK: Signature

    private mutating func checkSignature(leaf: Certificate?) {
        // An empty signature was recorded first, by checkSigned.
        guard case .string("ES256")? = jws.header.object["alg"], !jws.signature.isEmpty else { return }
        guard let leaf else {
            notes.append("signature not checked: no usable leaf certificate")
            return
        }
        let key =
            parsedChain.certificates.count >= 2
            ? (chainEntry ?? cache.chain(leaf: leaf, intermediate: parsedChain.certificates[1])).leafKey
            : leaf.publicKey
        guard let key else {
            record(.signature, false, "the leaf's public key cannot be decoded")
            return
        }
        let digest = jws.withSigningInput { signingPrefix?.digest(of: $0) ?? Digest.sha256($0) }
        if deferringSignature {
            deferredSignature = DeferredSignature(key: key, digest: digest, signature: jws.signature)
        }
        if !deferringSignature, let failure = key.verifyES256(signature: jws.signature, digest: digest) {
            record(.signature, false, failure.description)
        } else {
            record(
                .signature, true,
                key.summary == "EC P-256"
                    ? Self.signatureVerified
                    : "ES256 signature over header.payload verified with the leaf's \(key.summary) key")
        }
    }

    // MARK: Expectations

    private mutating func checkExpectations() {
        guard options.expectedBundleId != nil || options.expectedAppAppleId != nil || options.expectedEnvironment != nil
        else { return }
        let identity = AppIdentity(kind: kind, payload: jws.payload.essentials)
        if let expected = options.expectedBundleId {
            expectationsChecked = true
            if !identity.carriesBundleId {
                notes.append(
                    "bundle ID not compared: \(kind.displayName) carries none (Apple does not compare it either)")
            } else if let actual = identity.bundleId {
                record(
                    .bundleId, actual == expected,
                    actual == expected
                        ? "\(identity.bundleIdField) is \(actual)"
                        : "\(identity.bundleIdField) is \"\(actual)\", expected \"\(expected)\"")
            } else {
                record(.bundleId, false, "the payload has no \(identity.bundleIdField); expected \"\(expected)\"")
            }
        }
        if let expected = options.expectedAppAppleId {
            expectationsChecked = true
            if !identity.carriesAppAppleId {
                notes.append("app Apple ID not compared: \(kind.displayName) carries none")
            } else if let actual = identity.appAppleId {
                record(
                    .appAppleId, actual == expected,
                    actual == expected
                        ? "\(identity.appAppleIdField) is \(actual)"
                        : "\(identity.appAppleIdField) is \(actual), expected \(expected)")
            } else if let environment = options.expectedEnvironment, environment != .production {
                notes.append(
                    "app Apple ID not compared: \(identity.appAppleIdField) is absent, and Apple requires it only in Production"
                )
            } else {
                record(.appAppleId, false, "the payload has no \(identity.appAppleIdField); expected \(expected)")
            }
        }
        if let expected = options.expectedEnvironment {
            expectationsChecked = true
            if let actual = identity.environment {
                record(
                    .environment, actual == expected.rawValue,
                    actual == expected.rawValue
                        ? "\(identity.environmentField) is \(actual)"
                        : "\(identity.environmentField) is \(actual), expected \(expected.rawValue)")
            } else {
                record(
                    .environment, false,
                    "the payload has no \(identity.environmentField); expected \(expected.rawValue)")
            }
        }
    }

    // MARK: Backend expectations

    /// `--account-token`, `--device-id` and `--require-active`, decided on this payload or,
    /// for a notification, on the transaction, renewal info or app transaction nested in it.
    mutating func checkBackendExpectations(nested: [Inspection.Nested]) {
        // (label for messages, payload, kind) of everything these expectations look at.
        var subjects: [(label: String, payload: [String: JSONValue], kind: PayloadKind)] = []
        if kind == .notification {
            for item in nested {
                guard let payload = item.inspection.jws?.payload.essentials else { continue }
                subjects.append((item.path + " ", payload, item.inspection.kind))
            }
        } else {
            subjects.append(("", jws.payload.essentials, kind))
        }

        if let expected = options.expectedAccountToken {
            expectationsChecked = true
            let carriers = subjects.filter { $0.kind == .transaction || $0.kind == .renewalInfo }
            let wanted = expected.uuidString.lowercased()
            if carriers.isEmpty {
                record(
                    .accountToken, false,
                    "\(kind.displayName) carries no transaction or renewal info with an appAccountToken; expected \(wanted)"
                )
            }
            for subject in carriers {
                let field = "\(subject.label)appAccountToken"
                switch subject.payload["appAccountToken"] {
                case .string(let actual)? where UUID(uuidString: actual) == expected:
                    record(.accountToken, true, "\(field) is \(actual)")
                case .string(let actual)?:
                    record(.accountToken, false, "\(field) is \(actual), expected \(wanted)")
                case let other?:
                    record(.accountToken, false, "\(field) is \(other.kindDescription), expected \(wanted)")
                case nil:
                    record(.accountToken, false, "\(field) is absent (the purchase set none), expected \(wanted)")
                }
            }
        }

        if let deviceID = options.deviceVerificationID {
            expectationsChecked = true
            let carriers = subjects.filter { $0.kind == .transaction || $0.kind == .appTransaction }
            if carriers.isEmpty {
                record(.deviceVerification, false, "\(kind.displayName) carries no deviceVerification to check")
            }
            for subject in carriers {
                record(DeviceVerification.check(subject.payload, deviceID: deviceID, label: subject.label))
            }
        }

        if options.requireActive {
            expectationsChecked = true
            let decisive = subjects.first { $0.kind == .transaction || $0.kind == .appTransaction }
            let at = options.accessTime
            let when = options.timePolicy == .signingTime ? "now" : "at \(ISO8601.string(at))"
            if let decisive {
                let access = Entitlement.access(kind: decisive.kind, payload: decisive.payload, at: at)
                record(
                    .active, access.grantsAccess == true,
                    "\(decisive.label)\(access.explanation) (access checked \(when))")
            } else {
                let access = Entitlement.access(kind: kind, payload: jws.payload.essentials, at: at)
                record(.active, false, access.explanation)
            }
        }
    }

    // MARK: Helpers

    private mutating func record(_ check: Check) {
        checks.append(check)
    }

    private mutating func record(_ name: Check.Name, _ passed: Bool, _ detail: String) {
        checks.append(Check(name, passed: passed, detail))
    }

    static let signatureVerified = "ES256 signature over header.payload verified with the leaf's EC P-256 key"

    /// A short name for messages: the common name in quotes, else the subject.
    static func name(_ certificate: Certificate) -> String {
        "\"\(certificate.commonName ?? certificate.subject)\""
    }
}
