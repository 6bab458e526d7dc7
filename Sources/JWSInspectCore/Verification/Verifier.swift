internal import FoundationEssentials

/// Verifies App Store JWS the way Apple's libraries do, reporting every check.
///
/// Apple's algorithm (alg, x5c chain to a trusted root at the signing time, marker
/// OIDs, ES256 signature, then app identity before environment), except that each
/// check is recorded with the values involved instead of one coarse error.
public struct Verifier: Sendable {
    public let options: VerificationOptions

    public init(options: VerificationOptions) {
        self.options = options
    }

    /// Inspects one compact JWS.
    ///
    /// - Parameters:
    ///   - token: the compact serialization, without surrounding whitespace.
    ///   - source: where it came from, carried into the result.
    /// - Returns: the inspection; never throws: undecodable input is a `malformed` result.
    public func inspect(_ token: String, source: String) -> Inspection {
        let jws: CompactJWS
        do {
            jws = try CompactJWS(token)
        } catch {
            return .malformed(source: source, reason: error.description)
        }
        var run = Run(jws: jws, options: options)
        run.execute()
        let failure = run.checks.first { !$0.passed }
        let status: Status
        let reason: String
        if let failure {
            status = failure.name.failureStatus
            reason = "\(failure.name.rawValue): \(failure.detail)"
        } else if !options.verifySignatures {
            status = .unverified
            reason = "NOT VERIFIED (--no-verify): decoded only; the signature and certificate chain were not checked"
        } else {
            status = .valid
            reason = "signature and certificate chain verified\(run.expectationsChecked ? ", expectations met" : "")"
                + " (certificates checked at \(run.checkTime.basis) \(ISO8601.string(run.checkTime.date)))"
        }
        return Inspection(source: source, kind: run.kind, status: status, reason: reason, checks: run.checks,
                          notes: run.notes, jws: jws, chain: run.chain, checkTime: run.checkTime, validNow: run.validNow)
    }
}

/// The state of one verification while its checks run.
private struct Run {
    let jws: CompactJWS
    let options: VerificationOptions
    let kind: PayloadKind
    let checkTime: Inspection.CheckTime
    var checks: [Check] = []
    var notes: [String] = []
    var chain: [CertificateSummary] = []
    var validNow: Inspection.ValidityNow?
    var expectationsChecked = false

    init(jws: CompactJWS, options: VerificationOptions) {
        self.jws = jws
        self.options = options
        let payload = jws.payload.object
        self.kind = options.kindOverride ?? PayloadKind.recognise(payload)
        var notes: [String] = []
        switch options.timePolicy {
        case .now:
            checkTime = .init(date: options.now, basis: "now")
        case .fixed(let date):
            checkTime = .init(date: date, basis: "--at")
        case .signingTime:
            let field = kind.signingTimeField
            if let milliseconds = payload[field]?.numberValue {
                checkTime = .init(date: Date(timeIntervalSince1970: milliseconds / 1000), basis: field)
            } else {
                if let value = payload[field] {
                    notes.append("\(field) is \(value.kindDescription), not milliseconds; certificates checked now")
                }
                checkTime = .init(date: options.now, basis: "now (no \(field) in the payload)")
            }
        }
        self.notes = notes
    }

