/// One check run on a JWS: what was checked, whether it passed, and the values involved.
///
/// A check is `pending` while its work is left to the caller (a deferred signature, see
/// `Verifier.inspectDeferringSignature`): it has then neither passed nor failed, and only
/// `DeferredSignature.resolve(_:)` turns it into a passed one, after the work has run.
public struct Check: Sendable, Equatable {
    /// Stable identifiers, as they appear in JSON output.
    public enum Name: String, Sendable, CaseIterable {
        case alg
        case crit
        case x5c
        case chain
        case chainPath = "chain-path"
        case leafOID = "leaf-oid"
        case intermediateOID = "intermediate-oid"
        case signature
        case bundleId = "bundle-id"
        case appAppleId = "app-apple-id"
        case environment
        case accountToken = "account-token"
        case deviceVerification = "device-verification"
        case active

        /// The status an input gets when this check fails, as its policy declares it.
        public var failureStatus: Status { policy.failureStatus }
    }

    /// Passed, failed, or not run yet.
    enum State: UInt8, Sendable {
        case passed
        case failed
        case pending
    }

    public let name: Name
    private(set) var state: State
    private var text: Text

    /// Whether it passed; never true before its work has run.
    public var passed: Bool { state == .passed }
    /// Whether it failed; a pending check has not.
    public var failed: Bool { state == .failed }
    /// Whether its work is left to the caller and has not run yet.
    public var isPending: Bool { state == .pending }

    /// What was checked and the values seen (expected vs actual on failure).
    public var detail: String {
        switch text {
        case .literal(let detail): detail
        case .chainValid(let anchorName, let time):
            "leaf -> intermediate -> trusted root \(anchorName), valid \(time.phrase)"
        case .pending:
            "pending: not verified yet (verified later, with other signatures)"
        }
    }

    public init(_ name: Name, passed: Bool, _ detail: String) {
        self.init(name, state: passed ? .passed : .failed, text: .literal(detail))
    }

    /// A check whose work is left to the caller; `resolved` is its detail once it has passed.
    static func pending(_ name: Name, detailWhenPassed resolved: String) -> Check {
        Check(name, state: .pending, text: .pending(detailWhenPassed: resolved))
    }

    /// Passes this pending check, in place: its work ran and succeeded. Any other check is left as is.
    mutating func pass() {
        guard case .pending(let detail) = text else { return }
        state = .passed
        text = .literal(detail)
    }

    /// The chain check's outcome for every valid App Store chain: its detail names the check
    /// time, so it is rendered only when shown (`--quiet` batches never format the date).
    static func chainValid(anchorName: String, at time: Inspection.CheckTime) -> Check {
        Check(.chain, state: .passed, text: .chainValid(anchorName: anchorName, at: time))
    }

    private init(_ name: Name, state: State, text: Text) {
        self.name = name
        self.state = state
        self.text = text
    }

    /// A detail as given, or the parts of one rendered on demand.
    private enum Text: Sendable {
        case literal(String)
        case chainValid(anchorName: String, at: Inspection.CheckTime)
        /// Not run yet; the detail it reads with once it has passed.
        case pending(detailWhenPassed: String)
    }

    /// Checks are equal when they read the same, however their details are held.
    public static func == (lhs: Check, rhs: Check) -> Bool {
        lhs.name == rhs.name && lhs.state == rhs.state && lhs.detail == rhs.detail
    }
}
