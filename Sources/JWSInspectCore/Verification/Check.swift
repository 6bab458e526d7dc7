/// One check run on a JWS: what was checked, whether it passed, and the values involved.
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

    public let name: Name
    public let passed: Bool
    private let text: Text

    /// What was checked and the values seen (expected vs actual on failure).
    public var detail: String {
        switch text {
        case .literal(let detail): detail
        case .chainValid(let anchorName, let time):
            "leaf -> intermediate -> trusted root \(anchorName), valid \(time.phrase)"
        }
    }

    public init(_ name: Name, passed: Bool, _ detail: String) {
        self.init(name, passed: passed, text: .literal(detail))
    }

    /// The chain check's outcome for every valid App Store chain: its detail names the check
    /// time, so it is rendered only when shown (`--quiet` batches never format the date).
    static func chainValid(anchorName: String, at time: Inspection.CheckTime) -> Check {
        Check(.chain, passed: true, text: .chainValid(anchorName: anchorName, at: time))
    }

    private init(_ name: Name, passed: Bool, text: Text) {
        self.name = name
        self.passed = passed
        self.text = text
    }

    /// A detail as given, or the parts of one rendered on demand.
    private enum Text: Sendable {
        case literal(String)
        case chainValid(anchorName: String, at: Inspection.CheckTime)
    }

    /// Checks are equal when they read the same, however their details are held.
    public static func == (lhs: Check, rhs: Check) -> Bool {
        lhs.name == rhs.name && lhs.passed == rhs.passed && lhs.detail == rhs.detail
    }
}
