public import FoundationEssentials

/// Everything jwsinspect found out about one JWS: the verdict, every check run,
/// and the decoded header, chain and payload. Renderers turn this into text or JSON.
public struct Inspection: Sendable {
    /// Where the token came from (argument, file and line, JSON path).
    public var source: String
    public var kind: PayloadKind
    public var status: Status
    /// One line: why the status is what it is.
    public var reason: String {
        get {
            switch reasonText {
            case .literal(let reason): reason
            case .verified(let verdict, let checked, let time): "\(verdict) (\(checked) checked \(time.phrase))"
            case .failed(let check): "\(check.name.rawValue): \(check.detail)"
            case .nestedFailed(let path, let nested): "nested \(path) failed: \(nested.reason)"
            }
        }
        set { reasonText = .literal(newValue) }
    }
    /// The reason, or the parts of a valid token's reason: its check time is formatted only
    /// when the reason is shown (`--quiet` batches never format it).
    private var reasonText: Reason
    /// Every check run, in the order they ran.
    public var checks: [Check]
    /// Things worth knowing that are not checks (skipped comparisons, fallbacks).
    public var notes: [String]
    /// The decoded token's signed envelope; nil when it could not be decoded (status `malformed`).
    public var envelope: Envelope?
    /// The envelope's compact JWS, for what reads JWS (nil when malformed).
    public var jws: CompactJWS? { envelope?.compactJWS }
    /// One entry per `x5c` certificate.
    public var chain: [CertificateSummary]
    /// When certificate validity was checked, and why that moment.
    public var checkTime: CheckTime?
    /// Whether the chain is valid at the current time too (nil when not checked).
    public var validNow: ValidityNow?
    /// A StoreKit Testing in Xcode token: NOT signed by the App Store.
    public var isXcode: Bool
    /// Every JWS nested in the payload, decoded and verified too, in payload order.
    public var nested: [Nested]
    /// The moment relative phrases are measured from ("3 years ago").
    public var now: Date
    /// The moment access is decided at, for the summary (`--at`, else now).
    public var accessTime: Date

    /// The payload's fields rendered for reading (nil when malformed); computed on
    /// demand, so `--quiet` runs never pay for it.
    public var display: PayloadDisplay? {
        envelope.map { PayloadDisplay(kind: kind, payload: $0.sections.payload.object, now: now) }
    }

    /// One plain-language line for support staff (nil when malformed); computed on demand.
    public var summary: String? { fullPresentation?.summary }

    /// `display` and `summary` together, decoding the payload once.
    public var presentation: (display: PayloadDisplay?, summary: String?) {
        let presentation = fullPresentation
        return (presentation?.display, presentation?.summary)
    }

    /// A JWS found inside the payload (`data.signedTransactionInfo`, …) and its own inspection.
    public struct Nested: Sendable {
        /// Field path in the parent payload, e.g. "data.signedTransactionInfo".
        public let path: String
        public let inspection: Inspection
    }

    enum Reason: Sendable {
        case literal(String)
        /// The first failing check decides: its name and detail, worded when read.
        case failed(Check)
        /// A nested token's failure, worded when read.
        indirect case nestedFailed(path: String, Inspection)
        /// A valid token: the verdict, then what was checked at the check time ("certificates",
        /// "claims": its trust model says) and that time.
        case verified(String, checked: String, at: CheckTime)
    }

    init(
        source: String, kind: PayloadKind, status: Status, reason: Reason, checks: [Check], notes: [String],
        envelope: Envelope?, chain: [CertificateSummary], checkTime: CheckTime?, validNow: ValidityNow?,
        isXcode: Bool = false, nested: [Nested] = [], now: Date = Date(), accessTime: Date = Date()
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

    /// An input that is not a decodable JWS.
    public static func malformed(source: String, reason: String) -> Inspection {
        Inspection(
            source: source, kind: .unknown, status: .malformed, reason: .literal(reason), checks: [], notes: [],
            envelope: nil, chain: [], checkTime: nil, validNow: nil)
    }
}