    mutating func execute() {
        if options.verifySignatures {
            checkAlgorithm()
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

    private mutating func checkAlgorithm() {
        switch jws.header.object["alg"] {
        case .string("ES256")?:
            checks.append(Check(.alg, passed: true, "ES256"))
        case .string(let alg)?:
            checks.append(Check(.alg, passed: false, "alg is \"\(alg)\"; App Store data is signed with ES256 only"))
        case let other?:
            checks.append(Check(.alg, passed: false, "alg is \(other.kindDescription), expected the string \"ES256\""))
        case nil:
            checks.append(Check(.alg, passed: false, "the header has no alg; expected \"ES256\""))
        }
    }

    /// Decodes and parses `x5c`, filling the chain report.
    ///
    /// - Returns: the certificates (nil when `x5c` is unusable) and the `x5c` check's outcome.
    private mutating func readChain() -> ([Certificate]?, Check) {
        func record(_ name: Check.Name, _ passed: Bool, _ detail: String) -> Check { Check(name, passed: passed, detail) }
        guard let x5c = jws.header.object["x5c"] else {
            return (nil, record(.x5c, false, "the header has no x5c certificate chain"))
        }
        guard case .array(let entries) = x5c else {
            return (nil, record(.x5c, false, "x5c is \(x5c.kindDescription), expected an array of base64 certificates"))
        }
        guard entries.count <= 8 else {
            return (nil, record(.x5c, false, "x5c has \(entries.count) entries; App Store chains have exactly 3 (leaf, intermediate, root)"))
        }
        var certificates: [Certificate] = []
        var problems: [String] = []
        for (index, entry) in entries.enumerated() {
            let role = Self.role(index: index, count: entries.count)
            guard case .string(let text) = entry else {
                problems.append("x5c[\(index)] is \(entry.kindDescription), expected a base64 string")
                chain.append(CertificateSummary(index: index, role: role, error: "not a string"))
                continue
            }
            guard let data = Data(base64Encoded: text) else {
                problems.append("x5c[\(index)] is not standard base64")
                chain.append(CertificateSummary(index: index, role: role, error: "not standard base64"))
                continue
            }
            do {
                let certificate = try Certificate(derBytes: Array(data))
                certificates.append(certificate)
                chain.append(CertificateSummary(index: index, role: role, certificate: certificate,
                                                trustedRoots: options.trustStore.roots))
            } catch {
                problems.append("x5c[\(index)] is \(error)")
                chain.append(CertificateSummary(index: index, role: role, error: error.description))
            }
        }
        if let problem = problems.first {
            return (nil, record(.x5c, false, problem))
        }
        guard entries.count == 3 else {
            return (nil, record(.x5c, false, "x5c has \(entries.count) certificate\(entries.count == 1 ? "" : "s"); "
                   + "App Store chains have exactly 3 (leaf, intermediate, root)"))
        }
        return (certificates, record(.x5c, true, "3 certificates (leaf, intermediate, root); x5c[2] is never trusted, only the configured roots are"))
    }

    private static func role(index: Int, count: Int) -> String {
        switch index {
        case 0: "leaf"
        case 1: "intermediate"
        case 2: "root (in the message, never trusted)"
        default: "extra"
        }
    }

    // MARK: Chain

    private mutating func checkChain(_ certificates: [Certificate]) {
        let leaf = certificates[0]
        let intermediate = certificates[1]
        let store = options.trustStore
        let result = store.validate(leaf: leaf, intermediates: [intermediate], at: checkTime.date, strict: options.strictX509)
        let when = "at \(checkTime.basis) \(ISO8601.string(checkTime.date))"
        if result.isValid {
            let anchor = result.path.last.map { Self.name($0) } ?? "a trusted root"
            record(.chain, true, "leaf -> intermediate -> trusted root \(anchor), valid \(when)")
            let followsX5C = result.path.count == 3 && result.path[0] === leaf && result.path[1] === intermediate
            if followsX5C {
                record(.chainPath, true, "the validated path is x5c[0] -> x5c[1] -> trusted root")
            } else {
                let names = result.path.map { Self.name($0) }.joined(separator: " -> ")
                record(.chainPath, false, "the validated path \(names) does not run x5c[0] -> x5c[1] -> trusted root")
            }
        } else {
            record(.chain, false, explain(result, certificates: certificates, when: when))
        }
        checkMarker(.leafOID, leaf, AppleCertificates.leafMarkerOID, "leaf")
        checkMarker(.intermediateOID, intermediate, AppleCertificates.intermediateMarkerOID, "intermediate")

        if checkTime.basis != "now" {
            let nowText = "now (\(ISO8601.string(options.now)))"
            // Without revocation data, a path's validity depends on the time only through the
            // certificates' validity periods: a path valid at the check time whose certificates
            // are all within their dates now is valid now, without a second (P-384) validation.
            let inDatesNow = result.path.allSatisfy { certificate in
                guard let notBefore = certificate.notBefore, let notAfter = certificate.notAfter else { return false }
                return notBefore <= options.now && options.now <= notAfter
            }
            if result.isValid && inDatesNow {
                validNow = .init(date: options.now, valid: true, detail: "the chain is also valid \(nowText)")
            } else {
                let now = store.validate(leaf: leaf, intermediates: [intermediate], at: options.now, strict: options.strictX509)
                validNow = .init(date: options.now, valid: now.isValid,
                                 detail: now.isValid ? "the chain is also valid \(nowText)"
                                     : explain(now, certificates: certificates, when: nowText))
            }
        }
    }

    private mutating func checkMarker(_ name: Check.Name, _ certificate: Certificate, _ oid: String, _ role: String) {
        if let value = certificate.extensionValue(oid: oid) {
            let shown = value == [0x05, 0x00] ? "NULL" : "0x" + value.hexString()
            record(name, true, "the \(role) carries \(oid) (value \(shown))")
        } else {
            record(name, false, "the \(role) \(Self.name(certificate)) lacks Apple's marker extension \(oid)")
        }
    }

    /// Turns OpenSSL's verification error into a sentence naming the certificate and the dates involved.
    private func explain(_ result: TrustStore.PathValidation, certificates: [Certificate], when: String) -> String {
        let depth = Int(result.errorDepth)
        let subject: Certificate? = depth >= 0 && depth < certificates.count ? certificates[depth] : nil
        let which = depth == 0 ? "leaf" : depth == 1 ? "intermediate" : depth >= 2 ? "root" : "chain"
        var text = "\(result.errorText) (X509_V_ERR \(result.errorCode))"
        if let subject { text += " at the \(which) \(Self.name(subject))" } else if depth >= 0 { text += " at depth \(depth)" }
        switch result.errorCode {
        case 9, 10:  // X509_V_ERR_CERT_NOT_YET_VALID, X509_V_ERR_CERT_HAS_EXPIRED
            if let subject {
                text += ": valid \(ISO8601.string(subject.notBefore)) to \(ISO8601.string(subject.notAfter)), checked \(when)"
            } else {
                text += ", checked \(when)"
            }
        case 2, 20, 21:  // unable to get issuer certificate (locally), unable to verify the first certificate
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
        guard case .string("ES256")? = jws.header.object["alg"] else { return }
        guard let leaf else {
            notes.append("signature not checked: no usable leaf certificate")
            return
        }
        guard let key = leaf.publicKey else {
            record(.signature, false, "the leaf's public key cannot be decoded")
            return
        }
        if let failure = key.verifyES256(signature: jws.signature, message: jws.signingInput) {
            record(.signature, false, failure.description)
        } else {
            record(.signature, true, "ES256 signature over header.payload verified with the leaf's \(key.summary) key")
        }
    }

    // MARK: Expectations

    private mutating func checkExpectations() {
        let identity = AppIdentity(kind: kind, payload: jws.payload.object)
        if let expected = options.expectedBundleId {
            expectationsChecked = true
            if !identity.carriesBundleId {
                notes.append("bundle ID not compared: \(kind.displayName) carries none (Apple does not compare it either)")
            } else if let actual = identity.bundleId {
                record(.bundleId, actual == expected,
                       actual == expected ? "\(identity.bundleIdField) is \(actual)"
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
                record(.appAppleId, actual == expected,
                       actual == expected ? "\(identity.appAppleIdField) is \(actual)"
                           : "\(identity.appAppleIdField) is \(actual), expected \(expected)")
            } else if let environment = options.expectedEnvironment, environment != .production {
                notes.append("app Apple ID not compared: \(identity.appAppleIdField) is absent, and Apple requires it only in Production")
            } else {
                record(.appAppleId, false, "the payload has no \(identity.appAppleIdField); expected \(expected)")
            }
        }
        if let expected = options.expectedEnvironment {
            expectationsChecked = true
            if let actual = identity.environment {
                record(.environment, actual == expected.rawValue,
                       actual == expected.rawValue ? "\(identity.environmentField) is \(actual)"
                           : "\(identity.environmentField) is \(actual), expected \(expected.rawValue)")
            } else {
                record(.environment, false, "the payload has no \(identity.environmentField); expected \(expected.rawValue)")
            }
        }
    }

    // MARK: Helpers

    private mutating func record(_ name: Check.Name, _ passed: Bool, _ detail: String) {
        checks.append(Check(name, passed: passed, detail))
    }

    /// A short name for messages: the common name in quotes, else the subject.
    static func name(_ certificate: Certificate) -> String {
        "\"\(certificate.commonName ?? certificate.subject)\""
    }
}
