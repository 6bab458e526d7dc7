package import FoundationEssentials

/// Everything jwsinspect found out about one JWS: the verdict, every check run,
/// and the decoded header, chain and payload. Renderers turn this into text or JSON.
package struct Inspection: Sendable {
    /// Where the token came from (argument, file and line, JSON path).
    package private(set) var source: String
    package private(set) var kind: PayloadKind
    package private(set) var status: Status
    /// One line: why the status is what it is.
    package var reason: String {
        switch reasonText {
        case .literal(let reason): reason
        case .verified(let verdict, let checked, let time, let decidedNow):
            "\(verdict) (\(checked) checked \(time.phrase)"
                + decidedNow.map { "; \($0.map(\.rawValue).joined(separator: " and ")) checked now" }.orEmpty + ")"
        case .failed(let check): "\(check.name.rawValue): \(check.detail)"
        case .nestedFailed(let path, let nested):
            "nested \(path) failed: \(nested.reason)"
                + (outerIsAuthentic ? "; the \(kind.displayName)'s own signature and chain verified" : "")
        }
    }
    /// The reason, or the parts of a valid token's reason: its check time is formatted only
    /// when the reason is shown (`--quiet` batches never format it).
    private(set) var reasonText: Reason
    /// Every check run, in the order they ran.
    package private(set) var checks: [Check]
    /// Things worth knowing that are not checks (skipped comparisons, fallbacks).
    package private(set) var notes: [String]
    /// The decoded token's signed envelope; nil when it could not be decoded (status `malformed`).
    package private(set) var envelope: Envelope?
    /// The envelope's compact JWS, for what reads JWS (nil when malformed).
    package var jws: CompactJWS? { envelope?.compactJWS }
    /// One entry per `x5c` certificate.
    package private(set) var chain: [CertificateSummary]
    /// When certificate validity was checked, and why that moment.
    package private(set) var checkTime: CheckTime?
    /// Whether the chain is valid at the current time too (nil when not checked).
    package private(set) var validNow: ValidityNow?
    /// A StoreKit Testing in Xcode token: NOT signed by the App Store.
    package private(set) var isXcode: Bool
    /// Every JWS nested in the payload, decoded and verified too, in payload order.
    package private(set) var nested: [Nested]
    /// The moment relative phrases are measured from ("3 years ago").
    package private(set) var now: Date
    /// The moment access is decided at, for the summary (`--at`, else now).
    package private(set) var accessTime: Date
    /// What the access decision reads beside the token (`VerificationOptions.accessContext`).
    package private(set) var accessContext = Entitlement.Context()

    /// The payload's fields rendered for reading (nil when malformed); computed on
    /// demand, so `--quiet` runs never pay for it.
    package var display: PayloadDisplay? {
        envelope.map { PayloadDisplay(kind: kind, payload: $0.sections.payload.object, now: now) }
    }

    /// One plain-language line for support staff (nil when malformed); computed on demand.
    package var summary: String? { fullPresentation?.summary }

    /// `display` and `summary` together, decoding the payload once.
    package var presentation: (display: PayloadDisplay?, summary: String?) {
        let presentation = fullPresentation
        return (presentation?.display, presentation?.summary)
    }

    /// A JWS found inside the payload (`data.signedTransactionInfo`, …) and its own inspection.
    package struct Nested: Sendable {
        /// Field path in the parent payload, e.g. "data.signedTransactionInfo".
        package let path: String
        package let inspection: Inspection
    }

    enum Reason: Sendable {
        case literal(String)
        /// The first failing check decides: its name and detail, worded when read.
        case failed(Check)
        /// A nested token's failure, worded when read.
        indirect case nestedFailed(path: String, Inspection)
        /// A valid token: the verdict, then what was checked at the check time ("certificates",
        /// "claims": its trust model says) and that time, and the time-sensitive checks that
        /// passed (nil when none did): they were decided at the time of inspection.
        case verified(String, checked: String, at: CheckTime, decidedNow: [Check.Name]?)
    }

    init(
        source: String, kind: PayloadKind, status: Status, reason: Reason, checks: [Check], notes: [String],
        envelope: Envelope?, chain: [CertificateSummary], checkTime: CheckTime?, validNow: ValidityNow?,
        isXcode: Bool, nested: [Nested] = [], now: Date, accessTime: Date
    ) {
        self.source = source
        self.kind = kind
        self.status = status
        self.reasonText = reason
        self.checks = checks
        self.notes = notes
        self.envelope = envelope
        self.chain = chain
        self.checkTime = checkTime
        self.validNow = validNow
        self.isXcode = isXcode
        self.nested = nested
        self.now = now
        self.accessTime = accessTime
    }

    /// The one rule for a verdict, for every envelope: the first failing check decides the status,
    /// then a nested token's failure; with nothing verified (`--no-verify`) the result is
    /// unverified; otherwise it is valid, its reason the trust model's verdict, the nested tokens
    /// and whether expectations were met.
    ///
    /// A pending check (a deferred signature) has not failed: the verdict is the one it gets when
    /// that check passes, and `DeferredSignature.resolve` makes it so or discards it.
    ///
    /// - Parameters:
    ///   - unverified: the reason when nothing cryptographic was checked.
    ///   - verdict: what a valid result's reason starts with ("signature and certificate chain
    ///     verified"); worded only for a valid result, as `checked` is.
    ///   - checked: what was checked at the check time ("certificates", "claims").
    static func verdict(
        checks: [Check], nested: [Nested], verifiesSignatures: Bool, unverified: @autoclosure () -> String,
        verdict: @autoclosure () -> String, checked: @autoclosure () -> String, expectationsChecked: Bool,
        at checkTime: CheckTime
    ) -> (Status, Reason) {
        if let failure = checks.first(where: { $0.state == .failed }) {
            return (failure.name.failureStatus, .failed(failure))
        }
        if let nestedFailure = nested.first(where: { $0.inspection.status.isFailure }) {
            return (nestedFailure.inspection.status, .nestedFailed(path: nestedFailure.path, nestedFailure.inspection))
        }
        guard verifiesSignatures else { return (.unverified, .literal(unverified())) }
        var text = verdict()
        if !nested.isEmpty { text += ", nested \(nested.map(\.path).joined(separator: " and ")) too" }
        if expectationsChecked { text += ", expectations met" }
        let decidedNow = checks.filter { $0.name.isTimeSensitive && $0.passed }.map(\.name)
        return (
            .valid,
            .verified(text, checked: checked(), at: checkTime, decidedNow: decidedNow.isEmpty ? nil : decidedNow)
        )
    }

    /// An input that is not a decodable JWS. It has no payload and no check time, so nothing is
    /// measured from its clock: `now` and `accessTime` are the epoch, never the wall clock.
    package static func malformed(source: String, reason: String) -> Inspection {
        Inspection(
            source: source, kind: .unknown, status: .malformed, reason: .literal(reason), checks: [], notes: [],
            envelope: nil, chain: [], checkTime: nil, validNow: nil, isXcode: false, now: .epoch, accessTime: .epoch)
    }

    /// Sets what the access decision reads beside the token.
    mutating func setAccessContext(_ context: Entitlement.Context) {
        accessContext = context
    }

    /// Passes the pending check at `index` (a deferred signature that verified, `DeferredSignature.pass`).
    mutating func passPendingCheck(at index: Int) {
        guard index < checks.count else { return }
        checks[index].pass()
    }
}

extension String? {
    /// The text, or nothing.
    fileprivate var orEmpty: String { self ?? "" }
}

extension Date {
    /// 1970-01-01T00:00:00Z: the clock of results that measure nothing from one.
    fileprivate static let epoch = Date(timeIntervalSince1970: 0)
}
